-- Drop the first ARGV[1] ids of expiry bucket KEYS[1] once swept, if they
-- are still its first ones: another process's sweep of the same bucket may
-- have dropped them already, and must not make this one drop unswept ids.
-- ARGV[2] the last id swept. Redis deletes the list once it is empty.
if redis.call('LINDEX', KEYS[1], tonumber(ARGV[1]) - 1) == ARGV[2] then
  redis.call('LTRIM', KEYS[1], ARGV[1], -1)
  return 1
end
return 0
