-- Issues a new setup token for an account, ending the previous one: only
-- the newest link works.
-- KEYS: user, new setup token, audit stream
-- ARGV: setup ttl ms, setup key name, setup until ms; then the audit entry
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
local old = redis.call('HGET', KEYS[1], 'setupKey')
if old and old ~= '' then
  redis.call('DEL', old)
end
redis.call('SET', KEYS[2], redis.call('HGET', KEYS[1], 'id'), 'PX', ARGV[1])
redis.call('HSET', KEYS[1], 'setupKey', ARGV[2], 'setupUntil', ARGV[3])
gw_audit(KEYS[3])
return 1
