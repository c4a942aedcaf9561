-- Reserve one order's share of a channel's daily caps, atomically.
-- KEYS[1] the channel's counters for the day (schema.ChannelCapKey),
-- KEYS[2] the order's hold (schema.ChannelCapHoldKey).
-- ARGV[1] the amount, ARGV[2] the amount cap (0: none), ARGV[3] the count
--   cap (0: none), ARGV[4] the hold's value "<day>:<amount>", ARGV[5] how
--   long (s) counters and hold are kept.
-- Returns 1 reserved (or reserved before: a retry takes nothing more),
-- 0 the count cap is reached, -1 the amount cap would be passed.
if redis.call('EXISTS', KEYS[2]) == 1 then
  return 1
end
local amount = tonumber(ARGV[1])
local n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
local amt = tonumber(redis.call('HGET', KEYS[1], 'amt') or '0')
local maxAmt, maxN = tonumber(ARGV[2]), tonumber(ARGV[3])
if maxN > 0 and n + 1 > maxN then
  return 0
end
if maxAmt > 0 and amt + amount > maxAmt then
  return -1
end
redis.call('HINCRBY', KEYS[1], 'n', 1)
redis.call('HINCRBY', KEYS[1], 'amt', amount)
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('SET', KEYS[2], ARGV[4], 'EX', ARGV[5])
return 1
