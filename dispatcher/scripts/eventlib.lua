-- Helpers of the endpoint-event scripts (prepended after lib.lua).

-- advance makes the head of an endpoint's object FIFO due now once the
-- delivery before it ended: heads that are no longer pending (expired,
-- dead-lettered by a disable) are dropped on the way. A FIFO left empty
-- leaves its endpoint's set of objects. wh and q are the delivery hash and
-- host queue key prefixes, hosts the shard's hosts index.
local function advance(fifo, objs, obj, wh, q, hosts, now)
  while true do
    local head = redis.call('LINDEX', fifo, 0)
    if not head then
      redis.call('SREM', objs, obj)
      return
    end
    local hf = redis.call('HMGET', wh .. head, 'st', 'due', 'host')
    if hf[1] == 'pending' then
      if not hf[2] and hf[3] then
        redis.call('HSET', wh .. head, 'due', now)
        redis.call('ZADD', q .. hf[3], now, head)
        reindex(hosts, q .. hf[3], hf[3])
      end
      return
    end
    redis.call('LPOP', fifo)
  end
end

-- requeue gives an ended delivery (delivered or dead-lettered) one more
-- attempt, behind what its object's FIFO holds, or brings a failed one
-- waiting for its retry forward to now. Returns queued | already_queued |
-- in_flight | waiting (behind its FIFO's head) | none.
local function requeue(id, wh, q, hosts, fifop, objp, epid, now)
  local k = wh .. id
  local f = redis.call('HMGET', k, 'st', 'lease', 'due', 'man', 'host', 'obj')
  if not f[1] then
    return 'none'
  end
  if f[1] == 'pending' then
    if f[4] then
      return 'already_queued'
    end
    if not f[3] then
      return 'waiting'
    end
    if f[2] and tonumber(f[3]) > now then
      return 'in_flight'
    end
    redis.call('HSET', k, 'due', now)
    redis.call('ZADD', q .. f[5], now, id)
    reindex(hosts, q .. f[5], f[5])
    return 'queued'
  end
  redis.call('HSET', k, 'st', 'pending', 'man', f[1])
  redis.call('HDEL', k, 'why', 'lease', 'due')
  local fifo = fifop .. epid .. ':' .. f[6]
  redis.call('SADD', objp .. epid, f[6])
  if redis.call('RPUSH', fifo, id) == 1 then
    redis.call('HSET', k, 'due', now)
    redis.call('ZADD', q .. f[5], now, id)
    reindex(hosts, q .. f[5], f[5])
  end
  return 'queued'
end
