-- Step 0 of a balance transfer, on the order's shard: claim the order for a
-- payer. A new claim needs a live order awaiting a balance login; a claim by
-- the same payer is returned as it is (a retry), one by another payer refused.
-- KEYS[1] claim hash, KEYS[2] order hash, KEYS[3] the shard's transfer index.
-- ARGV[1] payer appid, ARGV[2] new attempt id, ARGV[3] time (ms),
--   ARGV[4] order id, ARGV[5] the awaited next action, ARGV[6] the method.
-- Returns {1|2, attempt, state, merchant, amount, currency} for a new (1) or
-- an existing (2) claim of this payer; {0} when another payer holds it; {-1}
-- when there is no such order; {-2} when the order awaits no balance payment.
local function claim()
  local c = redis.call('HMGET', KEYS[1], 'attempt', 'state', 'merchant', 'amt', 'cur')
  return {c[1], c[2], c[3], c[4], c[5]}
end
local payer = redis.call('HGET', KEYS[1], 'payer')
if payer then
  if payer ~= ARGV[1] then
    return {0}
  end
  local c = claim()
  return {2, c[1], c[2], c[3], c[4], c[5]}
end
local o = order_hmget(KEYS[2], 'st', 'next', 'm', 'appid', 'amt', 'cur')
if not o[1] then
  return {-1}
end
if (o[1] ~= '0' and o[1] ~= '1') or o[2] ~= ARGV[5] or o[3] ~= ARGV[6] then
  return {-2}
end
redis.call('HSET', KEYS[1], 'payer', ARGV[1], 'attempt', ARGV[2], 'state', 'open',
  'merchant', o[4], 'amt', o[5], 'cur', o[6], 'at', ARGV[3])
redis.call('ZADD', KEYS[3], ARGV[3], ARGV[4])
local c = claim()
return {1, c[1], c[2], c[3], c[4], c[5]}
