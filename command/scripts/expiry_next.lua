-- Find the shard's first expiry bucket that is due and not yet emptied,
-- moving the shard's cursor over the empty seconds before it.
-- KEYS[1] the shard's expiry cursor (the last second found empty).
-- ARGV[1] the shard's bucket key prefix, ARGV[2] the last due second,
--   ARGV[3] where to start when there is no cursor yet, ARGV[4] at most
--   how many seconds to look at, ARGV[5] at most how many ids to return.
-- Every bucket key shares the cursor's hash tag (the shard's).
-- Returns {second, ids...} of the first due bucket, or {0} when every due
-- second up to the last looked at is empty.
local cur = tonumber(redis.call('GET', KEYS[1]) or ARGV[3])
local last = math.min(tonumber(ARGV[2]), cur + tonumber(ARGV[4]))
for sec = cur + 1, last do
  local key = ARGV[1] .. sec
  if redis.call('EXISTS', key) == 1 then
    if sec - 1 > cur then
      redis.call('SET', KEYS[1], sec - 1)
    end
    local out = redis.call('LRANGE', key, 0, tonumber(ARGV[5]) - 1)
    table.insert(out, 1, sec)
    return out
  end
end
if last > cur then
  redis.call('SET', KEYS[1], last)
end
return {0}
