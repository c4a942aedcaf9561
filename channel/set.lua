-- Set or clear one field of the channels' routing data, with its audit
-- entry, in one step.
-- KEYS[1] the hash (schema.ChannelsKey or ChannelBreakersKey), KEYS[2] the
--   version key, KEYS[3] the {merchants} audit stream.
-- ARGV[1] the field, ARGV[2] the value ("" clears it), ARGV[3] the value
--   the field must hold now ("*": any; "" : absent), so two processes
--   tripping one breaker write (and log) it once; the audit entry follows.
-- Returns 'ok', 'stale' (ARGV[3] did not match) or 'none' (nothing to
-- clear); only 'ok' changed anything and appended the entry.
if ARGV[3] ~= '*' then
  local cur = redis.call('HGET', KEYS[1], ARGV[1]) or ''
  if cur ~= ARGV[3] then
    return 'stale'
  end
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
