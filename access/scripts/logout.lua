-- Ends one session, or every session of its account ("log out everywhere").
-- KEYS: session, audit stream
-- ARGV: everywhere ("1" or "0"), session key prefix, user sessions key prefix, session hash; then the audit entry
local uid = redis.call('HGET', KEYS[1], 'uid')
if not uid then
  return 0
end
local set = ARGV[3] .. uid
if ARGV[1] == '1' then
  for _, h in ipairs(redis.call('SMEMBERS', set)) do
    redis.call('DEL', ARGV[2] .. h)
  end
  redis.call('DEL', set)
else
  redis.call('SREM', set, ARGV[4])
  redis.call('DEL', KEYS[1])
end
gw_audit(KEYS[2])
return 1
