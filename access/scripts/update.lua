-- Changes an account's role or disables/enables it; a disabled account's
-- sessions end at once (a role change takes effect on the next request,
-- since sessions read the role from the account).
-- KEYS: user, user's sessions, audit stream
-- ARGV: field ("role" or "disabled"), value, session key prefix; then the audit entry
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[1] == 'disabled' and ARGV[2] == '1' then
  for _, h in ipairs(redis.call('SMEMBERS', KEYS[2])) do
    redis.call('DEL', ARGV[3] .. h)
  end
  redis.call('DEL', KEYS[2])
end
gw_audit(KEYS[3])
return 1
