-- Record attempts of endpoint deliveries of one shard, each moved on as
-- its own call would: delivered, retried later, or dead-lettered; a failed
-- one-off resend goes back to where it was. When one ends, the next
-- delivery waiting behind it about the same object falls due. The
-- endpoint's health is kept: the time of its first failure since its last
-- success. Several outcomes share one call because part of a call's work
-- is not per delivery: the call itself, the clock, and per host queue the
-- removals (one ZREM), the search for the next due deliveries and the
-- hosts index; an endpoint acknowledged twice clears its health once.
-- KEYS[1] the shard's hosts index, then per outcome i (from 0) KEYS[2+4i]
--   its delivery hash, KEYS[3+4i] its attempt log, KEYS[4+4i] its
--   merchant's endpoint health, KEYS[5+4i] its host queue.
-- ARGV[1] how long a log is kept when its delivery has no time to live
--   (ms), ARGV[2] most records kept (the first, in the hash, and the
--   newest in the log), ARGV[3] delivery hash key prefix, ARGV[4] log key
--   prefix, ARGV[5] lease (ms), ARGV[6] failing this long (ms) disables an
--   endpoint, ARGV[7] FIFO key prefix, ARGV[8] host queue key prefix,
--   ARGV[9] heads key prefix, ARGV[10] how many outcomes, then 10 per
--   outcome from ARGV[11+10i]: delivery id, lease token, '1' when
--   acknowledged, attempt record (JSON), delay before the next attempt
--   (ms; -1 when the schedule is used up), why to dead-letter it now
--   without a retry ('' for none: the endpoint is gone or disabled), the
--   endpoint id, when the endpoint last changed (ms: a first failure
--   before it starts the count anew), a lease token prefix to claim the
--   host queue's next due delivery for this outcome's slot ('' for none),
--   and the host.
-- Returns per outcome, in order: its outcome (delivered | retry | dead |
--   manual_failed | stale | gone), disable ('1' when the endpoint has
--   failed for ARGV[6]), how many deliveries were claimed for its slot (0
--   or 1), then the 11 fields of claim.lua of that one.
local now = now_ms()
local hosts = KEYS[1]
local whp, fifop, qp, headsp = ARGV[3], ARGV[7], ARGV[8], ARGV[9]
-- Per host queue (by key): its host, what leaves it, the outcomes whose
-- slots ask for its next due deliveries; queues lists them in first use.
local queues, queue = {}, {}
local cleared = {}

