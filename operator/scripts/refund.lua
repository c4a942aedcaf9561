-- Keep a provider refund's outcome on its exception, on the order's
-- timeline and in the audit log, in one step.
-- KEYS[1] the handled mark, KEYS[2] the audit stream of the mark's hash
-- tag, KEYS[3] the order's notification list (the timeline's source).
-- ARGV[1] the mark (JSON), ARGV[2] how long it is kept (ms), ARGV[3] the
-- timeline record (JSON), ARGV[4] the list's bound, then the audit entry.
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
-- LPUSHX: a list that expired with its order is not made again without
-- its expiry.
if redis.call('LPUSHX', KEYS[3], ARGV[3]) > 0 then
  redis.call('LTRIM', KEYS[3], 0, tonumber(ARGV[4]) - 1)
end
return gw_audit(KEYS[2])
