-- Credit a merchant balance and append the ledger entry atomically.
-- KEYS[1] balance hash, KEYS[2] ledger stream (same hash tag); with an
--   audit entry (an operator's or the CLI's credit), KEYS[3] the audit
--   stream of that hash tag, appended in the same step (audit_hook).
-- ARGV[1] currency, ARGV[2] amount (minor units), ARGV[3] time (ms)
local bal = redis.call('HINCRBY', KEYS[1], ARGV[1], ARGV[2])
redis.call('XADD', KEYS[2], '*', 'type', 'credit', 'cur', ARGV[1], 'amt', ARGV[2], 'bal', bal, 'ref', '', 'at', ARGV[3])
audit_hook()
return bal
