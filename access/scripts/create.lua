-- Creates an account with no password yet and its first setup token.
-- KEYS: user, email index, realm's or merchant's user set, setup token, audit stream
-- ARGV: id, realm, appid, email, role, created ms, setup ttl ms, setup key name, setup until ms; then the audit entry
if redis.call('EXISTS', KEYS[2]) == 1 then
  return 0
end
redis.call('SET', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'realm', ARGV[2], 'appid', ARGV[3], 'email', ARGV[4],
  'role', ARGV[5], 'created', ARGV[6], 'disabled', '0', 'setupKey', ARGV[8], 'setupUntil', ARGV[9], 'totpStep', '0')
redis.call('SADD', KEYS[3], ARGV[1])
redis.call('SET', KEYS[4], ARGV[1], 'PX', ARGV[7])
gw_audit(KEYS[5])
return 1
