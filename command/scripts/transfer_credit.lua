-- Step 3 of a balance transfer, on the merchant's home shard: credit the
-- merchant once per order.
-- KEYS[1] balance hash, KEYS[2] ledger stream, KEYS[3] the order's marker.
-- ARGV[1] currency, ARGV[2] amount (minor units), ARGV[3] time (ms),
--   ARGV[4] order id, ARGV[5] marker lifetime (s).
-- Returns 1 when it credited, 0 when it had already.
if redis.call('SET', KEYS[3], '1', 'NX', 'EX', ARGV[5]) == false then
  return 0
end
local bal = redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])
redis.call('XADD', KEYS[2], '*', 'type', 'credit', 'cur', ARGV[1], 'amt', ARGV[2], 'bal', bal, 'ref', ARGV[4], 'at', ARGV[3])
return 1
