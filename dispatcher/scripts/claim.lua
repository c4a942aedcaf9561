-- Claim due deliveries of one shard for this process: each claimed delivery
-- gets a lease token and its queue score moves to the end of the lease, so no
-- other process takes it while the attempt runs, and it falls due again by
-- itself if this process dies.
-- KEYS[1] hosts index of the shard.
-- ARGV[1] delivery hash key prefix, ARGV[2] host queue key prefix,
--   ARGV[3] log key prefix, ARGV[4] lease (ms), ARGV[5] most deliveries to
--   claim, ARGV[6] per-host limit, ARGV[7] lease token prefix, ARGV[8] hosts
--   to scan, ARGV[9..] host, free slots: hosts this process already has
--   attempts in flight to (a host missing here has the full limit free).
-- Returns a flat list, 11 values per claimed delivery: id, token, host, url,
--   appid, params, automatic attempts made, manual mark, attempt number, paid (ms),
--   the endpoint's record (an endpoint delivery's; '' for any other).
local now = now_ms()
local want = tonumber(ARGV[5])
local free = {}
for i = 9, #ARGV, 2 do
  free[ARGV[i]] = tonumber(ARGV[i + 1])
end
local out = {}
local hosts = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[8]))
for _, host in ipairs(hosts) do
  if want <= 0 then
    break
  end
  local take = free[host] or tonumber(ARGV[6])
  if take > want then
    take = want
  end
  if take > 0 then
    local q = ARGV[2] .. host
    local ids = redis.call('ZRANGEBYSCORE', q, '-inf', now, 'LIMIT', 0, take)
    for _, id in ipairs(ids) do
      if claim_one(out, q, host, id, ARGV[1], ARGV[3], now, tonumber(ARGV[4]), ARGV[7] .. id) then
        want = want - 1
      end
    end
    reindex(KEYS[1], q, host)
  end
end
return out
