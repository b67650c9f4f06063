-- Commit one transition of a table atomically: compare the version, write the
-- state, append the public events and trim the log to the last ARGV[7], refresh
-- the expiry of every key, and, for a request with an Idempotency-Key, record
-- its response in the same step.
--
-- KEYS[1] the table hash {v, n, s, a}; KEYS[2] the event list;
-- KEYS[3] (optional) the idempotency record, in the table's hash tag;
-- KEYS[4] (optional, with KEYS[3]) the index of its token's records on this table.
-- ARGV[1] expected version ("0": the table must not exist yet)
-- ARGV[2] the new state ("" keeps the state: a refused move that only
--         records events; the version still moves, as the event count does)
-- ARGV[3] time to live in seconds
-- ARGV[4] the auth record ("" keeps it)
-- ARGV[5] the idempotency record ("D" + JSON; "" none) for KEYS[3]
-- ARGV[6] its time to live in seconds
-- ARGV[7] how many events the list keeps (the newest; n still counts them all)
-- ARGV[8] how many records the index keeps ("0": no index); the oldest go
-- ARGV[9] now, ms since the epoch (the record's score in the index)
-- ARGV[10..] events, in order, as the codec's text
-- Returns {version, event count} on success, {-1, current version} on a
-- conflict, {-2, record} when KEYS[3] already holds a response (the same
-- request committed first: nothing is written, the caller replays it).
-- The rules are never here: this script only stores what the engine decided.
if ARGV[5] ~= '' then
  local held = redis.call('GET', KEYS[3])
  if held and string.sub(held, 1, 1) == 'D' then
    return {-2, held}
  end
end
local current = redis.call('HGET', KEYS[1], 'v')
if current == false then current = '0' end
if current ~= ARGV[1] then
  return {-1, tonumber(current)}
end
local version = tonumber(current) + 1
redis.call('HSET', KEYS[1], 'v', version)
if ARGV[2] ~= '' then
  redis.call('HSET', KEYS[1], 's', ARGV[2])
end
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[1], 'a', ARGV[4])
end
local count = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
if #ARGV > 9 then
  redis.call('RPUSH', KEYS[2], unpack(ARGV, 10))
  redis.call('LTRIM', KEYS[2], '-' .. ARGV[7], -1)
  count = count + #ARGV - 9
  redis.call('HSET', KEYS[1], 'n', count)
end
redis.call('EXPIRE', KEYS[1], ARGV[3])
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('EXPIRE', KEYS[2], ARGV[3])
end
if ARGV[5] ~= '' then
  redis.call('SET', KEYS[3], ARGV[5], 'EX', ARGV[6])
  if tonumber(ARGV[8]) > 0 then
    -- The token's records on this table: the newest ARGV[8] are kept, the
    -- oldest deleted (idem_index.lua has the same steps).
    local now = tonumber(ARGV[9])
    redis.call('ZADD', KEYS[4], now, KEYS[3])
    redis.call('ZREMRANGEBYSCORE', KEYS[4], '-inf', now - tonumber(ARGV[6]) * 1000)
    local over = redis.call('ZCARD', KEYS[4]) - tonumber(ARGV[8])
    if over > 0 then
      local oldest = redis.call('ZPOPMIN', KEYS[4], over)
      for i = 1, #oldest, 2 do
        redis.call('DEL', oldest[i])
      end
    end
    redis.call('EXPIRE', KEYS[4], ARGV[6])
  end
end
return {version, count}
