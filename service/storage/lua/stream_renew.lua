-- Renew the leases of the open streams a process holds in one set
-- (service.storage.stream_leases): each holds ARGV[1] ms more from now
-- (Redis's clock), and the set lives at least as long. A lease that lapsed
-- meanwhile (Redis was away longer than a lease) is taken again: its stream
-- is still open.
--
-- KEYS[1] the set; ARGV[1] how long a lease holds, ms; ARGV[2..] lease ids.
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local holds = tonumber(ARGV[1])
for i = 2, #ARGV do
  redis.call('ZADD', KEYS[1], now + holds, ARGV[i])
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('PTTL', KEYS[1]) < holds then
  redis.call('PEXPIRE', KEYS[1], holds)
end
return #ARGV - 1
