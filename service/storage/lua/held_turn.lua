-- When a table held for its creator's spent budget of referee moves is
-- looked at again (RULES.md 5.4; service.storage.quota): the creator's
-- held tables take turns at the budget's pace, one every ARGV[2] ms from
-- ARGV[1] (ms, Redis's clock: the window's end) on.
-- KEYS[1]: the creator's next free turn. Returns the turn given (ms).
local earliest = tonumber(ARGV[1])
local spacing = tonumber(ARGV[2])
local free = tonumber(redis.call('GET', KEYS[1]) or '0')
local at = math.max(free, earliest)
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
-- Kept until that turn has come and gone: then the next hold starts afresh.
redis.call('SET', KEYS[1], at + spacing, 'PX', math.max(1, at + spacing - now_ms) + 1000)
return at
