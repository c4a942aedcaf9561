-- Replay an endpoint's deliveries created since ARGV[1]: each dead-lettered
-- one gets one more attempt (behind its object's FIFO, so the order per
-- object holds), each failed one waiting for its retry is brought forward.
-- KEYS[1] the endpoint's history index, KEYS[2] hosts index.
-- ARGV[1] since (ms), ARGV[2] endpoint id, ARGV[3] delivery hash prefix,
--   ARGV[4] host queue prefix, ARGV[5] FIFO prefix, ARGV[6] heads prefix.
-- Returns how many were made due.
local now = now_ms()
local n = 0
for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1], ARGV[1], '+inf')) do
  local f = redis.call('HMGET', ARGV[3] .. id, 'st', 'n')
  if f[1] == 'dead' or (f[1] == 'pending' and tonumber(f[2] or '0') > 0) then
    if requeue(id, ARGV[3], ARGV[4], KEYS[2], ARGV[5], ARGV[6], ARGV[2], now) == 'queued' then
      n = n + 1
    end
  end
end
return n
