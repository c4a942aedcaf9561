-- Change an order's details without changing its status, and emit its event,
-- when the order still is as the caller saw it: the payer's choice and the
-- provider's answer to it.
-- KEYS[1] order hash, KEYS[2] shard event stream.
-- ARGV[1] statuses the order may be in (digits), ARGV[2] guard field,
--   ARGV[3] the guard field's expected value ('' for absent or empty),
--   ARGV[4] event type, ARGV[5] time (ms), ARGV[6..] fields and values.
-- Returns {-1} when there is no such order, {0, status} when the order is
-- not as expected (nothing written), {1, version} when done.
local st = redis.call('HGET', KEYS[1], 'st')
-- The order's id is its key's last part: the hash holds none
-- (memory per live order is held to 400 B).
local id = string.match(KEYS[1], '[^:]+$')
if not st then
  return {-1}
end
local guard = redis.call('HGET', KEYS[1], ARGV[2]) or ''
-- A select order's record leaves its next action out while it is the
-- method choice (schema.Order.Fields): read it as the order does.
if guard == '' and ARGV[2] == 'next' and redis.call('HGET', KEYS[1], 'm') == 'select' then
  guard = 'payment_method_select'
end
if not string.find(ARGV[1], st, 1, true) or guard ~= ARGV[3] then
  return {0, tonumber(st)}
end
local v = redis.call('HINCRBY', KEYS[1], 'v', 1)
redis.call('HSET', KEYS[1], 'ut', ARGV[5], unpack(ARGV, 6))
redis.call('XADD', KEYS[2], '*', 'type', ARGV[4], 'at', ARGV[5], 'id', id, unpack(redis.call('HGETALL', KEYS[1])))
return {1, v}
