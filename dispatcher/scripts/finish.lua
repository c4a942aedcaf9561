-- Record an attempt and move its delivery on: delivered, retried later, or
-- dead-lettered; a failed manual resend goes back to where it was.
-- KEYS[1] delivery hash, KEYS[2] attempt log, KEYS[3] host queue,
--   KEYS[4] hosts index, KEYS[5] dead-letter set, KEYS[6] order hash,
--   KEYS[7] the merchant's index of deliveries not delivered, KEYS[8] the
--   merchant's attempt counters of this hour (schema.WebhookRateKey).
-- ARGV[1] order id, ARGV[2] host, ARGV[3] lease token, ARGV[4] '1' when
--   acknowledged, ARGV[5] attempt record (JSON), ARGV[6] delay before the next
--   attempt (ms), or -1 when the schedule is used up, ARGV[7] fallback ttl (ms),
--   ARGV[8] most records kept, ARGV[9] least ttl beyond the next due time (ms),
--   ARGV[10] delivery hash key prefix, ARGV[11] log key prefix, ARGV[12] lease
--   (ms), ARGV[13] lease token prefix, or empty to claim nothing, ARGV[14]
--   how long an hour's counters live (ms).
-- Returns {outcome}, outcome one of delivered | retry | dead | manual_failed |
--   stale | gone, followed by the 10 fields of claim.lua when a next due
--   delivery of the same host queue was claimed: the attempt's slot goes on
--   to it without a claim round of its own.
-- An acknowledgement always counts, even from an attempt whose lease ran
-- out: after a success nothing more is sent. A failure only moves the
-- delivery when the lease is still this attempt's.
local f = redis.call('HMGET', KEYS[1], 'st', 'lease', 'man', 'n')
if not f[1] then
  return {'gone'}
end
local now = now_ms()
local logged = redis.call('RPUSH', KEYS[2], ARGV[5])
if logged > tonumber(ARGV[8]) then
  redis.call('LTRIM', KEYS[2], -tonumber(ARGV[8]), -1)
end
-- Every recorded attempt counts toward the merchant's success rate.
redis.call('HINCRBY', KEYS[8], 'a', 1)
if ARGV[4] == '1' then
  redis.call('HINCRBY', KEYS[8], 's', 1)
end
redis.call('PEXPIRE', KEYS[8], ARGV[14])
local outcome
local floor = 0
if ARGV[4] == '1' then
  local n = tonumber(f[4] or '0')
  if f[2] == ARGV[3] and f[3] ~= 'dead' and f[3] ~= 'delivered' then
    n = n + 1
  end
  redis.call('HSET', KEYS[1], 'st', 'delivered', 'n', n)
  redis.call('HDEL', KEYS[1], 'lease', 'man', 'due')
  redis.call('ZREM', KEYS[3], ARGV[1])
  if f[1] == 'dead' or f[3] == 'dead' then
    redis.call('ZREM', KEYS[5], ARGV[1])
  end
  redis.call('ZREM', KEYS[7], ARGV[1])
  outcome = 'delivered'
elseif f[1] ~= 'pending' or f[2] ~= ARGV[3] then
  outcome = 'stale'
elseif f[3] == 'dead' or f[3] == 'delivered' then
  redis.call('HSET', KEYS[1], 'st', f[3])
  if f[3] == 'delivered' then
    redis.call('ZREM', KEYS[7], ARGV[1])
  end
  redis.call('HDEL', KEYS[1], 'lease', 'man', 'due')
  redis.call('ZREM', KEYS[3], ARGV[1])
  outcome = 'manual_failed'
else
  redis.call('HSET', KEYS[1], 'n', tonumber(f[4] or '0') + 1)
  redis.call('HDEL', KEYS[1], 'lease', 'man')
  local delay = tonumber(ARGV[6])
  if delay >= 0 then
    redis.call('ZADD', KEYS[3], now + delay, ARGV[1])
    redis.call('HSET', KEYS[1], 'due', now + delay)
    floor = delay + tonumber(ARGV[9])
    outcome = 'retry'
  else
    redis.call('HSET', KEYS[1], 'st', 'dead')
    redis.call('HDEL', KEYS[1], 'due')
    redis.call('ZREM', KEYS[3], ARGV[1])
    redis.call('ZADD', KEYS[5], now, ARGV[1])
    -- The set lists what an operator may want to resend; older entries than
    -- any delivery state can still have are gone from it.
    redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now - tonumber(ARGV[7]))
    outcome = 'dead'
  end
end
local out = {outcome}
if ARGV[13] ~= '' then
  local ids = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 4)
  for _, id in ipairs(ids) do
    if id ~= ARGV[1] and claim_one(out, KEYS[3], ARGV[2], id, ARGV[10], ARGV[11], now, tonumber(ARGV[12]), ARGV[13] .. id) then
      break
    end
  end
end
reindex(KEYS[4], KEYS[3], ARGV[2])
keep(KEYS[6], ARGV[7], floor, KEYS[1], KEYS[2])
return out
