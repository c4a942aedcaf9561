-- A balance transfer whose order was paid some other way, on the payer's
-- home shard: give the debit back, once.
-- KEYS[1] balance hash, KEYS[2] ledger stream, KEYS[3] the attempt's marker.
-- ARGV[1] currency, ARGV[2] amount (minor units), ARGV[3] time (ms),
--   ARGV[4] order id.
-- Returns the marker after: 'r' refunded (now or before), else what it was
-- ('' for none: nothing was debited, nothing to give back).
local m = redis.call('GET', KEYS[3])
if m ~= 'd' then
  return m or ''
end
local bal = redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])
redis.call('XADD', KEYS[2], '*', 'type', 'refund', 'cur', ARGV[1], 'amt', ARGV[2], 'bal', bal, 'ref', ARGV[4], 'at', ARGV[3])
redis.call('SET', KEYS[3], 'r', 'KEEPTTL')
return 'r'
