-- Schedule one event's delivery to one endpoint, once: the delivery is
-- keyed by <event id>.<endpoint id>, so scheduling it again (a stream entry
-- read twice, a fan-out retried after a crash) changes nothing.
-- KEYS[1] delivery hash, KEYS[2] host queue, KEYS[3] hosts index, KEYS[4]
--   the FIFO of the endpoint's object, KEYS[5] the endpoint's heads,
--   KEYS[6] the endpoint's history index. All on the merchant's home shard.
-- ARGV[1] delivery id, ARGV[2] host, ARGV[3] url, ARGV[4] appid, ARGV[5]
--   the body (JSON, sent byte-identical on every attempt), ARGV[6] created
--   (ms; 0: now by Redis's clock, what a replay since T is measured by),
--   ARGV[7] endpoint id, ARGV[8] object, ARGV[9] type, ARGV[10] how long
--   the delivery and history are kept (ms), ARGV[11] the most deliveries
--   the endpoint's history keeps, ARGV[12] delivery hash key prefix,
--   ARGV[13] log key prefix, ARGV[14] host queue key prefix.
-- Returns 1 when scheduled, 0 when it already was.
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
local now = now_ms()
local at = tonumber(ARGV[6])
if not at or at <= 0 then
  at = now
end
-- na counts the attempt records from the start, so that no claim has to
-- count a log (LLEN) for the attempt's number.
redis.call('HSET', KEYS[1], 'st', 'pending', 'n', 0, 'na', 0, 'url', ARGV[3], 'host', ARGV[2], 'appid', ARGV[4],
  'p', ARGV[5], 'paid', at, 'ep', ARGV[7], 'obj', ARGV[8], 'type', ARGV[9])
-- The delivery and its attempts are kept for the retention from creation,
-- as the history lists it; its attempts do not refresh that.
redis.call('PEXPIRE', KEYS[1], ARGV[10])
-- Only the head of the object's deliveries waits in the host queue.
if not enqueue(KEYS[5], KEYS[4], ARGV[8], ARGV[1], KEYS[1], ARGV[2], ARGV[12], ARGV[14], KEYS[3], now) then
  redis.call('PEXPIRE', KEYS[4], ARGV[10])
end
redis.call('PEXPIRE', KEYS[5], ARGV[10])
redis.call('ZADD', KEYS[6], at, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now - tonumber(ARGV[10]))
-- Beyond the newest ARGV[11], the oldest leave the history, and the
-- deliveries that ended leave Redis with them (their bodies are most of a
-- busy endpoint's memory); one still pending stays until it ends.
local over = redis.call('ZCARD', KEYS[6]) - tonumber(ARGV[11])
if over > 0 then
  for _, old in ipairs(redis.call('ZRANGE', KEYS[6], 0, over - 1)) do
    if redis.call('HGET', ARGV[12] .. old, 'st') ~= 'pending' then
      redis.call('DEL', ARGV[12] .. old, ARGV[13] .. old)
    end
  end
  redis.call('ZREMRANGEBYRANK', KEYS[6], 0, over - 1)
end
redis.call('PEXPIRE', KEYS[6], ARGV[10])
return 1
