-- Completes a login whose password was checked: spends the TOTP step or
-- the recovery code (each once), ends the session the browser came with
-- (fixation), opens a new session and audits the login, in one step. A TOTP
-- code of a locked second factor is refused (-3); a recovery code clears
-- the lock; any success resets the count of failed second factors.
-- KEYS: user, recovery codes, new session, user's sessions, old session (or
--       the new one again when there is none), audit stream, locked accounts set
-- ARGV: id, password version checked, second factor ("none", "totp",
--       "recovery"), its step or code hash, now ms, idle ms, csrf token,
--       session key prefix, user sessions key prefix, new session hash; then the audit entry
local u = redis.call('HMGET', KEYS[1], 'pwVer', 'disabled', 'totpStep', 'sfLocked')
if u[1] ~= ARGV[2] or u[2] ~= '0' then
  return 0
end
if ARGV[3] == 'totp' then
  if u[4] and u[4] ~= '' and u[4] ~= '0' then
    return -3
  end
  if tonumber(ARGV[4]) <= tonumber(u[3] or '0') then
    return -1
  end
  redis.call('HSET', KEYS[1], 'totpStep', ARGV[4])
elseif ARGV[3] == 'recovery' then
  if redis.call('SREM', KEYS[2], ARGV[4]) == 0 then
    return -2
  end
  redis.call('HSET', KEYS[1], 'sfLocked', '')
  redis.call('SREM', KEYS[7], ARGV[1])
end
redis.call('HSET', KEYS[1], 'sfFails', '0')
if KEYS[5] ~= KEYS[3] then
  local olduid = redis.call('HGET', KEYS[5], 'uid')
  if olduid then
    redis.call('SREM', ARGV[9] .. olduid, string.sub(KEYS[5], string.len(ARGV[8]) + 1))
    redis.call('DEL', KEYS[5])
  end
end
redis.call('HSET', KEYS[3], 'uid', ARGV[1], 'created', ARGV[5], 'seen', ARGV[5], 'pwVer', ARGV[2], 'csrf', ARGV[7])
redis.call('PEXPIRE', KEYS[3], ARGV[6])
redis.call('SADD', KEYS[4], ARGV[10])
gw_audit(KEYS[6])
return 1
