-- Record an attempt of an endpoint delivery and move it on: delivered,
-- retried later, or dead-lettered; a failed one-off resend goes back to
-- where it was. When it ends, the next delivery waiting behind it about
-- the same object falls due. The endpoint's health is kept: the time of its first failure since
-- its last success.
-- KEYS[1] delivery hash, KEYS[2] attempt log, KEYS[3] host queue, KEYS[4]
--   hosts index, KEYS[5] the merchant's endpoint health.
-- ARGV[1] delivery id, ARGV[2] host, ARGV[3] lease token, ARGV[4] '1' when
--   acknowledged, ARGV[5] attempt record (JSON), ARGV[6] delay before the
--   next attempt (ms), -1 when the schedule is used up, ARGV[7] how long the
--   log is kept when the delivery has no time to live (ms), ARGV[8] most
--   records kept (the first, in the hash, and the newest in the log), ARGV[9] why to
--   dead-letter it now without a retry ('' for none: the endpoint is gone
--   or disabled), ARGV[10] delivery hash key prefix, ARGV[11] log key
--   prefix, ARGV[12] lease (ms), ARGV[13] lease token prefix, or empty to
--   claim nothing, ARGV[14] failing this long (ms) disables the endpoint,
--   ARGV[15] endpoint id, ARGV[16] FIFO key prefix, ARGV[17] host queue key
--   prefix, ARGV[18] heads key prefix (the object is the delivery's),
--   ARGV[19] when the endpoint last changed (ms): a first failure before
--   it (the endpoint was enabled again since) starts the count anew.
-- Returns {outcome, disable}, outcome one of delivered | retry | dead |
--   manual_failed | stale | gone, disable '1' when the endpoint has failed
--   for ARGV[14], followed by the 10 fields of claim.lua when the host
--   queue's next due delivery was claimed for this slot.
local f = redis.call('HMGET', KEYS[1], 'st', 'lease', 'man', 'n', 'obj', 'a1', 'na')
if not f[1] then
  return {'gone', '0'}
end
local now = now_ms()
-- set gathers the hash's changes for one HSET. The first attempt's record
-- is kept in the hash itself (a1): a delivery acknowledged at once, the
-- usual one, has no log list. Later ones go to the log, which takes the
-- hash's remaining time when it is created; no attempt refreshes either,
-- so both are kept for the retention from creation, as the history is.
-- na counts the records, the next attempt's number.
local set = {'na', tonumber(f[7] or '0') + 1}
if not f[6] then
  set[3], set[4] = 'a1', ARGV[5]
else
  local cap = math.max(tonumber(ARGV[8]) - 1, 1)
  local logged = redis.call('RPUSH', KEYS[2], ARGV[5])
  if logged == 1 then
    keep(KEYS[1], ARGV[7], 1, KEYS[2])
  elseif logged > cap then
    redis.call('LTRIM', KEYS[2], -cap, -1)
  end
end
local function put(...)
  for _, v in ipairs({...}) do
    set[#set + 1] = v
  end
end
local outcome
local ended = false
local disable = '0'
local failed = false
if ARGV[4] == '1' then
  local n = tonumber(f[4] or '0')
  if f[2] == ARGV[3] and f[3] ~= 'dead' and f[3] ~= 'delivered' then
    n = n + 1
  end
  ended = f[1] == 'pending'
  put('st', 'delivered', 'n', n)
  redis.call('HDEL', KEYS[1], 'lease', 'man', 'due', 'why')
  redis.call('ZREM', KEYS[3], ARGV[1])
  redis.call('HDEL', KEYS[5], ARGV[15])
  outcome = 'delivered'
elseif f[1] ~= 'pending' or f[2] ~= ARGV[3] then
  outcome = 'stale'
elseif f[3] == 'dead' or f[3] == 'delivered' then
  put('st', f[3])
  redis.call('HDEL', KEYS[1], 'lease', 'man', 'due')
  redis.call('ZREM', KEYS[3], ARGV[1])
  ended, failed, outcome = true, true, 'manual_failed'
else
  put('n', tonumber(f[4] or '0') + 1)
  local delay = tonumber(ARGV[6])
  if ARGV[9] == '' and delay >= 0 then
    redis.call('HDEL', KEYS[1], 'lease', 'man')
    redis.call('ZADD', KEYS[3], now + delay, ARGV[1])
    put('due', now + delay)
    outcome = 'retry'
  else
    local why = ARGV[9]
    if why == '' then
      why = 'every retry failed'
    end
    put('st', 'dead', 'why', why)
    redis.call('HDEL', KEYS[1], 'lease', 'man', 'due')
    redis.call('ZREM', KEYS[3], ARGV[1])
    ended, outcome = true, 'dead'
  end
  failed = true
end
redis.call('HSET', KEYS[1], unpack(set))
-- A failure counts toward the endpoint's health unless it was not sent at
-- all because the endpoint is gone or off.
if failed and ARGV[9] == '' then
  local first = redis.call('HGET', KEYS[5], ARGV[15])
  if not first or tonumber(first) < tonumber(ARGV[19]) then
    redis.call('HSET', KEYS[5], ARGV[15], now)
  elseif now - tonumber(first) >= tonumber(ARGV[14]) then
    disable = '1'
  end
end
if ended then
  local heads = ARGV[18] .. ARGV[15]
  if redis.call('HGET', heads, f[5] or '') == ARGV[1] then
    advance(heads, ARGV[16] .. ARGV[15] .. ':' .. (f[5] or ''), f[5] or '', ARGV[10], ARGV[17], KEYS[4], now)
  end
end
local out = {outcome, disable}
if ARGV[13] ~= '' then
  local ids = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now, 'LIMIT', 0, 4)
  for _, id in ipairs(ids) do
    if id ~= ARGV[1] and claim_one(out, KEYS[3], ARGV[2], id, ARGV[10], ARGV[11], now, tonumber(ARGV[12]), ARGV[13] .. id) then
      break
    end
  end
end
reindex(KEYS[4], KEYS[3], ARGV[2])
return out
