-- Reading an order hash's fields where the create-time ones are packed in
-- one field, 'k' (schema.FPacked): each "<byte length>:<value>" in the
-- order of ORDER_PACKED (defined above by schema.OrderLua), trailing empty
-- ones left out. A field held apart wins: orders stored before the packing
-- hold them all apart.

-- order_unpack is the packed value k as a table of name to value; what
-- does not read (never written so) ends the table there.
local function order_unpack(k)
  local out, pos = {}, 1
  for _, name in ipairs(ORDER_PACKED) do
    if pos > #k then
      break
    end
    local c = string.find(k, ':', pos, true)
    local n = c and tonumber(string.sub(k, pos, c - 1))
    if not n then
      break
    end
    out[name] = string.sub(k, c + 1, c + n)
    pos = c + 1 + n
  end
  return out
end

-- order_hmget is HMGET of order hash key's fields, packed ones included:
-- a field missing or empty is false, as HMGET gives a missing one.
local function order_hmget(key, ...)
  local names = {...}
  local v = redis.call('HMGET', key, 'k', ...)
  local packed
  local out = {}
  for i = 1, #names do
    local x = v[i + 1]
    if not x and v[1] then
      packed = packed or order_unpack(v[1])
      x = packed[names[i]]
      if x == '' then
        x = nil
      end
    end
    out[i] = x or false
  end
  return out
end
