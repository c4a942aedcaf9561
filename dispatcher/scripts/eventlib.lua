-- Helpers of the endpoint-event scripts (prepended after lib.lua).
--
-- Per (endpoint, object) one delivery is the head: it is named in the
-- endpoint's heads hash (object → delivery id) and is the only one in a
-- host queue. Deliveries scheduled while it has not ended wait behind it in
-- the object's FIFO list, which exists only then: one event per object,
-- the usual case, writes no list.

-- make_due puts pending delivery id (hash k, host) in its host queue now.
local function make_due(k, id, host, q, hosts, now)
  redis.call('HSET', k, 'due', now)
  redis.call('ZADD', q .. host, now, id)
  reindex(hosts, q .. host, host)
end

-- advance hands the head of an endpoint's object on once the head ended:
-- the next waiting delivery that is still pending becomes the head and due
-- now (waiting ones that are no longer pending, expired or dead-lettered,
-- are dropped on the way); none left, the object leaves the heads hash.
-- wh and q are the delivery hash and host queue key prefixes, hosts the
-- shard's hosts index.
local function advance(heads, fifo, obj, wh, q, hosts, now)
  while true do
    local nxt = redis.call('LPOP', fifo)
    if not nxt then
      redis.call('HDEL', heads, obj)
      return
    end
    local hf = redis.call('HMGET', wh .. nxt, 'st', 'due', 'host')
    if hf[1] == 'pending' then
      redis.call('HSET', heads, obj, nxt)
      if not hf[2] and hf[3] then
        make_due(wh .. nxt, nxt, hf[3], q, hosts, now)
      end
      return
    end
  end
end

-- enqueue makes pending delivery id (hash k, host) of obj the head of its
-- endpoint's object when there is none, due now, or else makes it wait
-- behind the head in the FIFO. A head that is no longer pending (its hash
-- expired) is handed on at once, so nothing waits behind it for ever.
-- Returns true when id became the head.
local function enqueue(heads, fifo, obj, id, k, host, wh, q, hosts, now)
  if redis.call('HSETNX', heads, obj, id) == 1 then
    make_due(k, id, host, q, hosts, now)
    return true
  end
  local head = redis.call('HGET', heads, obj)
  if head == id then
    make_due(k, id, host, q, hosts, now)
    return true
  end
  redis.call('RPUSH', fifo, id)
  if redis.call('HGET', wh .. head, 'st') ~= 'pending' then
    advance(heads, fifo, obj, wh, q, hosts, now)
  end
  return false
end

-- requeue gives an ended delivery (delivered or dead-lettered) one more
-- attempt, behind what its object's FIFO holds, or brings a failed one
-- waiting for its retry forward to now. Returns queued | already_queued |
-- in_flight | waiting (behind its object's head) | none.
local function requeue(id, wh, q, hosts, fifop, headsp, epid, now)
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
    make_due(k, id, f[5], q, hosts, now)
    return 'queued'
  end
  redis.call('HSET', k, 'st', 'pending', 'man', f[1])
  redis.call('HDEL', k, 'why', 'lease', 'due')
  enqueue(headsp .. epid, fifop .. epid .. ':' .. f[6], f[6], id, k, f[5], wh, q, hosts, now)
  return 'queued'
end
