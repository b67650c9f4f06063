-- Read a page of a table's list of rounds together with its round count and
-- its state, in one atomic step (a commit between the reads would shift the
-- positions).
--
-- KEYS[1] the table hash {v, n, s, a, k, r}; KEYS[2] the list of rounds (the
-- newest finished rounds' results; commit.lua trims it).
-- ARGV[1] after: the page holds the rounds numbered after it
-- ARGV[2] limit: at most this many (one more is read, to tell whether more follow)
-- Returns false when the table does not exist; else {r, oldest, state,
-- rounds...}: r the number of the last round listed, oldest that of the
-- first one kept (r - LLEN + 1; the list holds rounds oldest..r, oldest
-- first), the state (which renders them), then up to limit + 1 rounds after
-- `after`, none when after < oldest - 1 (gone) or after >= r.
if redis.call('EXISTS', KEYS[1]) == 0 then
  return false
end
local r = tonumber(redis.call('HGET', KEYS[1], 'r') or '0')
local oldest = r - redis.call('LLEN', KEYS[2]) + 1
local state = redis.call('HGET', KEYS[1], 's')
local after = tonumber(ARGV[1])
if after < oldest - 1 or after >= r then
  return {r, oldest, state}
end
local start = after - oldest + 1
local page = redis.call('LRANGE', KEYS[2], start, start + tonumber(ARGV[2]))
table.insert(page, 1, state)
table.insert(page, 1, oldest)
table.insert(page, 1, r)
return page
