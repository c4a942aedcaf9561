-- Record a usdt_direct payer's transaction hash and put the order under
-- review, with its changed event, if the order still awaits the payment on
-- the network the hash was checked for; queue it for the reviewers, due at
-- once; and move its expiry to the end of the review window, so the sweep
-- leaves it to the review meanwhile. A previous review's verdict (a
-- rejected hash) and progress no longer apply: they are cleared, and the
-- order leaves the administrator's desk.
-- An administrator's attach (ARGV[8] = '1') may also replace the hash of an
-- order under review or waiting for an administrator; it and a review's
-- move (ARGV[8] = 'm', only onto an order awaiting a transfer) append
-- their decision (ARGV[9]) to the order's history.
-- KEYS[1] order hash, KEYS[2] shard event stream, KEYS[3] shard expiry
--   index, KEYS[4] shard review queue, KEYS[5] shard desk index,
--   KEYS[6] the order's history.
-- ARGV[1] network, ARGV[2] hash, ARGV[3] next action awaited,
--   ARGV[4] next action under review, ARGV[5] event type, ARGV[6] time (ms),
--   ARGV[7] end of the review window (ms), ARGV[8] '' (the payer), '1'
--   (attach) or 'm' (move), ARGV[9] decision JSON (attach and move),
--   ARGV[10] and ARGV[11] when the order expires (ms) if it was created as
--   usdt_direct and if as select, ARGV[12] the shard's expiry bucket
--   prefix.
-- Returns {-1} when there is no such order, {0, status} when the order is
-- not as expected (nothing written), {1, version, previous hash} when done.
local f = redis.call('HMGET', KEYS[1], 'st', 'next', 'net', 'txh', 'rv')
-- The order's id is its key's last part: the hash holds none
-- (memory per live order is held to 400 B).
local id = string.match(KEYS[1], '[^:]+$')
if not f[1] then
  return {-1}
end
local awaiting = f[2] == ARGV[3] or (ARGV[8] == '1' and f[2] == ARGV[4])
if f[1] ~= '1' or not awaiting or f[3] ~= ARGV[1] then
  return {0, tonumber(f[1])}
end
local v = redis.call('HINCRBY', KEYS[1], 'v', 1)
redis.call('HSET', KEYS[1], 'ut', ARGV[6], 'txh', ARGV[2], 'next', ARGV[4])
redis.call('HDEL', KEYS[1], 'rv', 'rvr', 'rvs', 'rvn', 'rvc', 'rvq', 'rvu')
-- Never earlier than it was (GT); an order an administrator's wait took
-- out of the index goes back in. The index takes an order over from its
-- expiry bucket (whose sweep leaves an indexed order alone) at the later of
-- the window's end and the bucket's expiry, found in the bucket of either
-- TTL the order may have been created with.
local due = ARGV[7]
if f[5] ~= 'waiting' and not redis.call('ZSCORE', KEYS[3], id) then
  for i = 10, 11 do
    local e = tonumber(ARGV[i])
    if redis.call('LPOS', ARGV[12] .. math.floor((e + 999) / 1000), id) then
      due = math.max(tonumber(due), e)
      break
    end
  end
end
redis.call('ZADD', KEYS[3], 'GT', due, id)
if ARGV[8] ~= '' then
  redis.call('RPUSH', KEYS[6], ARGV[9])
  local ttl = redis.call('PTTL', KEYS[1])
  if ttl > 0 then
    redis.call('PEXPIRE', KEYS[6], ttl)
  end
end
redis.call('ZADD', KEYS[4], ARGV[6], id)
redis.call('ZREM', KEYS[5], id)
redis.call('XADD', KEYS[2], '*', 'type', ARGV[5], 'at', ARGV[6], 'id', id, unpack(redis.call('HGETALL', KEYS[1])))
return {1, v, f[4] or ''}
