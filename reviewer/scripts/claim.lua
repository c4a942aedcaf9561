-- Claim the due reviews of one shard: each claimed order's score moves to
-- the end of the lease, so no other reviewer sees it while this one works,
-- and it falls due again by itself if this one dies. Redis's own clock, so
-- that leases mean the same to every process.
-- KEYS[1] the shard's review queue.
-- ARGV[1] lease (ms), ARGV[2] most reviews to claim.
-- Returns the lease's end (ms), then the claimed order ids.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local till = now + tonumber(ARGV[1])
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[2]))
for _, id in ipairs(ids) do
  redis.call('ZADD', KEYS[1], 'XX', till, id)
end
table.insert(ids, 1, till)
return ids
