-- Move an order to another status and emit the event, or do nothing.
-- KEYS[1] order hash, KEYS[2] shard event stream, KEYS[3] the shard's expiry
--   index (a finished order leaves it), KEYS[4] the order's review history
--   (kept as long as the order).
-- ARGV[1] target status, ARGV[2] statuses it may come from (digits),
--   ARGV[3] event type, ARGV[4] time (ms), ARGV[5] retention (s) once final
--   or 0, ARGV[6] clientOrderId key prefix of the shard, ARGV[7] for the
--   sweep of the expiry index the time (ms) the order must be due by in it;
--   for the sweep of an expiry bucket 'b': the bucket is due, so the order
--   is, unless the index holds it (its expiry moved) or it waits for an
--   administrator (no expiry then); else '', ARGV[8] status counters key prefix of the shard (the
--   merchant's is the prefix and the order's appid: one counter leaves the
--   old status, one enters the new), ARGV[9] clientOrderIds hash key prefix
--   of the shard, ARGV[10] the packed id (schema.PackOrderID), ARGV[11..]
--   extra fields.
-- Returns {-1} when there is no such order, {0, status} when the move does
-- not apply (a repeat or a forbidden move), {2, status} when the order is
-- not due yet (its expiry moved since the sweep read it), {1, version} when
-- done.
local st = redis.call('HGET', KEYS[1], 'st')
-- The order's id is its key's last part: the hash holds none
-- (memory per live order is held to 400 B).
local id = string.match(KEYS[1], '[^:]+$')
if not st then
  return {-1}
end
if not string.find(ARGV[2], st, 1, true) then
  return {0, tonumber(st)}
end
if ARGV[7] == 'b' then
  if redis.call('HGET', KEYS[1], 'rv') == 'waiting' or redis.call('ZSCORE', KEYS[3], id) then
    return {2, tonumber(st)}
  end
elseif ARGV[7] ~= '' then
  local due = redis.call('ZSCORE', KEYS[3], id)
  if due and tonumber(due) > tonumber(ARGV[7]) then
    return {2, tonumber(st)}
  end
end
local v = redis.call('HINCRBY', KEYS[1], 'v', 1)
local counts = ARGV[8] .. order_hmget(KEYS[1], 'appid')[1]
redis.call('HINCRBY', counts, st, -1)
redis.call('HINCRBY', counts, ARGV[1], 1)
redis.call('HSET', KEYS[1], 'st', ARGV[1], 'ut', ARGV[4])
if ARGV[1] == '2' then
  redis.call('HSET', KEYS[1], 'dt', ARGV[4])
end
if #ARGV > 10 then
  redis.call('HSET', KEYS[1], unpack(ARGV, 11))
end
if ARGV[5] ~= '0' then
  redis.call('EXPIRE', KEYS[1], ARGV[5])
  redis.call('EXPIRE', KEYS[4], ARGV[5])
  redis.call('ZREM', KEYS[3], id)
  -- A finished order frees its clientOrderId, unless a newer order holds it.
  local fields = order_hmget(KEYS[1], 'appid', 'coid')
  if fields[2] then
    local ch = ARGV[9] .. fields[1]
    if redis.call('HGET', ch, fields[2]) == ARGV[10] then
      redis.call('HDEL', ch, fields[2])
    end
    local ck = ARGV[6] .. fields[1] .. ':' .. fields[2]
    if redis.call('GET', ck) == id then
      redis.call('DEL', ck)
    end
  end
end
redis.call('XADD', KEYS[2], '*', 'type', ARGV[3], 'at', ARGV[4], 'id', id, unpack(redis.call('HGETALL', KEYS[1])))
return {1, v}
