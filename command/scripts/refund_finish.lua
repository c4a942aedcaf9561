-- End a pending refund, once: succeeded adds its amount to the order's
-- refunded total, failed releases its reservation; either way the record
-- leaves the recovery index and the order's event carries it.
-- KEYS[1] order hash, KEYS[2] shard event stream, KEYS[3] the order's
--   refunds hash, KEYS[4] the shard's pending refund index.
-- ARGV[1] refund id, ARGV[2] 'succeeded' or 'failed', ARGV[3] time (ms),
--   ARGV[4] why it failed (or ''), ARGV[5] the provider's refund id (or '').
-- Returns {1, record} when ended now; {0, record} when it had ended
-- already (nothing written); {-1} no such refund or order.
local raw = redis.call('HGET', KEYS[3], ARGV[1])
if not raw or redis.call('EXISTS', KEYS[1]) == 0 then
  return {-1}
end
local rec = cjson.decode(raw)
if rec.st ~= 'pending' then
  return {0, raw}
end
if ARGV[2] == 'succeeded' then
  redis.call('HINCRBY', KEYS[1], 'rfd', rec.amt)
else
  redis.call('HINCRBY', KEYS[1], 'rfr', -tonumber(rec.amt))
end
rec.st, rec.ut = ARGV[2], ARGV[3]
if ARGV[4] ~= '' then
  rec.err = ARGV[4]
end
if ARGV[5] ~= '' then
  rec.pref = ARGV[5]
end
raw = cjson.encode(rec)
redis.call('HSET', KEYS[3], ARGV[1], raw)
redis.call('ZREM', KEYS[4], rec.oid .. ' ' .. ARGV[1])
redis.call('HINCRBY', KEYS[1], 'v', 1)
redis.call('HSET', KEYS[1], 'ut', ARGV[3])
redis.call('XADD', KEYS[2], '*', 'type', 'refund', 'at', ARGV[3], 'rf', raw, 'id', string.match(KEYS[1], '[^:]+$'), unpack(redis.call('HGETALL', KEYS[1])))
return {1, raw}
