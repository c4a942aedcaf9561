-- Record where the automatic review of an order's hash stands (checking,
-- not found, confirming, retrying; the next check and the window's end).
-- Only while the order is live, under automatic review
-- and holds that hash: a decided review's progress is never written back.
-- No version and no event: progress is not a change of the order.
-- KEYS[1] order hash.
-- ARGV[1] next action under review, ARGV[2] hash, ARGV[3] step,
--   ARGV[4] next check (ms, 0 none), ARGV[5] window end (ms, 0 none),
--   ARGV[6] confirmations seen, ARGV[7] confirmations required.
-- Returns -1 no such order, 0 not under review for that hash (nothing
-- written), 1 done.
local f = redis.call('HMGET', KEYS[1], 'st', 'next', 'txh', 'rv')
if not f[1] then
  return -1
end
if f[1] ~= '1' or f[2] ~= ARGV[1] or f[3] ~= ARGV[2] or f[4] == 'waiting' then
  return 0
end
redis.call('HDEL', KEYS[1], 'rvs', 'rvn', 'rvu', 'rvc', 'rvq')
local set = {'rvs', ARGV[3]}
for i, k in ipairs({'rvn', 'rvu', 'rvc', 'rvq'}) do
  if ARGV[3 + i] ~= '0' then
    table.insert(set, k)
    table.insert(set, ARGV[3 + i])
  end
end
redis.call('HSET', KEYS[1], unpack(set))
return 1
