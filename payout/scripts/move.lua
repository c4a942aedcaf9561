-- Move a payout from one state to the next: the state it must be in, the
-- maker-checker and lease checks, the journal transaction of the move (a
-- release or the payment, when it has one), the queues, its event and its
-- audit entry in one step, or nothing.
-- KEYS[1] the payout hash, KEYS[2] the shard's payout events, KEYS[3] the
--   review queue, KEYS[4] the send queue, KEYS[5] the audit stream,
--   KEYS[6] who changed the merchant's payout destinations or settings,
--   KEYS[7..12] the move's journal keys when it posts; all on the
--   merchant's home shard.
-- ARGV[1] the states it may start from (comma-separated), ARGV[2] the state
--   it moves to, ARGV[3] time (ms), ARGV[4] the deciding operator's key
--   ('' = no check), ARGV[5] since when (ms) a change by that key forbids
--   the decision, ARGV[6] the sender's lease token the payout must hold
--   ('' = none), ARGV[7] the send queue's score after the move (a lease's
--   end, when it moves to sending), ARGV[8] n, ARGV[9 .. 8 + n] fields to
--   set; then the journal transaction's arguments, when it posts; then the
--   audit entry.
-- Returns {1, entry id} moved (with its posting, or {1} without), {6,
-- state} when it is in another state, {8, when} when the decider changed
-- the merchant's payout details at when, {9} when another sender holds the
-- lease, or the journal's refusal.
local st = redis.call('HGET', KEYS[1], 'st')
if not st then
  return {6, ''}
end
local from = false
for s in string.gmatch(ARGV[1], '[^,]+') do
  if s == st then
    from = true
  end
end
if not from then
  return {6, st}
end
if ARGV[4] ~= '' then
  local last = redis.call('ZSCORE', KEYS[6], ARGV[4])
  if last and tonumber(last) >= tonumber(ARGV[5]) then
    return {8, last}
  end
end
if ARGV[6] ~= '' and redis.call('HGET', KEYS[1], 'lease') ~= ARGV[6] then
  return {9}
end
local n = tonumber(ARGV[8])
local res = {1}
if #KEYS >= 12 then
  local jk, ja = journal_args(KEYS, ARGV, 6, 8 + n)
  res = journal_post(jk, ja, function() end)
  if res.err or res[1] ~= 1 then
    return res
  end
end
local to, at = ARGV[2], ARGV[3]
redis.call('HSET', KEYS[1], 'st', to)
if n > 0 then
  redis.call('HSET', KEYS[1], unpack(ARGV, 9, 8 + n))
end
local id = string.match(KEYS[1], '[^:]+$')
redis.call('ZREM', KEYS[3], id)
if to == 'approved' then
  -- A bank payout waits for an operator's reference, never for a sender.
  local due = at
  if redis.call('HGET', KEYS[1], 'kind') == 'bank' then
    due = '+inf'
  end
  redis.call('ZADD', KEYS[4], due, id)
elseif to == 'sending' then
  redis.call('ZADD', KEYS[4], ARGV[7], id)
else
  redis.call('ZREM', KEYS[4], id)
end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', 1000000, '*', 'type', 'payout.' .. to, 'at', at, 'id', id,
  unpack(redis.call('HGETALL', KEYS[1])))
gw_audit(KEYS[5])
return res
