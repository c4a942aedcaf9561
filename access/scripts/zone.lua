-- Sets the zone an account's console shows times in, when the account
-- still exists.
-- KEYS: user
-- ARGV: zone ("" for UTC)
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
if ARGV[1] == '' then
  redis.call('HDEL', KEYS[1], 'tz')
else
  redis.call('HSET', KEYS[1], 'tz', ARGV[1])
end
return 1
