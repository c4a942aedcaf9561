-- Checks a session and marks it used: it ends when idle too long, older
-- than the absolute time-out, or when its account was disabled or changed
-- its password since.
-- KEYS: session
-- ARGV: now ms, idle ms, absolute ms, user key prefix, user sessions key prefix, session hash
local s = redis.call('HMGET', KEYS[1], 'uid', 'created', 'seen', 'pwVer', 'csrf')
if not s[1] then
  return false
end
local now, created, seen = tonumber(ARGV[1]), tonumber(s[2]), tonumber(s[3])
local u = redis.call('HMGET', ARGV[4] .. s[1], 'pwVer', 'disabled', 'realm', 'role', 'appid', 'email', 'tz')
if now - seen > tonumber(ARGV[2]) or now - created > tonumber(ARGV[3]) or u[1] ~= s[4] or u[2] ~= '0' then
  redis.call('DEL', KEYS[1])
  redis.call('SREM', ARGV[5] .. s[1], ARGV[6])
  return false
end
redis.call('HSET', KEYS[1], 'seen', ARGV[1])
redis.call('PEXPIRE', KEYS[1], math.min(tonumber(ARGV[2]), created + tonumber(ARGV[3]) - now))
return {s[1], u[3], u[4], u[5], u[6], s[2], s[5], u[7] or ''}
