-- Ends every session of an account.
-- KEYS: user's sessions, audit stream
-- ARGV: session key prefix; then the audit entry
local n = 0
for _, h in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  n = n + redis.call('DEL', ARGV[1] .. h)
end
redis.call('DEL', KEYS[1])
gw_audit(KEYS[2])
return n
