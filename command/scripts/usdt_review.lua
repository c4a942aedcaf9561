-- A usdt_direct review's outcome for the hash the order holds, with the
-- order's event, its removal from the review queue and the decision
-- appended to its history, all or nothing.
--   approved: the order becomes paid (as transition.lua pays: completion
--     time, retention, out of the expiry index, clientOrderId freed, the
--     paid event the webhook follows); review approved, next action cleared.
--   rejected: back to payable: next action usdt_direct_pay, hash cleared,
--     review rejected with its reason; on the desk as failed; expiring again
--     if an administrator's wait had taken it out of the expiry index.
--   waiting: for an administrator: review waiting with its reason, out of
--     the review queue and of the expiry index, on the desk.
-- KEYS[1] order hash, KEYS[2] shard event stream, KEYS[3] shard expiry
--   index, KEYS[4] shard review queue, KEYS[5] shard desk index,
--   KEYS[6] the order's history.
-- ARGV[1] outcome, ARGV[2] hash, ARGV[3] time (ms), ARGV[4] decision JSON,
--   ARGV[5] reason, ARGV[6] retention (s) once paid, ARGV[7] clientOrderId
--   key prefix, ARGV[8] next action under review, ARGV[9] next action to
--   pay, ARGV[10] paid event type, ARGV[11] changed event type,
--   ARGV[12] expiry (ms) of a rejected order that had none, ARGV[13] status
--   counters key prefix of the shard (approval moves the order's count to
--   paid), ARGV[14] clientOrderIds hash key prefix of the shard, ARGV[15]
--   the packed id (schema.PackOrderID), ARGV[16] a rejection's finding
--   (underpaid, overpaid; '' for none).
-- The outcome's event carries what it found (schema.EvUSDT): a rejection's
-- finding, or 'late' for an approval of an order that had ended unpaid
-- (cancelled, expired, failed) before it: a merchant's usdt.* events.
-- Returns {-1} no such order, {0, why} refused (nothing written; why is
-- method, paid, hash or state), {2, version} a repeat (nothing written),
-- {1, version} done.
local f = redis.call('HMGET', KEYS[1], 'st', 'm', 'txh', 'next', 'rv')
if not f[1] then
  return {-1}
end
-- The order's id is its key's last part: the hash holds none
-- (memory per live order is held to 400 B).
local st, txh, nxt, rv, id = f[1], f[3] or '', f[4] or '', f[5] or '', string.match(KEYS[1], '[^:]+$')
local outcome = ARGV[1]
if f[2] ~= 'usdt_direct' then
  return {0, 'method'}
end
if st == '2' then
  if outcome == 'approved' and rv == 'approved' and txh == ARGV[2] then
    return {2, tonumber(redis.call('HGET', KEYS[1], 'v'))}
  end
  return {0, 'paid'}
end
if outcome == 'rejected' and rv == 'rejected' and txh == '' then
  return {2, tonumber(redis.call('HGET', KEYS[1], 'v'))}
end
if txh ~= ARGV[2] then
  return {0, 'hash'}
end
if outcome == 'waiting' and rv == 'waiting' then
  return {2, tonumber(redis.call('HGET', KEYS[1], 'v'))}
end
if nxt ~= ARGV[8] and rv ~= 'waiting' then
  return {0, 'state'}
end
local v = redis.call('HINCRBY', KEYS[1], 'v', 1)
local event = ARGV[11]
local finding = ''
if outcome == 'approved' and st ~= '0' and st ~= '1' then
  finding = 'late'
elseif outcome == 'rejected' then
  finding = ARGV[16] or ''
end
redis.call('HSET', KEYS[1], 'ut', ARGV[3], 'rv', outcome)
redis.call('HDEL', KEYS[1], 'rvs', 'rvn', 'rvu', 'rvc', 'rvq')
redis.call('ZREM', KEYS[4], id)
if outcome == 'approved' then
  event = ARGV[10]
  local counts = ARGV[13] .. order_hmget(KEYS[1], 'appid')[1]
  redis.call('HINCRBY', counts, st, -1)
  redis.call('HINCRBY', counts, '2', 1)
  redis.call('HSET', KEYS[1], 'st', '2', 'dt', ARGV[3])
  redis.call('HDEL', KEYS[1], 'next', 'rvr')
  redis.call('EXPIRE', KEYS[1], ARGV[6])
  redis.call('ZREM', KEYS[3], id)
  redis.call('ZREM', KEYS[5], id)
  local c = order_hmget(KEYS[1], 'appid', 'coid')
  if c[2] then
    local ch = ARGV[14] .. c[1]
    if redis.call('HGET', ch, c[2]) == ARGV[15] then
      redis.call('HDEL', ch, c[2])
    end
    local ck = ARGV[7] .. c[1] .. ':' .. c[2]
    if redis.call('GET', ck) == id then
      redis.call('DEL', ck)
    end
  end
elseif outcome == 'rejected' then
  redis.call('HSET', KEYS[1], 'next', ARGV[9], 'rvr', ARGV[5])
  redis.call('HDEL', KEYS[1], 'txh')
  redis.call('ZADD', KEYS[5], ARGV[3], id)
  if st == '0' or st == '1' then
    redis.call('ZADD', KEYS[3], 'NX', ARGV[12], id)
  end
else
  redis.call('HSET', KEYS[1], 'rvr', ARGV[5])
  redis.call('ZREM', KEYS[3], id)
  redis.call('ZADD', KEYS[5], ARGV[3], id)
end
redis.call('RPUSH', KEYS[6], ARGV[4])
local ttl = redis.call('PTTL', KEYS[1])
if ttl > 0 then
  redis.call('PEXPIRE', KEYS[6], ttl)
end
local entry = {'type', event, 'at', ARGV[3]}
if finding ~= '' then
  entry[#entry + 1], entry[#entry + 2] = 'usdt', finding
end
entry[#entry + 1], entry[#entry + 2] = 'id', id
for _, f in ipairs(redis.call('HGETALL', KEYS[1])) do
  entry[#entry + 1] = f
end
redis.call('XADD', KEYS[2], '*', unpack(entry))
return {1, v}