-- finish_one is one outcome; it answers outcome and disable.
local function finish_one(k, logk, health, q, id, token, ack, rec, delay, why, epid, changed)
  local removed = queue[q].removed
  local f = redis.call('HMGET', k, 'st', 'lease', 'man', 'n', 'obj', 'a1', 'na')
  if not f[1] then
    return 'gone', '0'
  end
  -- set gathers the hash's changes for one HSET. The first attempt's
  -- record is kept in the hash itself (a1): a delivery acknowledged at
  -- once, the usual one, has no log list. Later ones go to the log, which
  -- takes the hash's remaining time when it is created; no attempt
  -- refreshes either, so both are kept for the retention from creation,
  -- as the history is. na counts the records, the next attempt's number.
  local set = {'na', tonumber(f[7] or '0') + 1}
  if not f[6] then
    set[3], set[4] = 'a1', rec
  else
    local cap = math.max(tonumber(ARGV[2]) - 1, 1)
    local logged = redis.call('RPUSH', logk, rec)
    if logged == 1 then
      keep(k, ARGV[1], 1, logk)
    elseif logged > cap then
      redis.call('LTRIM', logk, -cap, -1)
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
  if ack == '1' then
    local n = tonumber(f[4] or '0')
    if f[2] == token and f[3] ~= 'dead' and f[3] ~= 'delivered' then
      n = n + 1
    end
    ended = f[1] == 'pending'
    put('st', 'delivered', 'n', n)
    redis.call('HDEL', k, 'lease', 'man', 'due', 'why')
    removed[#removed + 1] = id
    local ck = health .. '\0' .. epid
    if not cleared[ck] then
      cleared[ck] = true
      redis.call('HDEL', health, epid)
    end
    outcome = 'delivered'
  elseif f[1] ~= 'pending' or f[2] ~= token then
    outcome = 'stale'
  elseif f[3] == 'dead' or f[3] == 'delivered' then
    put('st', f[3])
    redis.call('HDEL', k, 'lease', 'man', 'due')
    removed[#removed + 1] = id
    ended, failed, outcome = true, true, 'manual_failed'
  else
    put('n', tonumber(f[4] or '0') + 1)
    delay = tonumber(delay)
    if why == '' and delay >= 0 then
      redis.call('HDEL', k, 'lease', 'man')
      redis.call('ZADD', q, now + delay, id)
      put('due', now + delay)
      outcome = 'retry'
    else
      if why == '' then
        why = 'every retry failed'
      end
      put('st', 'dead', 'why', why)
      redis.call('HDEL', k, 'lease', 'man', 'due')
      removed[#removed + 1] = id
      ended, outcome = true, 'dead'
    end
    failed = true
  end
  redis.call('HSET', k, unpack(set))
  -- A failure counts toward the endpoint's health unless it was not sent
  -- at all because the endpoint is gone or off.
  if failed and why == '' then
    cleared[health .. '\0' .. epid] = nil
    local first = redis.call('HGET', health, epid)
    if not first or tonumber(first) < tonumber(changed) then
      redis.call('HSET', health, epid, now)
    elseif now - tonumber(first) >= tonumber(ARGV[6]) then
      disable = '1'
    end
  end
  if ended then
    local heads = headsp .. epid
    local obj = f[5] or ''
    if redis.call('HGET', heads, obj) == id then
      advance(heads, fifop .. epid .. ':' .. obj, obj, whp, qp, hosts, now)
    end
  end
  return outcome, disable
end

local n = tonumber(ARGV[10])
local outs = {}
for i = 0, n - 1 do
  local a, kb = 11 + 10 * i, 2 + 4 * i
  local q = KEYS[kb + 3]
  if not queue[q] then
    queue[q] = {host = ARGV[a + 9], removed = {}, asks = {}}
    queues[#queues + 1] = q
  end
  local outcome, disable = finish_one(KEYS[kb], KEYS[kb + 1], KEYS[kb + 2], q, ARGV[a], ARGV[a + 1],
    ARGV[a + 2], ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6], ARGV[a + 7])
  outs[i + 1] = {outcome, disable}
  if ARGV[a + 8] ~= '' then
    local asks = queue[q].asks
    asks[#asks + 1] = i + 1
  end
end
-- Per host queue, the ended ones leave it together. Deferring it changes
-- nothing: what an outcome puts in a queue (a retry, the next head of an
-- object) is never a delivery that ended in this call. Then the slots that
-- asked for more get the queue's next due deliveries, one each, in the
-- order they asked, and the hosts index is brought up to date.
local claimed = {}
for _, q in ipairs(queues) do
  local qq = queue[q]
  if #qq.removed > 0 then
    redis.call('ZREM', q, unpack(qq.removed))
  end
  local asks = qq.asks
  if #asks > 0 then
    local ids = redis.call('ZRANGEBYSCORE', q, '-inf', now, 'LIMIT', 0, #asks + 4)
    local next_ask = 1
    for _, id in ipairs(ids) do
      if next_ask > #asks then
        break
      end
      local a = 11 + 10 * (asks[next_ask] - 1)
      local job = {}
      if claim_one(job, q, qq.host, id, whp, ARGV[4], now, tonumber(ARGV[5]), ARGV[a + 8] .. id) then
        claimed[asks[next_ask]] = job
        next_ask = next_ask + 1
      end
    end
  end
  reindex(hosts, q, qq.host)
end
local out = {}
for i = 1, n do
  out[#out + 1] = outs[i][1]
  out[#out + 1] = outs[i][2]
  local job = claimed[i]
  if job then
    out[#out + 1] = 1
    for _, v in ipairs(job) do
      out[#out + 1] = v
    end
  else
    out[#out + 1] = 0
  end
end
return out
