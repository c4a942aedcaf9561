-- Schedule the first delivery of an order's paid-order webhook, once: the
-- delivery is keyed by the order, so a redelivered stream entry changes nothing.
-- KEYS[1] delivery hash, KEYS[2] host queue, KEYS[3] hosts index,
--   KEYS[4] order hash (for its time to live), KEYS[5] the merchant's index of
--   deliveries not delivered (schema.WebhookMerchantKey), KEYS[6] the
--   merchant's index of every delivery (schema.WebhookMerchantAllKey). All on
--   the order's shard.
-- ARGV[1] order id, ARGV[2] host, ARGV[3] notify_url, ARGV[4] appid,
--   ARGV[5] callback parameters (JSON), ARGV[6] paid time (ms),
--   ARGV[7] fallback ttl (ms), ARGV[8] least ttl (ms), ARGV[9] the most
--   deliveries the merchant's history keeps.
-- Returns 1 when scheduled, 0 when the order already has a delivery.
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
local now = now_ms()
redis.call('HSET', KEYS[1], 'st', 'pending', 'n', 0, 'due', now, 'url', ARGV[3], 'host', ARGV[2],
  'appid', ARGV[4], 'p', ARGV[5], 'paid', ARGV[6])
redis.call('ZADD', KEYS[2], now, ARGV[1])
reindex(KEYS[3], KEYS[2], ARGV[2])
keep(KEYS[4], ARGV[7], ARGV[8], KEYS[1])
-- The merchant's index: scored by the event's time, entries older than the
-- fallback ttl (what the dead-letter set keeps too) pruned, the set itself
-- kept that long after the merchant's last delivery.
local at = tonumber(ARGV[6])
if not at or at <= 0 then
  at = now
end
redis.call('ZADD', KEYS[5], at, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now - tonumber(ARGV[7]))
redis.call('PEXPIRE', KEYS[5], ARGV[7])
-- The history keeps delivered ones too, pruned and kept the same way, and
-- never more than the merchant's newest ARGV[9] (older deliveries stay on
-- their orders' pages).
redis.call('ZADD', KEYS[6], at, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[6], '-inf', now - tonumber(ARGV[7]))
redis.call('ZREMRANGEBYRANK', KEYS[6], 0, -tonumber(ARGV[9]) - 1)
redis.call('PEXPIRE', KEYS[6], ARGV[7])
return 1
