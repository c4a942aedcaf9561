-- journal_post(KEYS, ARGV, audit_hook) posts one journal transaction, once: its postings' balances, the journal
-- entry and its idempotency marker together, or nothing.
-- KEYS[1] the marker (JournalTxKey), KEYS[2] the merchant's accounts hash,
--   KEYS[3] the shard's platform accounts hash, KEYS[4] the journal stream,
--   KEYS[5] a marker that must exist first (flag q), KEYS[6] a sorted set
--   to add a member to (flag d); with an audit entry (a person's top-up or
--   adjustment), KEYS[7] the shard's audit stream (audit_hook); all on the
--   merchant's home shard.
-- ARGV[1] marker lifetime (s, 0 = for ever), ARGV[2] time (ms), ARGV[3]
--   kind, ARGV[4] appid, ARGV[5] reference, ARGV[6] memo, ARGV[7] by,
--   ARGV[8] flags: n (merchant buckets may go negative), r (record a
--   refusal, so a retry is refused too), q (KEYS[5] must be posted), d (add
--   ARGV[10] to KEYS[6] at score ARGV[9]); ARGV[11] the number of postings,
--   then (account, currency, signed amount) for each.
-- Returns {1, entry id} posted, {2, entry id} posted before, {0, account,
-- balance} refused (the merchant's balance falls short), {3} the required
-- transaction was never posted, {4} a refusal recorded before.
-- This file is a library: the journal's own script calls journal_post with
-- its KEYS and ARGV; a command script that must post in its own step (an
-- order paid from the merchant's balance) calls it with the tables
-- journal_args cuts out of its own (Journal.ScriptArgs builds them).
local function journal_post(KEYS, ARGV, audit_hook)
  local prev = redis.call('GET', KEYS[1])
  if prev == '!' then
    return {4}
  elseif prev then
    return {2, prev}
  end
  local flags = ARGV[8]
  if string.find(flags, 'q', 1, true) then
    local req = redis.call('GET', KEYS[5])
    if not req or req == '!' then
      return {3}
    end
  end
  local negative = string.find(flags, 'n', 1, true) ~= nil
  local mprefix = 'merchant:' .. ARGV[4] .. ':'
  local vals = {}
  local function value(hash, field)
    local k = hash .. '\0' .. field
    if vals[k] == nil then
      vals[k] = tonumber(redis.call('HGET', hash, field) or '0')
    end
    return vals[k], k
  end
  local out, sums, short, dec = {}, {}, nil, {}
  local function add(acct, cur, d)
    if d == 0 then
      return
    end
    local hash, field = KEYS[3], acct .. ':' .. cur
    if string.sub(acct, 1, #mprefix) == mprefix then
      hash, field = KEYS[2], string.sub(acct, #mprefix + 1) .. ':' .. cur
    end
    local v, k = value(hash, field)
    vals[k] = v + d
    if d < 0 and hash == KEYS[2] and dec[k] == nil then
      dec[k] = {acct, v}
    end
    out[#out + 1] = {hash, field, acct, cur, d}
  end
  local n = tonumber(ARGV[11])
  for i = 0, n - 1 do
    local acct, cur, d = ARGV[12 + 3 * i], ARGV[13 + 3 * i], tonumber(ARGV[14 + 3 * i])
    sums[cur] = (sums[cur] or 0) + d
    if acct == mprefix .. 'spend' then
      local need = -d
      for _, b in ipairs({'available', 'pending'}) do
        local have = value(KEYS[2], b .. ':' .. cur)
        local take = math.min(need, math.max(have, 0))
        add(mprefix .. b, cur, -take)
        need = need - take
      end
      add(mprefix .. 'available', cur, -need)
    else
      add(acct, cur, d)
    end
  end
  for cur, s in pairs(sums) do
    if s ~= 0 then
      return redis.error_reply('journal: postings in ' .. cur .. ' sum to ' .. s)
    end
  end
  if not negative then
    for k, first in pairs(dec) do
      if vals[k] < 0 and not short then
        short = first
      end
    end
  end
  local ttl = tonumber(ARGV[1])
  if short then
    if string.find(flags, 'r', 1, true) then
      if ttl > 0 then
        redis.call('SET', KEYS[1], '!', 'EX', ttl)
      else
        redis.call('SET', KEYS[1], '!')
      end
    end
    return {0, short[1], short[2]}
  end
  local enc = {}
  for _, p in ipairs(out) do
    redis.call('HINCRBY', p[1], p[2], p[5])
    enc[#enc + 1] = p[3] .. ',' .. p[4] .. ',' .. string.format('%d', p[5])
  end
  local id = redis.call('XADD', KEYS[4], '*', 'tx', string.sub(KEYS[1], string.find(KEYS[1], ':jtx:', 1, true) + 5),
    'k', ARGV[3], 'm', ARGV[4], 'ref', ARGV[5], 'at', ARGV[2], 'memo', ARGV[6], 'by', ARGV[7], 'p', table.concat(enc, ';'))
  if ttl > 0 then
    redis.call('SET', KEYS[1], id, 'EX', ttl)
  else
    redis.call('SET', KEYS[1], id)
  end
  if string.find(flags, 'd', 1, true) then
    redis.call('ZADD', KEYS[6], ARGV[9], ARGV[10])
  end
  audit_hook()
  return {1, id}
end

-- journal_args cuts a transaction's 6 keys and 11 + 3n arguments out of a
-- calling script's KEYS and ARGV, after ko keys and ao arguments of its
-- own; it returns them and the index of the caller's next argument.
local function journal_args(K, A, ko, ao)
  local n = 11 + 3 * tonumber(A[ao + 11])
  local jk, ja = {}, {}
  for i = 1, 6 do
    jk[i] = K[ko + i]
  end
  for i = 1, n do
    ja[i] = A[ao + i]
  end
  return jk, ja, ao + n + 1
end
