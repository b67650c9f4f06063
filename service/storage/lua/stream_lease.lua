-- Take a lease for one open stream in each of KEYS (sorted sets: lease id ->
-- the Redis clock, ms, until which it holds), if none of them holds its cap
-- of live leases already (service.storage.stream_leases).
--
-- KEYS the sets (a caller's, a table's, a seat's: all in one slot on a
-- Redis Cluster; the caller's is taken by a call of its own there).
-- ARGV[1] the lease's id; ARGV[2] how long it holds unless renewed, ms;
-- ARGV[3..] the cap of each key, in the order of KEYS.
-- Returns 0 when the lease was taken in every set, else the place (1-based)
-- of the first set at its cap: then nothing at all is written (a refused
-- stream leaves Redis as it was).
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
for i = 1, #KEYS do
  if redis.call('ZCOUNT', KEYS[i], '(' .. now, '+inf') >= tonumber(ARGV[i + 2]) then
    return i
  end
end
local holds = tonumber(ARGV[2])
for i = 1, #KEYS do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)  -- leases of streams gone unseen
  redis.call('ZADD', KEYS[i], now + holds, ARGV[1])
  if redis.call('PTTL', KEYS[i]) < holds then
    redis.call('PEXPIRE', KEYS[i], holds)
  end
end
return 0
