-- Ask for a refund of a paid order: reserve its amount on the order, record
-- the refund pending, index it for the recovery and emit the order's event,
-- all in one step, so concurrent refunds never reserve more than was paid.
-- KEYS[1] order hash, KEYS[2] shard event stream, KEYS[3] the order's
--   refunds hash, KEYS[4] the shard's pending refund index, KEYS[5] the
--   order's balance transfer claim (who paid it, for balance refunds).
-- ARGV[1] refund id, ARGV[2] amount (minor units), ARGV[3] clientRefundId
--   or '', ARGV[4] reason, ARGV[5] time (ms), ARGV[6] kind ('balance' or
--   'provider').
-- Returns {1, record} when reserved; {2, record} when clientRefundId names
-- a refund of the same amount (a retry); {-1} no such order; {-2, status}
-- the order is not paid; {-3, record} clientRefundId names a refund of
-- another amount; {-4, amount left to refund}.
local o = order_hmget(KEYS[1], 'st', 'amt', 'rfr', 'appid', 'cur')
-- The order's id is its key's last part: the hash holds none
-- (memory per live order is held to 400 B).
o[6] = string.match(KEYS[1], '[^:]+$')
if not o[1] then
  return {-1}
end
if ARGV[3] ~= '' then
  local prior = redis.call('HGET', KEYS[3], 'c:' .. ARGV[3])
  if prior then
    local rec = redis.call('HGET', KEYS[3], prior)
    if cjson.decode(rec).amt ~= ARGV[2] then
      return {-3, rec}
    end
    return {2, rec}
  end
end
if o[1] ~= '2' then
  return {-2, tonumber(o[1])}
end
local left = tonumber(o[2]) - tonumber(o[3] or '0')
if tonumber(ARGV[2]) > left then
  return {-4, left}
end
local payer = ''
if ARGV[6] == 'balance' then
  payer = o[4]
  local c = redis.call('HMGET', KEYS[5], 'payer', 'state')
  if c[1] and c[2] == 'paid' then
    payer = c[1]
  end
end
local rec = cjson.encode({id = ARGV[1], oid = o[6], crid = ARGV[3], amt = ARGV[2], cur = o[5], why = ARGV[4],
  st = 'pending', kind = ARGV[6], payer = payer, merchant = o[4], ct = ARGV[5], ut = ARGV[5]})
redis.call('HSET', KEYS[3], ARGV[1], rec)
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[3], 'c:' .. ARGV[3], ARGV[1])
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[3], ttl)
end
redis.call('ZADD', KEYS[4], ARGV[5], o[6] .. ' ' .. ARGV[1])
redis.call('HINCRBY', KEYS[1], 'rfr', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'v', 1)
redis.call('HSET', KEYS[1], 'ut', ARGV[5])
redis.call('XADD', KEYS[2], '*', 'type', 'refund', 'at', ARGV[5], 'rf', rec, 'id', o[6], unpack(redis.call('HGETALL', KEYS[1])))
return {1, rec}
