-- Record a usdt_direct payer's transaction hash and put the order under
-- review, with its changed event, if the order still awaits the payment on
-- the network the hash was checked for; queue it for the reviewers, due at
-- once; and move its expiry to the end of the review window, so the sweep
-- leaves it to the review meanwhile. A previous review's verdict (a
-- rejected hash) no longer applies: it is cleared, and the order leaves
-- the administrator's desk.
-- KEYS[1] order hash, KEYS[2] shard event stream, KEYS[3] shard expiry
--   index, KEYS[4] shard review queue, KEYS[5] shard desk index.
-- ARGV[1] network, ARGV[2] hash, ARGV[3] next action awaited,
--   ARGV[4] next action under review, ARGV[5] event type, ARGV[6] time (ms),
--   ARGV[7] end of the review window (ms).
-- Returns {-1} when there is no such order, {0, status} when the order is
-- not as expected (nothing written), {1, version} when done.
local f = redis.call('HMGET', KEYS[1], 'st', 'next', 'net', 'id')
if not f[1] then
  return {-1}
end
if f[1] ~= '1' or f[2] ~= ARGV[3] or f[3] ~= ARGV[1] then
  return {0, tonumber(f[1])}
end
local v = redis.call('HINCRBY', KEYS[1], 'v', 1)
redis.call('HSET', KEYS[1], 'ut', ARGV[6], 'txh', ARGV[2], 'next', ARGV[4])
redis.call('HDEL', KEYS[1], 'rv', 'rvr')
-- Never earlier than it was (GT), and only while still indexed (XX).
redis.call('ZADD', KEYS[3], 'XX', 'GT', ARGV[7], f[4])
redis.call('ZADD', KEYS[4], ARGV[6], f[4])
redis.call('ZREM', KEYS[5], f[4])
redis.call('XADD', KEYS[2], '*', 'type', ARGV[5], 'at', ARGV[6], unpack(redis.call('HGETALL', KEYS[1])))
return {1, v}
