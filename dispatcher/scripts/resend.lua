-- Queue a manual resend. A delivered or dead-lettered order gets one more
-- attempt, after which it returns to that state unless acknowledged; a
-- pending one has its next attempt brought forward to now.
-- KEYS[1] delivery hash, KEYS[2] host queue, KEYS[3] hosts index, KEYS[4]
--   the merchant's index of deliveries not delivered; with an audit entry
--   (a console's or the CLI's resend), KEYS[5] the shard's audit stream.
-- ARGV[1] order id, ARGV[2] host, ARGV[3] the merchant whose delivery it
--   must be: another's is answered as none, with nothing written, no audit
--   entry either.
-- Returns queued | already_queued | in_flight | none.
local f = redis.call('HMGET', KEYS[1], 'st', 'lease', 'due', 'man', 'appid')
if not f[1] or f[5] ~= ARGV[3] then
  return 'none'
end
local now = now_ms()
if f[1] == 'pending' then
  if f[4] then
    return 'already_queued'
  end
  if f[2] and tonumber(f[3] or '0') > now then
    return 'in_flight'
  end
  redis.call('HSET', KEYS[1], 'man', 'pending', 'due', now)
else
  redis.call('HSET', KEYS[1], 'st', 'pending', 'man', f[1], 'due', now)
  local at = tonumber(redis.call('HGET', KEYS[1], 'paid') or '0') or 0
  if at <= 0 then
    at = now
  end
  redis.call('ZADD', KEYS[4], at, ARGV[1])
end
redis.call('ZADD', KEYS[2], now, ARGV[1])
reindex(KEYS[3], KEYS[2], ARGV[2])
audit_hook()
return 'queued'
