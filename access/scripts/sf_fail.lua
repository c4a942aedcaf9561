-- Counts a failed second factor after a right password. The limit-th
-- failure in a row locks the second factor (TOTP codes are refused, even
-- right ones, until a recovery code is used or someone unlocks it), notes
-- the account among its merchant's (or the operators') locked ones and
-- appends the lock's audit entry, in one step. A success resets the count
-- (login.lua).
-- KEYS: user, locked accounts set, audit stream
-- ARGV: id, limit, now ms; then the audit entry
if redis.call('EXISTS', KEYS[1]) == 0 then
  return 0
end
local n = redis.call('HINCRBY', KEYS[1], 'sfFails', 1)
local locked = redis.call('HGET', KEYS[1], 'sfLocked')
if n < tonumber(ARGV[2]) or (locked and locked ~= '' and locked ~= '0') then
  return 0
end
redis.call('HSET', KEYS[1], 'sfLocked', ARGV[3])
redis.call('SADD', KEYS[2], ARGV[1])
gw_audit(KEYS[3])
return 1
