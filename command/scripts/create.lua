-- Create an order and emit its event, honouring clientOrderId idempotency.
-- KEYS[1] order hash, KEYS[2] shard event stream, KEYS[3] the merchant's order
--   counter on the shard, KEYS[4] the shard's expiry bucket of the second the
--   order expires in (a list: RPUSH costs no sorted set), KEYS[5] the
--   merchant's status counters on the shard; with a clientOrderId, KEYS[6]
--   the merchant's clientOrderIds on the shard (a hash) and KEYS[7] the
--   clientOrderId's key of before it (orders created before still hold
--   theirs). All share the shard's hash tag.
-- ARGV[1] order key prefix of the shard, ARGV[2] order id, ARGV[3] event type,
--   ARGV[4] event time (ms), ARGV[5] the order's status (its 'st' field,
--   given so that the status counter needs no read back of the hash just
--   written), ARGV[6] the clientOrderId or '', ARGV[7] the packed id
--   (schema.PackOrderID) or '', ARGV[8..] the order's fields and values,
--   'id' and the id first: the event carries them all, the hash all but the
--   id (its key names the order, and memory per live order is held to
--   400 B).
-- Returns {1, id} for a new order, {0, existing id} for a replay of a live one.
local coids = KEYS[6]
if coids then
  local cur = redis.call('HGET', coids, ARGV[6])
  if cur and #cur == 18 then
    cur = 'P' .. string.sub(string.gsub(cur, '.', function(c) return string.format('%02x', string.byte(c)) end), 2)
  elseif not cur then
    cur = redis.call('GET', KEYS[7])
  end
  if cur then
    local st = redis.call('HGET', ARGV[1] .. cur, 'st')
    if st == '0' or st == '1' then
      return {0, cur}
    end
  end
end
redis.call('HSET', KEYS[1], unpack(ARGV, 10))
redis.call('RPUSH', KEYS[4], ARGV[2])
if coids then
  redis.call('HSET', coids, ARGV[6], ARGV[7])
end
redis.call('INCR', KEYS[3])
redis.call('HINCRBY', KEYS[5], ARGV[5], 1)
redis.call('XADD', KEYS[2], '*', 'type', ARGV[3], 'at', ARGV[4], unpack(ARGV, 8))
return {1, ARGV[2]}
