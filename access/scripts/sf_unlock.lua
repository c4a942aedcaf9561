-- Unlocks a locked second factor (an owner's or an admin's doing): TOTP
-- codes work again, the count starts over.
-- KEYS: user, locked accounts set, audit stream
-- ARGV: id; then the audit entry
local locked = redis.call('HGET', KEYS[1], 'sfLocked')
if not locked or locked == '' or locked == '0' then
  return 0
end
redis.call('HSET', KEYS[1], 'sfLocked', '', 'sfFails', '0')
redis.call('SREM', KEYS[2], ARGV[1])
gw_audit(KEYS[3])
return 1
