-- Set or clear one fee schedule with its audit entry, in one step.
-- KEYS[1] the fees hash, KEYS[2] its version key, KEYS[3] the {merchants}
--   audit stream; KEYS[4], for a merchant's override being set, the
--   merchant's account hash (all on the {merchants} slot).
-- ARGV[1] the schedule's field, ARGV[2] the schedule ("" clears it); the
--   audit entry follows (audit.ScriptArgs).
-- Returns 'ok', 'no_merchant' (KEYS[4] absent) or 'none' (nothing to clear);
-- only 'ok' changed anything and appended the entry.
if KEYS[4] and redis.call('EXISTS', KEYS[4]) == 0 then
  return 'no_merchant'
end
if ARGV[2] == '' then
  if redis.call('HDEL', KEYS[1], ARGV[1]) == 0 then
    return 'none'
  end
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
end
redis.call('INCR', KEYS[2])
gw_audit(KEYS[3])
return 'ok'
