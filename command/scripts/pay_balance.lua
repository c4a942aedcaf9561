-- Create an order paid from the merchant's balance: the journal transaction
-- balance_order:<id> (journal.Library's journal_post), the order and its
-- paid event in one step, or nothing at all.
-- KEYS[1..6] the journal transaction's keys (journal.ScriptArgs); then
--   KEYS[7] order hash, KEYS[8] event stream, KEYS[9] the merchant's order
--   counter, KEYS[10] its status counters, KEYS[11] (when the order has a
--   clientOrderId) the key naming the balance order that paid it, kept for
--   ever (all on the merchant's home shard).
-- ARGV: the journal transaction's arguments, then time (ms), order id,
--   retention (s), order fields.
-- Returns {1, entry id} paid, {0, account, balance} when the available
-- balance does not cover the amount, or {5, 0, order id} when the
-- clientOrderId was paid before: nothing moves.
if KEYS[11] then
  local before = redis.call('GET', KEYS[11])
  if before then
    return {5, 0, before}
  end
end
local jk, ja, i = journal_args(KEYS, ARGV, 0, 0)
local res = journal_post(jk, ja, function() end)
if res.err or res[1] ~= 1 then
  return res
end
local at, id, retention = ARGV[i], ARGV[i + 1], ARGV[i + 2]
redis.call('HSET', KEYS[7], unpack(ARGV, i + 3))
redis.call('EXPIRE', KEYS[7], retention)
redis.call('INCR', KEYS[9])
redis.call('HINCRBY', KEYS[10], redis.call('HGET', KEYS[7], 'st'), 1)
redis.call('XADD', KEYS[8], '*', 'type', 'paid', 'at', at, unpack(ARGV, i + 3))
if KEYS[11] then
  redis.call('SET', KEYS[11], id)
end
return res
