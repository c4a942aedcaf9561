-- Uses a setup token once: sets the password and the TOTP enrolment,
-- replaces the recovery codes, clears a locked second factor (a new
-- enrolment is the lost-authenticator path) and ends every session of the
-- account.
-- KEYS: setup token, user, recovery codes, user's sessions, audit stream, locked accounts set
-- ARGV: id, password hash, password version, totp secret, totp step used,
--       session key prefix, now ms, number of code hashes, code hashes...; then the audit entry
-- The token's key expires in Redis, and its deadline is also checked
-- against the caller's clock, the one every other time-out here uses.
if redis.call('GET', KEYS[1]) ~= ARGV[1] or redis.call('EXISTS', KEYS[2]) == 0 then
  return 0
end
if tonumber(redis.call('HGET', KEYS[2], 'setupUntil') or '0') < tonumber(ARGV[7]) then
  redis.call('DEL', KEYS[1])
  return 0
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[2], 'pw', ARGV[2], 'pwVer', ARGV[3], 'totp', ARGV[4], 'totpStep', ARGV[5], 'setupKey', '', 'setupUntil', '0',
  'sfLocked', '', 'sfFails', '0')
redis.call('SREM', KEYS[6], ARGV[1])
redis.call('DEL', KEYS[3])
local n = tonumber(ARGV[8])
for i = 1, n do
  redis.call('SADD', KEYS[3], ARGV[8 + i])
end
for _, h in ipairs(redis.call('SMEMBERS', KEYS[4])) do
  redis.call('DEL', ARGV[6] .. h)
end
redis.call('DEL', KEYS[4])
gw_audit(KEYS[5])
return 1
