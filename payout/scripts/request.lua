-- Ask for a payout: its hold (journal.Library's journal_post), its record,
-- its place in the review (or, approved below the merchant's threshold, the
-- sending) queue, its event and its audit entry in one step, or nothing.
-- KEYS[1] the payout hash, KEYS[2] the shard's payout events, KEYS[3] the
--   review queue, KEYS[4] the send queue, KEYS[5] the merchant's payouts,
--   KEYS[6] the Idempotency-Key's record, KEYS[7] the merchant's
--   destinations, KEYS[8] the audit stream, KEYS[9..14] the hold's journal
--   keys (journal.ScriptArgs); all on the merchant's home shard.
-- ARGV[1] time (ms), ARGV[2] payout id, ARGV[3] destination id, ARGV[4]
--   state (requested or approved), ARGV[5] the key's lifetime (s, 0 = no
--   key), ARGV[6] the request's fingerprint, ARGV[7] the destination's kind,
--   ARGV[8] n, ARGV[9 .. 8 + n] the payout's field-value pairs; then the
--   journal transaction's arguments; then the audit entry.
-- Returns {1, entry id} asked for, {0, account, balance} when available
-- does not cover amount and fee, {5, payout id, fingerprint} when the key
-- made a payout before, {7, why, when} when the destination cannot be paid
-- to (unknown, removed, another kind, cooling off until when).
local at, id, dest, state = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
if ARGV[5] ~= '0' then
  local prev = redis.call('GET', KEYS[6])
  if prev then
    local pid, fp = string.match(prev, '^(%S+) (.*)$')
    return {5, pid, fp}
  end
end
local raw = redis.call('HGET', KEYS[7], dest)
if not raw then
  return {7, 'unknown', '0'}
end
local d = cjson.decode(raw)
if d.kind ~= ARGV[7] then
  return {7, 'kind', '0'}
end
if (tonumber(d.removedMs) or 0) > 0 then
  return {7, 'removed', '0'}
end
if tonumber(d.usableMs) > tonumber(at) then
  return {7, 'cooling', tostring(d.usableMs)}
end
local n = tonumber(ARGV[8])
local jk, ja = journal_args(KEYS, ARGV, 8, 8 + n)
local res = journal_post(jk, ja, function() end)
if res.err or res[1] ~= 1 then
  return res
end
redis.call('HSET', KEYS[1], unpack(ARGV, 9, 8 + n))
redis.call('ZADD', KEYS[5], at, id)
if state == 'approved' then
  -- A bank payout waits for an operator's reference, never for a sender.
  local due = at
  if ARGV[7] == 'bank' then
    due = '+inf'
  end
  redis.call('ZADD', KEYS[4], due, id)
else
  redis.call('ZADD', KEYS[3], at, id)
end
if ARGV[5] ~= '0' then
  redis.call('SET', KEYS[6], id .. ' ' .. ARGV[6], 'EX', ARGV[5])
end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', 1000000, '*', 'type', 'payout.requested', 'at', at, 'id', id,
  unpack(ARGV, 9, 8 + n))
if state == 'approved' then
  redis.call('XADD', KEYS[2], 'MAXLEN', '~', 1000000, '*', 'type', 'payout.approved', 'at', at, 'id', id,
    unpack(ARGV, 9, 8 + n))
end
gw_audit(KEYS[8])
return res
