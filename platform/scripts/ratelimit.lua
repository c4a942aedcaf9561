-- GCRA rate limit: one key per (class, subject) holding the theoretical
-- arrival time in microseconds of the server clock, so that every gateway
-- node shares one limit without trusting its own clock.
-- KEYS[1] limit key; ARGV[1] emission interval (us), ARGV[2] burst tolerance (us).
-- Returns 0 when allowed, else the microseconds to wait.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval, tolerance = tonumber(ARGV[1]), tonumber(ARGV[2])
local tat = tonumber(redis.call('GET', KEYS[1]) or now)
if tat < now then
  tat = now
end
if tat - now > tolerance then
  return tat - now - tolerance
end
local new = tat + interval
redis.call('SET', KEYS[1], string.format('%.0f', new), 'PX', math.ceil((new - now) / 1000) + 1)
return 0
