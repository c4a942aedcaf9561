-- GCRA rate limit: one key per (class, subject) holding the theoretical
-- arrival time in microseconds of the server clock, so that every gateway
-- node shares one limit without trusting its own clock. A caller may lease
-- several requests' worth at once and spend them locally.
-- KEYS[1] limit key; ARGV[1] emission interval (us), ARGV[2] burst tolerance
--   (us), ARGV[3] how many requests the caller would like to lease.
-- Returns {granted, wait}: granted >= 1 when allowed (at most ARGV[3]),
--   else 0 and the microseconds to wait.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval, tolerance, want = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then
  tat = now
end
local ahead = tat - now
if ahead > tolerance then
  return {0, ahead - tolerance}
end
local granted = math.min(want, math.floor((tolerance - ahead) / interval) + 1)
local new = tat + granted * interval
redis.call('SET', KEYS[1], string.format('%.0f', new), 'PX', math.ceil((new - now) / 1000) + 1)
return {granted, 0}
