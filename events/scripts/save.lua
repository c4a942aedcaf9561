-- Save, replace or delete one webhook endpoint with its audit entry in one
-- step.
-- KEYS[1] the merchant's endpoints, KEYS[2] the audit stream (home shard).
-- ARGV[1] endpoint id, ARGV[2] its JSON ('' deletes it), ARGV[3] the JSON
--   it must replace ('' = a new endpoint), ARGV[4] the most a merchant
--   keeps; then the audit entry.
-- Returns {1} saved, {0} at the limit, {6} changed meanwhile (or gone).
local prev = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[3] == '' then
  if prev then
    return {6}
  end
  if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[4]) then
    return {0}
  end
elseif prev ~= ARGV[3] then
  return {6}
end
if ARGV[2] == '' then
  redis.call('HDEL', KEYS[1], ARGV[1])
else
  redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
end
gw_audit(KEYS[2])
return {1}
