-- The last step of a balance transfer, on the order's shard: record how it
-- ended and take it out of the recovery index. A released claim (the debit
-- was refused) is deleted, so the payer may try again; a finished one is
-- kept as long as the order, so a repeat by its payer is answered from it.
-- Only the claim's own attempt can finish it; 'gone' drops an index entry
-- whose claim no longer exists (and no newer claim has taken its place).
-- KEYS[1] claim hash, KEYS[2] the shard's transfer index.
-- ARGV[1] order id, ARGV[2] attempt, ARGV[3] 'paid', 'refunded',
--   'released' or 'gone', ARGV[4] how long a finished claim is kept (s).
-- Returns 1 when done, 0 when the claim is another attempt's (or gone).
local attempt = redis.call('HGET', KEYS[1], 'attempt')
if ARGV[3] == 'gone' and not attempt then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return 1
end
if attempt ~= ARGV[2] then
  return 0
end
if ARGV[3] == 'released' then
  redis.call('DEL', KEYS[1])
else
  redis.call('HSET', KEYS[1], 'state', ARGV[3])
  redis.call('EXPIRE', KEYS[1], ARGV[4])
end
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
