-- Helpers every dispatcher script starts with (prepended in store.go).

-- now_ms is Redis's own clock, so that leases and due times mean the same to
-- every dispatcher process whatever their clocks say.
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- reindex keeps a host's score in the shard's hosts index equal to the
-- earliest due time in its queue, and drops the host when the queue is empty.
local function reindex(hosts, queue, host)
  local head = redis.call('ZRANGE', queue, 0, 0, 'WITHSCORES')
  if #head == 0 then
    redis.call('ZREM', hosts, host)
  else
    redis.call('ZADD', hosts, head[2], host)
  end
end

-- keep gives the delivery state and log the order hash's remaining time to
-- live (fallback when it has none), but never less than floor: a pending
-- delivery outlives its next due time.
local function keep(order, fallback, floor, ...)
  local ttl = redis.call('PTTL', order)
  if ttl <= 0 then
    ttl = tonumber(fallback)
  end
  if ttl < tonumber(floor) then
    ttl = tonumber(floor)
  end
  for _, k in ipairs({...}) do
    redis.call('PEXPIRE', k, ttl)
  end
end
