-- Credit a merchant balance and append the ledger entry atomically.
-- KEYS[1] balance hash, KEYS[2] ledger stream (same hash tag)
-- ARGV[1] currency, ARGV[2] amount (minor units), ARGV[3] time (ms)
local bal = redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])
redis.call('XADD', KEYS[2], '*', 'type', 'credit', 'cur', ARGV[1], 'amt', ARGV[2], 'bal', bal, 'ref', '', 'at', ARGV[3])
return bal
