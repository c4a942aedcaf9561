-- Create an order paid from the merchant's balance: debit, ledger entry,
-- order and its event in one step, or nothing at all.
-- KEYS[1] order hash, KEYS[2] event stream, KEYS[3] balance hash, KEYS[4]
--   ledger stream, KEYS[5] the merchant's order counter, KEYS[6] its status
--   counters, KEYS[7] (when the order has a clientOrderId) the key naming
--   the balance order that paid it, kept for ever (all on the merchant's
--   home shard).
-- ARGV[1] currency, ARGV[2] amount (minor units), ARGV[3] time (ms),
--   ARGV[4] order id, ARGV[5] retention (s), ARGV[6..] order fields.
-- Returns {1, balance after}, {0, balance} when it does not cover the amount,
-- or {2, 0, order id} when the clientOrderId was paid before: nothing moves.
if KEYS[7] then
  local before = redis.call('GET', KEYS[7])
  if before then
    return {2, 0, before}
  end
end
local have = tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0')
if have < tonumber(ARGV[2]) then
  return {0, have}
end
local bal = redis.call('HINCRBY', KEYS[3], ARGV[1], -tonumber(ARGV[2]))
redis.call('XADD', KEYS[4], '*', 'type', 'debit', 'cur', ARGV[1], 'amt', ARGV[2], 'bal', bal, 'ref', ARGV[4], 'at', ARGV[3])
redis.call('HSET', KEYS[1], unpack(ARGV, 6))
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('INCR', KEYS[5])
redis.call('HINCRBY', KEYS[6], redis.call('HGET', KEYS[1], 'st'), 1)
redis.call('XADD', KEYS[2], '*', 'type', 'paid', 'at', ARGV[3], unpack(ARGV, 6))
if KEYS[7] then
  redis.call('SET', KEYS[7], ARGV[4])
end
return {1, bal}
