-- Give back one order's reservation, once.
-- KEYS[1] the channel's counters of the hold's day, KEYS[2] the hold.
-- ARGV[1] the hold's value as read ("<day>:<amount>"), ARGV[2] the amount.
-- Returns 1 released, 0 nothing held (released before, or never taken).
if redis.call('GET', KEYS[2]) ~= ARGV[1] then
  return 0
end
redis.call('DEL', KEYS[2])
if redis.call('EXISTS', KEYS[1]) == 1 then
  redis.call('HINCRBY', KEYS[1], 'n', -1)
  redis.call('HINCRBY', KEYS[1], 'amt', -tonumber(ARGV[2]))
end
return 1
