-- Save or remove a payout destination with the note of who changed it (for
-- maker-checker), its event and its audit entry in one step.
-- KEYS[1] the merchant's destinations, KEYS[2] who changed them, KEYS[3]
--   the shard's payout events, KEYS[4] the audit stream; all on the
--   merchant's home shard.
-- ARGV[1] time (ms), ARGV[2] destination id, ARGV[3] its JSON, ARGV[4] the
--   JSON it must replace ('' = a new destination), ARGV[5] the changer's
--   key, ARGV[6] the most destinations a merchant keeps; then the audit
--   entry.
-- Returns {1} saved, {0} at the limit, {6} changed meanwhile.
local prev = redis.call('HGET', KEYS[1], ARGV[2])
if ARGV[4] == '' then
  if prev then
    return {6}
  end
  if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[6]) then
    return {0}
  end
elseif prev ~= ARGV[4] then
  return {6}
end
redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[5])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', 1000000, '*', 'type', 'payout_destination.changed', 'at', ARGV[1],
  'id', ARGV[2], 'destination', ARGV[3])
gw_audit(KEYS[4])
return {1}
