-- Sets whether every user of a merchant needs TOTP; turning it on ends the
-- sessions of users who have none, so they cannot go on without it.
-- KEYS: merchant policy, merchant's user set, audit stream
-- ARGV: "1" or "0", user key prefix, session key prefix, user sessions key prefix; then the audit entry
redis.call('HSET', KEYS[1], 'requireTotp', ARGV[1])
if ARGV[1] == '1' then
  for _, uid in ipairs(redis.call('SMEMBERS', KEYS[2])) do
    local secret = redis.call('HGET', ARGV[2] .. uid, 'totp')
    if not secret or secret == '' then
      for _, h in ipairs(redis.call('SMEMBERS', ARGV[4] .. uid)) do
        redis.call('DEL', ARGV[3] .. h)
      end
      redis.call('DEL', ARGV[4] .. uid)
    end
  end
end
gw_audit(KEYS[3])
return 1
