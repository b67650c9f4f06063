-- Record the response of a request that carried an Idempotency-Key, unless a
-- response is already recorded (then that one stands and is returned).
--
-- KEYS[1] the record key; KEYS[2] (optional) the index of its token's records
-- on the table; KEYS[3] (with KEYS[2]) the table's hash.
-- ARGV[1] the record ("D" + JSON); ARGV[2] its life in s; ARGV[3] how many
-- records the index keeps (the newest; the oldest are deleted).
-- Returns false when written (or when the table is gone: nothing is kept for
-- a deleted table), else the record already there.
-- An index lists a record by the last part of its key (short enough for
-- Redis's compact sorted set); a full key name is an older release's entry.
local function listed_key(index, member)
  if string.find(member, ':', 1, true) then return member end
  return (string.gsub(index, 'idem%-index:[^:]*$', 'idem:')) .. member
end
-- An anonymous caller's index (its joins' records: scope "anon-…",
-- service.edge.idempotency) is listed, by its whole name, in the table's
-- index of such indexes ("idem-index:-"), so that deleting the table finds it.
local function register(index, now, keep)
  if string.find(index, 'idem%-index:anon%-[^:]*$') then
    local scopes = string.gsub(index, 'idem%-index:[^:]*$', 'idem-index:-')
    redis.call('ZADD', scopes, now, index)
    redis.call('ZREMRANGEBYSCORE', scopes, '-inf', now - tonumber(keep) * 1000)
    redis.call('EXPIRE', scopes, keep)
  end
end
local held = redis.call('GET', KEYS[1])
if held and string.sub(held, 1, 1) == 'D' then
  return held
end
if KEYS[2] == nil then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
  return false
end
if redis.call('EXISTS', KEYS[3]) == 0 then
  redis.call('DEL', KEYS[1])
  return false
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
redis.call('ZADD', KEYS[2], now, string.match(KEYS[1], '[^:]*$'))
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[2]) * 1000)
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[3])
if over > 0 then
  local oldest = redis.call('ZPOPMIN', KEYS[2], over)
  for i = 1, #oldest, 2 do
    redis.call('DEL', listed_key(KEYS[2], oldest[i]))
  end
end
redis.call('EXPIRE', KEYS[2], ARGV[2])
register(KEYS[2], now, ARGV[2])
return false
