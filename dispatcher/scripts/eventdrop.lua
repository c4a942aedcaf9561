-- Dead-letter every delivery an endpoint has queued, with a reason (the
-- endpoint was disabled): replay sends them again once it is enabled.
-- KEYS[1] the endpoint's heads, KEYS[2] hosts index.
-- ARGV[1] endpoint id, ARGV[2] why, ARGV[3] delivery hash prefix, ARGV[4]
--   host queue prefix, ARGV[5] FIFO prefix.
-- Returns how many were dead-lettered. One in flight is marked too; its
-- attempt's failure is then stale, its success still counts.
local n = 0
local heads = redis.call('HGETALL', KEYS[1])
for i = 1, #heads, 2 do
  local fifo = ARGV[5] .. ARGV[1] .. ':' .. heads[i]
  local ids = redis.call('LRANGE', fifo, 0, -1)
  table.insert(ids, 1, heads[i + 1])
  for _, id in ipairs(ids) do
    local k = ARGV[3] .. id
    local f = redis.call('HMGET', k, 'st', 'host')
    if f[1] == 'pending' then
      redis.call('HSET', k, 'st', 'dead', 'why', ARGV[2])
      redis.call('HDEL', k, 'due', 'man', 'lease')
      if f[2] then
        redis.call('ZREM', ARGV[4] .. f[2], id)
        reindex(KEYS[2], ARGV[4] .. f[2], f[2])
      end
      n = n + 1
    end
  end
  redis.call('DEL', fifo)
end
redis.call('DEL', KEYS[1])
return n
