-- Commit one transition of a table atomically: compare the version, write the
-- state and its step (the step key, and the step's choices made so far, which
-- replace the choices hash), append the public events and trim the log to the
-- last ARGV[7], append to (or reset) the history, append the rounds the new
-- state finished to the list of rounds, refresh the expiry of every key, and,
-- for a request with an Idempotency-Key, record its response in the same step.
--
-- KEYS[1] the table hash {v, n, s, a, k, w, r}; KEYS[2] the event list;
-- KEYS[3] the choices hash of the current step; KEYS[4] the history list;
-- KEYS[5] the list of rounds (the newest finished rounds' results, oldest first;
-- the table hash's r counts every round listed ever);
-- KEYS[6] (optional) the idempotency record, in the table's hash tag;
-- KEYS[7] (optional, with KEYS[6]) the index of its token's records on this table.
-- The LAST three KEYS (whatever precedes them): the next deal's pending proof
-- (a string), the current round's record (a list: its number, its header,
-- then its moves) and the finished rounds' records (a hash by number).
-- The table hash's h and hc are the open record's chain of moves
-- (service.storage.records): written with what is appended to the record;
-- h's version (its 6th word) is set to the new version on every commit, and
-- its last word to 1 once the new state has finished h's round.
-- ARGV[1] expected version ("0": the table must not exist yet)
-- ARGV[2] the new state ("" keeps the state, its step and its choices: a
--         refused move that only records events; the version still moves,
--         as the event count does)
-- ARGV[3] time to live in seconds ("-": every key keeps its own, see below)
-- ARGV[4] the auth record ("" keeps it)
-- ARGV[5] the idempotency record ("D" + JSON; "" none) for KEYS[6]
-- ARGV[6] its time to live in seconds
-- ARGV[7] how many events the list keeps (the newest; n still counts them all)
-- ARGV[8] how many records the index keeps ("0": no index); the oldest go
-- ARGV[9] now, ms since the epoch (the record's score in the index, and w:
--         the clock of the table's last write)
-- ARGV[10] the new state's step key ("": no simultaneous step)
-- ARGV[11] E, how many events follow; ARGV[12] C, how many choice arguments
--          follow them (seat, text pairs); ARGV[13] "R" to empty the history
--          before appending, else ""; ARGV[14] X, how many expected choice
--          arguments follow the choices (-1: no check): the choices hash
--          must hold exactly these seat, text pairs (the choices the move
--          read: none may have been made or replaced since)
-- ARGV[15] how many texts the history keeps (the newest: a round that
--          never ends must not grow it without bound)
-- ARGV[16] the deadline, ms since the epoch ("": none): the instant the
--          state the move read falls due by the clock (a window's end); at
--          or after it (Redis's TIME) nothing is written and the caller
--          reads again, so that no move computed before a window closed is
--          stored after a read has shown it closed
-- ARGV[17] how many rounds the new state has finished (the list numbers them
--          1..this); ARGV[18] T, how many round texts follow the expected
--          choices: the newest T of those rounds, oldest first (those after r
--          are appended); ARGV[19] how many rounds the list keeps (the newest)
-- ARGV[20] the key of the step the new state waits on (service.games.base.Turn:
--          "" none, "-" keep o as it is): o, "<key> <ms>", keeps the key and
--          the clock (ARGV[9]) of the commit that opened it, the start of
--          every seat's deadline in it (RULES.md 5.3); "!<key>": its clock
--          starts again at this commit even in the same step (a person's act
--          that resumes a paused clock)
-- ARGV[21] the away seats' change: "+3" marks seat 3 away (it timed out),
--          "+3 r1t7" also adds "3:r1t7" to t (its default move's step; t
--          keeps the newest DEFAULTS_KEPT), "-3" clears it (it moved itself),
--          "" none (y: "1,3")
-- ARGV[22] the bot seats as JSON (b; "" keeps them, "{}" none)
-- ARGV[23] the clock options as JSON (c; "" keeps them)
-- Fields o, y, b, c, u and t are written only here and in choose.lua; a release
-- that knows none of them leaves them as they are.
-- ARGV[24..] E events, in order, as the codec's text; then C choice
--          arguments; then X expected choice arguments; then T round texts;
--          then the history texts to append, in order; then the twelve
--          arguments below, always the LAST twelve (P = #ARGV - 11):
-- ARGV[P]   the table hash's new d (the next deal's public part; "" keeps it)
-- ARGV[P+1] the next deal's pending proof ("" keeps it)
-- ARGV[P+2] the items to append to the current round's record, "\n"-joined
--           ("" none; nothing is appended without an open record; all or
--           none: once they would not fit in ARGV[P+6] items a last "T" says
--           the rest is not kept)
-- ARGV[P+3] a new round's number and ARGV[P+4] its header ("" none): the
--           record open until then is folded into the hash of records (one
--           text: its header and items, "\n"-joined), which keeps the
--           newest ARGV[P+5]; the new record opens with the header
-- ARGV[P+5] how many records the hash keeps; ARGV[P+6] how many moves a record keeps
-- ARGV[P+7] the chain the items were linked to, h .. "\n" .. hc ("-": no
--           check): any other is a conflict (a choice appended since, by
--           choose.lua)
-- ARGV[P+8] the new h: written with the items appended (ARGV[P+2]), or with
--           the new round's record (ARGV[P+4]); "" keeps it
-- ARGV[P+9] the clock note ("" none): when the worker must next look at the
--           table (ms since the epoch: its first deadline, or a window's
--           close), published on the table's clock channel (its hash key
--           with ":clock" for ":table") for service.worker
-- ARGV[P+10] the table hash's u (the moves the referee made for seats in a
--           row, service.clock.paused): "+" adds one (a bot's or a default
--           move), "0" clears it (a person's move or act), "" keeps it
-- ARGV[P+11] the new hc, written with the items ("-" keeps it, "" deletes it);
--           a new round's record deletes it
-- A commit is announced on the table's feed channel (its hash key with
-- ":feed" for ":table"), with the event count, for service.streams; just
-- before, with PAGES and while a stream follows the table (page.lua's
-- publish_page), on its page channel (":page") with what a stream reads after
-- it: the JSON array [after, table_page(after)] (page.lua, prepended) for
-- the cursor after the events before this commit's, so that no process's
-- streams read the table again after it.
-- Returns {version, event count} on success, {-1, current version} on a
-- conflict (the version, the expected choices or the deadline), {-2, record} when KEYS[6]
-- already holds a response (the same request committed first: nothing is
-- written, the caller replays it), {-3, layout} when the table hash is of a
-- newer layout than LAYOUT (nothing is written).
-- The rules are never here: this script only stores what the engine decided.
-- An index lists a record by the last part of its key (short enough for
-- Redis's compact sorted set); a full key name is an older release's entry.
local FEED = 'PUBLISH'  -- SPUBLISH on a sharded Redis Cluster (service.storage.feeds)
local PAGES = true  -- false on a sharded Redis Cluster (service.storage.feeds)
local DEFAULTS_KEPT = 32  -- store.DEFAULTS_KEPT
local function set_away(key, op)
  if op == '' then return end
  local seat, step = string.match(op, '^.(%d+) ?(%S*)$')
  local seats = {}
  for s in string.gmatch(redis.call('HGET', key, 'y') or '', '[^,]+') do
    if s ~= seat then seats[#seats + 1] = s end
  end
  if string.sub(op, 1, 1) == '+' then seats[#seats + 1] = seat end
  if #seats == 0 then
    redis.call('HDEL', key, 'y')
  else
    redis.call('HSET', key, 'y', table.concat(seats, ','))
  end
  if step ~= '' then
    -- t: the newest default moves' seats and steps (a seat's own move for
    -- one of them is stale, RULES.md 5.3)
    local kept = {}
    for entry in string.gmatch(redis.call('HGET', key, 't') or '', '%S+') do
      kept[#kept + 1] = entry
    end
    kept[#kept + 1] = seat .. ':' .. step
    redis.call('HSET', key, 't', table.concat(kept, ' ', math.max(1, #kept - DEFAULTS_KEPT + 1)))
  end
end
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
if ARGV[5] ~= '' then
  local held = redis.call('GET', KEYS[6])
  if held and string.sub(held, 1, 1) == 'D' then
    return {-2, held}
  end
end
-- The stored-format contract (store.TABLE_LAYOUT): a table hash a newer
-- release wrote in a newer layout is never written to here: {-3, its layout}.
local LAYOUT = 1
local layout = tonumber(redis.call('HGET', KEYS[1], 'f') or '1')
if layout > LAYOUT then
  return {-3, layout}
end
local current = redis.call('HGET', KEYS[1], 'v')
if current == false then current = '0' end
if current ~= ARGV[1] then
  return {-1, tonumber(current)}
end
local version = tonumber(current) + 1
local events = tonumber(ARGV[11])
local choices = tonumber(ARGV[12])
local expected = tonumber(ARGV[14])
local rounds = tonumber(ARGV[18])
local first = 24 + events + choices
if expected >= 0 then
  if redis.call('HLEN', KEYS[3]) * 2 ~= expected then
    return {-1, tonumber(current)}
  end
  for i = first, first + expected - 1, 2 do
    if redis.call('HGET', KEYS[3], ARGV[i]) ~= ARGV[i + 1] then
      return {-1, tonumber(current)}
    end
  end
  first = first + expected
end
if ARGV[16] ~= '' then
  local clock = redis.call('TIME')
  if tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000) >= tonumber(ARGV[16]) then
    return {-1, tonumber(current)}
  end
end
local P = #ARGV - 11
if ARGV[P + 7] ~= '-' and ((redis.call('HGET', KEYS[1], 'h') or '') .. '\n'
    .. (redis.call('HGET', KEYS[1], 'hc') or '')) ~= ARGV[P + 7] then
  return {-1, tonumber(current)}
end
local listed = first
first = first + rounds
redis.call('HSET', KEYS[1], 'v', version, 'w', ARGV[9])
if ARGV[2] ~= '' then
  redis.call('HSET', KEYS[1], 's', ARGV[2], 'k', ARGV[10])
  -- The choices of the step this state is in (none for a new step): a step
  -- that ended takes its pending choices with it.
  redis.call('DEL', KEYS[3])
  if choices > 0 then
    redis.call('HSET', KEYS[3], unpack(ARGV, 24 + events, 23 + events + choices))
  end
  -- The rounds this state finished that the list lacks (a state read from
  -- an older format may bring many; a jump past the texts given restarts
  -- the list, whose numbering must stay contiguous).
  local played = tonumber(ARGV[17])
  local known = tonumber(redis.call('HGET', KEYS[1], 'r') or '0')
  if rounds > 0 and played > known then
    local new = math.min(played - known, rounds)
    if played - known > rounds then
      redis.call('DEL', KEYS[5])
    end
    redis.call('RPUSH', KEYS[5], unpack(ARGV, listed + rounds - new, listed + rounds - 1))
    redis.call('LTRIM', KEYS[5], '-' .. ARGV[19], -1)
    redis.call('HSET', KEYS[1], 'r', played)
  end
end
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[1], 'a', ARGV[4])
end
if ARGV[20] == '' then
  redis.call('HDEL', KEYS[1], 'o')
elseif ARGV[20] ~= '-' then
  local key, again = ARGV[20], false
  if string.sub(key, 1, 1) == '!' then
    key, again = string.sub(key, 2), true
  end
  local opened = redis.call('HGET', KEYS[1], 'o')
  if again or not opened or string.match(opened, '^(%S+)') ~= key then
    redis.call('HSET', KEYS[1], 'o', key .. ' ' .. ARGV[9])
  end
end
set_away(KEYS[1], ARGV[21])
if ARGV[22] == '{}' then
  redis.call('HDEL', KEYS[1], 'b')
elseif ARGV[22] ~= '' then
  redis.call('HSET', KEYS[1], 'b', ARGV[22])
end
if ARGV[23] ~= '' then
  redis.call('HSET', KEYS[1], 'c', ARGV[23])
end
if ARGV[P + 10] == '+' then
  redis.call('HINCRBY', KEYS[1], 'u', 1)
elseif ARGV[P + 10] == '0' then
  redis.call('HDEL', KEYS[1], 'u')
end
local count = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
if events > 0 then
  redis.call('RPUSH', KEYS[2], unpack(ARGV, 24, 23 + events))
  redis.call('LTRIM', KEYS[2], '-' .. ARGV[7], -1)
  count = count + events
  redis.call('HSET', KEYS[1], 'n', count)
end
if ARGV[13] == 'R' then
  redis.call('DEL', KEYS[4])
end
if P - 1 >= first then
  redis.call('RPUSH', KEYS[4], unpack(ARGV, first, P - 1))
  redis.call('LTRIM', KEYS[4], '-' .. ARGV[15], -1)
end
local deal_key, moves_key, records_key = KEYS[#KEYS - 2], KEYS[#KEYS - 1], KEYS[#KEYS]
if ARGV[P] ~= '' then
  redis.call('HSET', KEYS[1], 'd', ARGV[P])
end
if ARGV[P + 1] ~= '' then
  redis.call('SET', deal_key, ARGV[P + 1])
end
if ARGV[P + 2] ~= '' then
  local items = {}
  for item in string.gmatch(ARGV[P + 2], '[^\n]+') do
    items[#items + 1] = item
  end
  local held = redis.call('LLEN', moves_key)
  local cap = tonumber(ARGV[P + 6])
  if held > 0 and held + #items <= cap + 2 then
    redis.call('RPUSH', moves_key, unpack(items))
    if ARGV[P + 8] ~= '' then
      redis.call('HSET', KEYS[1], 'h', ARGV[P + 8])
    end
    if ARGV[P + 11] == '' then
      redis.call('HDEL', KEYS[1], 'hc')
    elseif ARGV[P + 11] ~= '-' then
      redis.call('HSET', KEYS[1], 'hc', ARGV[P + 11])
    end
  elseif held > 0 and redis.call('LINDEX', moves_key, -1) ~= 'T' then
    redis.call('RPUSH', moves_key, 'T')
  end
end
if ARGV[P + 4] ~= '' then
  local items = redis.call('LRANGE', moves_key, 0, -1)
  if #items >= 2 then
    -- One text: the header and the items, "\n"-joined (service.games.record).
    redis.call('HSET', records_key, items[1], table.concat(items, '\n', 2))
    redis.call('HDEL', records_key, tostring(tonumber(items[1]) - tonumber(ARGV[P + 5])))
  end
  redis.call('DEL', moves_key)
  redis.call('RPUSH', moves_key, ARGV[P + 3], ARGV[P + 4])
  if ARGV[P + 8] ~= '' then
    redis.call('HSET', KEYS[1], 'h', ARGV[P + 8])
  end
  redis.call('HDEL', KEYS[1], 'hc')
end
-- The open record's chain knows that this release wrote the table last, and
-- whether its round was over then (service.storage.records).
local chain = redis.call('HGET', KEYS[1], 'h')
if chain then
  local words = {}
  for word in string.gmatch(chain, '%S+') do
    words[#words + 1] = word
  end
  if #words == 7 then
    words[6] = tostring(version)
    if ARGV[2] ~= '' and tonumber(ARGV[17]) >= tonumber(words[1]) then
      words[7] = '1'
    end
    redis.call('HSET', KEYS[1], 'h', table.concat(words, ' '))
  end
end
-- ARGV[3] "-" (a refusal that logs, RULES.md 2.6): every key keeps its
-- expiry, a refused request buys the table no time; a key the write made
-- (no expiry yet) takes the table hash's.
local left = ARGV[3] == '-' and redis.call('PTTL', KEYS[1]) or 0
local function refresh(key)
  -- EXPIRE on a missing key does nothing.
  if ARGV[3] ~= '-' then
    redis.call('EXPIRE', key, ARGV[3])
  elseif left > 0 and redis.call('PTTL', key) == -1 then
    redis.call('PEXPIRE', key, left)
  end
end
for i = 1, 5 do
  refresh(KEYS[i])
end
for i = #KEYS - 2, #KEYS do
  refresh(KEYS[i])
end
if ARGV[5] ~= '' then
  redis.call('SET', KEYS[6], ARGV[5], 'EX', ARGV[6])
  if tonumber(ARGV[8]) > 0 then
    -- The token's records on this table: the newest ARGV[8] are kept, the
    -- oldest deleted (idem_index.lua has the same steps).
    local now = tonumber(ARGV[9])
    redis.call('ZADD', KEYS[7], now, string.match(KEYS[6], '[^:]*$'))
    redis.call('ZREMRANGEBYSCORE', KEYS[7], '-inf', now - tonumber(ARGV[6]) * 1000)
    local over = redis.call('ZCARD', KEYS[7]) - tonumber(ARGV[8])
    if over > 0 then
      local oldest = redis.call('ZPOPMIN', KEYS[7], over)
      for i = 1, #oldest, 2 do
        redis.call('DEL', listed_key(KEYS[7], oldest[i]))
      end
    end
    redis.call('EXPIRE', KEYS[7], ARGV[6])
    register(KEYS[7], now, ARGV[6])
  end
end
-- The table's feed (service.streams): a commit was made, and what it made.
if PAGES then
  publish_page(KEYS[1], KEYS[2], KEYS[3], count - events)
end
redis.call(FEED, string.gsub(KEYS[1], ':table$', ':feed'), count)
if ARGV[P + 9] ~= '' then
  redis.call('PUBLISH', string.gsub(KEYS[1], ':table$', ':clock'), ARGV[P + 9])
end
return {version, count}
