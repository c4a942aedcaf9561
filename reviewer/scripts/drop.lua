-- Drop a claimed review whose order is no longer under review (gone,
-- expired, moved on), but only while the claim is still ours: a score that
-- changed means the order was queued again (a new hash) or taken over, and
-- the entry is left alone.
-- KEYS[1] the shard's review queue. ARGV[1] order id, ARGV[2] the claim's
-- lease end (ms).
local s = redis.call('ZSCORE', KEYS[1], ARGV[1])
if s and tonumber(s) == tonumber(ARGV[2]) then
  return redis.call('ZREM', KEYS[1], ARGV[1])
end
return 0
