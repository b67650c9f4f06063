-- Read a page of a table's event log together with its event count, in one
-- atomic step (a commit between the two reads would shift the positions).
--
-- KEYS[1] the table hash {v, n, s, a}; KEYS[2] the event list (the newest
-- events; commit.lua trims it).
-- ARGV[1] after: the page holds the events with seq > after
-- ARGV[2] limit: at most this many (one more is read, to tell whether more follow)
-- Returns false when the table does not exist; else {n, oldest, events...}:
-- n the seq of the last event ever, oldest the seq of the first one kept
-- (n - LLEN + 1; the list holds seq oldest..n, oldest first), then up to
-- limit + 1 events after `after`, none when after < oldest - 1 (gone) or
-- after >= n.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return false
end
local n = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
local oldest = n - redis.call('LLEN', KEYS[2]) + 1
local after = tonumber(ARGV[1])
if after < oldest - 1 or after >= n then
  return {n, oldest}
end
local start = after - oldest + 1
local page = redis.call('LRANGE', KEYS[2], start, start + tonumber(ARGV[2]))
table.insert(page, 1, oldest)
table.insert(page, 1, n)
return page
