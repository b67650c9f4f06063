-- A seat was seen (its stream, or a request with its token; RULES.md 5.5):
-- write Redis's clock as its last-seen instant in the table's presence hash,
-- which expires with the table.
--
-- KEYS[1] the presence hash {seat: last seen, ms}; KEYS[2] the table hash.
-- ARGV[1] the seat; ARGV[2] the presence window, ms.
-- Returns -1 when the table is gone (nothing written), 1 when the seat was
-- not connected before (absent, or last seen a window ago or more: its
-- streams are told on the table's feed, with the count 0, which no commit
-- announces), else 0.
local FEED = 'PUBLISH'  -- SPUBLISH on a sharded Redis Cluster (service.storage.feeds)
local ttl = redis.call('PTTL', KEYS[2])
if ttl == -2 then return -1 end
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
local before = tonumber(redis.call('HGET', KEYS[1], ARGV[1]))
redis.call('HSET', KEYS[1], ARGV[1], now)
if ttl > 0 then
  -- A millisecond less: the clock may tick between PTTL and PEXPIRE, and
  -- the hash must not outlive the table.
  redis.call('PEXPIRE', KEYS[1], math.max(ttl - 1, 1))
else
  redis.call('PERSIST', KEYS[1])
end
if before == nil or now - before >= tonumber(ARGV[2]) then
  redis.call(FEED, string.gsub(KEYS[2], ':table$', ':feed'), 0)
  return 1
end
return 0
