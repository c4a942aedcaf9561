-- Step 1 of a balance transfer, on the payer's home shard: debit the payer
-- once per attempt. The marker records the outcome, so a repeat returns it
-- and changes nothing; a refusal is recorded too, so that an attempt whose
-- claim was released can never debit later.
-- KEYS[1] balance hash, KEYS[2] ledger stream, KEYS[3] the attempt's marker.
-- ARGV[1] currency, ARGV[2] amount (minor units), ARGV[3] time (ms),
--   ARGV[4] order id, ARGV[5] marker lifetime (s).
-- Returns the marker: 'd' debited, 'n' refused (balance short), 'r'
-- debited and refunded.
local m = redis.call('GET', KEYS[3])
if m then
  return m
end
local have = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if have < tonumber(ARGV[2]) then
  redis.call('SET', KEYS[3], 'n', 'EX', ARGV[5])
  return 'n'
end
local bal = redis.call('HINCRBY', KEYS[1], ARGV[1], -tonumber(ARGV[2]))
redis.call('XADD', KEYS[2], '*', 'type', 'debit', 'cur', ARGV[1], 'amt', ARGV[2], 'bal', bal, 'ref', ARGV[4], 'at', ARGV[3])
redis.call('SET', KEYS[3], 'd', 'EX', ARGV[5])
return 'd'
