-- Helpers every dispatcher script starts with (prepended in store.go).

-- now_ms is Redis's own clock, so that leases and due times mean the same to
-- every dispatcher process whatever their clocks say.
local function now_ms()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- reindex keeps a host's score in the shard's hosts index equal to the
-- earliest due time in its queue, and drops the host when the queue is empty.
local function reindex(hosts, queue, host)
  local head = redis.call('ZRANGE', queue, 0, 0, 'WITHSCORES')
  if #head == 0 then
    redis.call('ZREM', hosts, host)
  else
    redis.call('ZADD', hosts, head[2], host)
  end
end

-- keep gives the delivery state and log the order hash's remaining time to
-- live (fallback when it has none), but never less than floor: a pending
-- delivery outlives its next due time.
local function keep(order, fallback, floor, ...)
  local ttl = redis.call('PTTL', order)
  if ttl <= 0 then
    ttl = tonumber(fallback)
  end
  if ttl < tonumber(floor) then
    ttl = tonumber(floor)
  end
  for _, k in ipairs({...}) do
    redis.call('PEXPIRE', k, ttl)
  end
end

-- claim_one leases delivery id of host queue q to token until now + lease,
-- appending its 11 reply fields to out (see claim.lua), and returns true; a
-- delivery that is no longer pending (expired with its order, or finished)
-- leaves the queue instead and false is returned.
local function claim_one(out, q, host, id, wh_prefix, log_prefix, now, lease, token)
  local wh = wh_prefix .. id
  local f = redis.call('HMGET', wh, 'st', 'url', 'appid', 'p', 'n', 'man', 'paid', 'na')
  if f[1] ~= 'pending' then
    redis.call('ZREM', q, id)
    return false
  end
  local till = now + lease
  redis.call('ZADD', q, till, id)
  redis.call('HSET', wh, 'lease', token, 'due', till)
  -- An endpoint delivery counts its attempt records (na); a paid one's
  -- are its log.
  local seq = tonumber(f[8] or '')
  if seq then
    seq = seq + 1
  else
    seq = redis.call('LLEN', log_prefix .. id) + 1
  end
  -- An endpoint delivery (<event id>.<endpoint id>) brings its endpoint as
  -- stored this moment (its secrets, whether it is enabled; '' when it was
  -- removed): the attempt needs no read of its own. The merchant's
  -- endpoints hash is on the delivery's shard, its home shard, beside the
  -- delivery hash: gw:{tag}:wh:ep:<appid> next to gw:{tag}:wh:o:<id>.
  local ep = ''
  if string.sub(id, 1, 4) == 'evt_' then
    local epid = string.match(id, '%.([^.]*)$') or ''
    ep = redis.call('HGET', string.sub(wh_prefix, 1, -3) .. 'ep:' .. (f[3] or ''), epid) or ''
  end
  for _, v in ipairs({id, token, host, f[2] or '', f[3] or '', f[4] or '{}', f[5] or '0', f[6] or '', seq, f[7] or '0', ep}) do
    out[#out + 1] = v
  end
  return true
end
