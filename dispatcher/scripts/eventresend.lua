-- Resend one endpoint delivery of merchant ARGV[2]: one more attempt of a
-- delivered or dead-lettered one (behind its object's FIFO), or the retry
-- of a failed one brought forward to now.
-- KEYS[1] delivery hash, KEYS[2] hosts index.
-- ARGV[1] delivery id, ARGV[2] the merchant it must be of (another's is
--   answered as none, nothing written), ARGV[3] delivery hash prefix,
--   ARGV[4] host queue prefix, ARGV[5] FIFO prefix, ARGV[6] heads prefix.
-- Returns requeue's answer.
local f = redis.call('HMGET', KEYS[1], 'appid', 'ep')
if f[1] ~= ARGV[2] or not f[2] then
  return 'none'
end
return requeue(ARGV[1], ARGV[3], ARGV[4], KEYS[2], ARGV[5], ARGV[6], f[2], now_ms())
