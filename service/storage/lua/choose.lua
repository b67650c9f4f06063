-- Commit one seat's choice in a table's simultaneous step, without taking the
-- table's version: choices of different seats commute, so they never race
-- for one version; only the step's resolution (a commit.lua call) does.
-- Checks that the step is still the table's current one, writes the choice
-- (a replacement only while the step is not complete), appends the public
-- events of a first choice, refreshes the expiry of every key, and records
-- the answer of a request with an Idempotency-Key in the same step.
--
-- KEYS[1] the table hash {v, n, s, a, k, w}; KEYS[2] the event list;
-- KEYS[3] the choices hash of the current step (field: seat);
-- KEYS[4] the history list, KEYS[5] the list of rounds (their expiry only);
-- KEYS[6] (optional) the idempotency record; KEYS[7] (optional) its index.
-- ARGV[1] the step key the choice belongs to
-- ARGV[2] the seat; ARGV[3] the choice as text
-- ARGV[4] how many choosers the step has
-- ARGV[5] time to live in seconds
-- ARGV[6] the idempotency record ("" none); ARGV[7] its time to live
-- ARGV[8] how many events the list keeps
-- ARGV[9] how many records the index keeps ("0": no index)
-- ARGV[10] now, ms since the epoch (the record's score in the index, and w,
--          the clock of the table's last write, when the choice is written)
-- ARGV[11] "F" for a choice the referee makes for a seat (its bot's, its
--          default move): written only if the seat has not chosen (a seat's
--          own choice that came first wins: -1, read again); "O" for an
--          ordered step's choice, else "": the choice is kept as
--          ARGV[3] .. "#" .. its place in the step (1 for the first), is
--          never replaced (another text of the same seat answers -1), the
--          record is not written (the caller answers and records the move as
--          it stands after the choice), and statuses 1 and 0 also return hc
--          and the step's choices as seat, text pairs (after status, count,
--          written)
-- ARGV[12] the deadline, ms since the epoch ("": none): at or after it
--          (Redis's TIME) the choice is not written (-1: read again), as in
--          commit.lua
-- ARGV[13] the away seats' change, as in commit.lua's ARGV[21] ("+3",
--          "+3 r1x2", "-3", ""), made when the choice is written
-- ARGV[14..] the events of a first choice, in order, as the codec's text;
--          then the nine arguments below, always the LAST nine (P = #ARGV - 8):
-- ARGV[P]   the move to append to the current round's record when the choice
--           is written (not for status 0; "" none; as commit.lua's ARGV[P+2])
-- ARGV[P+1] how many moves a record keeps
-- ARGV[P+2] the chain h (commit.lua's) the move was linked to ("-": no
--           check): any other h answers -1, read again. A choice's move
--           does not advance h: choices of one step commute, so they never
--           race for it (service.games.proof)
-- ARGV[P+3] the clock note ("" none): published on the table's clock
--           channel (its hash key with ":clock" for ":table") when this choice
--           completes the step (status 2), so that the worker looks at the
--           table then even if the caller dies before it commits the
--           resolution (service.worker)
-- ARGV[P+4] the table hash's u, as in commit.lua's ARGV[P+10] ("+", "0",
--           ""), changed when the choice is written
-- ARGV[P+5] the move's token for hc ("<seat>:<h8>:<link>", service.storage.records),
--           appended to hc when the move is appended to the record
-- A choice that completes the step is recorded as commuting too; the
-- commit of the step's resolution covers it in the chain of moves
-- (service.storage.records: a "resolve" entry).
-- ARGV[P+6] how many of the last events are also written with a
--           replacement (the seat-back of an away seat that chose again:
--           a replacement is no first choice, whose events it has not)
-- ARGV[P+7] the key of the step whose clock starts again at this choice
--           ("" none): o becomes "<key> <ARGV[10]>" when the choice is
--           written (a person's act that resumes a paused clock, RULES.md
--           5.3), and ARGV[P+8], the clock note of the step's new deadlines,
--           is published on the table's clock channel
-- KEYS: the LAST three are commit.lua's last three (the deal proof, the
-- current round's record, the records); only the record is written here.
-- A written choice is announced on the table's feed channel (its hash key
-- with ":feed" for ":table"), with the event count, for service.streams;
-- just before, with PAGES and while a stream follows the table, on its
-- page channel as commit.lua does (the
-- page a stream reads after it: table_page, page.lua, prepended).
-- Returns {status, event count, events written by this call, ...}:
--   1  written (a first choice, or a replacement: no event but ARGV[P+6]'s)
--   0  the seat had chosen the same already (the step not complete):
--      nothing but the record written
--   2  written, and it completed the step: the table hash's hc, then the
--      step's choices follow as seat, text pairs (the record is not written: the caller commits the
--      resolution, and the record with it)
--   -1 not written: the step is no longer the current one, or it is complete
--      (this would replace a choice, or repeat one), or the deadline has
--      passed (the caller reads the table again)
--   -2 not written: KEYS[6] already holds a response, which follows
--   -3 not written: the table hash is of a newer layout than LAYOUT (it follows)
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
if ARGV[6] ~= '' then
  local held = redis.call('GET', KEYS[6])
  if held and string.sub(held, 1, 1) == 'D' then
    return {-2, held}
  end
end
-- The stored-format contract, as in commit.lua (store.TABLE_LAYOUT).
local LAYOUT = 1
local layout = tonumber(redis.call('HGET', KEYS[1], 'f') or '1')
if layout > LAYOUT then
  return {-3, layout, 0}
end
local count = tonumber(redis.call('HGET', KEYS[1], 'n') or '0')
local written = 0
if redis.call('HGET', KEYS[1], 'k') ~= ARGV[1] then
  return {-1, count, 0}
end
if ARGV[12] ~= '' then
  local clock = redis.call('TIME')
  if tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000) >= tonumber(ARGV[12]) then
    return {-1, count, 0}
  end
end
local P = #ARGV - 8
local function say(first, last)
  if last < first then return 0 end
  redis.call('RPUSH', KEYS[2], unpack(ARGV, first, last))
  redis.call('LTRIM', KEYS[2], '-' .. ARGV[8], -1)
  count = count + last - first + 1
  redis.call('HSET', KEYS[1], 'n', count)
  return last - first + 1
end
if ARGV[P + 2] ~= '-' and (redis.call('HGET', KEYS[1], 'h') or '') ~= ARGV[P + 2] then
  return {-1, count, 0}
end
local needed = tonumber(ARGV[4])
local ordered = ARGV[11] == 'O'
local held = redis.call('HGET', KEYS[3], ARGV[2])
local status = 1
if ordered and held then
  if string.match(held, '^(.*)#%d+$') ~= ARGV[3] then
    return {-1, count, 0}
  end
  status = 0
elseif held == ARGV[3] then
  if redis.call('HLEN', KEYS[3]) >= needed then
    -- The same choice, but the step is complete (its resolution is being
    -- committed): the caller reads again and answers as resolved, as any
    -- later repeat of it is answered.
    return {-1, count, 0}
  end
  status = 0
elseif held then
  if ARGV[11] == 'F' or redis.call('HLEN', KEYS[3]) >= needed then
    return {-1, count, 0}
  end
  redis.call('HSET', KEYS[3], ARGV[2], ARGV[3])
  redis.call('HSET', KEYS[1], 'w', ARGV[10])
  set_away(KEYS[1], ARGV[13])
  written = say(P - tonumber(ARGV[P + 6]), P - 1)
else
  local text = ARGV[3]
  if ordered then
    text = text .. '#' .. (redis.call('HLEN', KEYS[3]) + 1)
  end
  redis.call('HSET', KEYS[3], ARGV[2], text)
  redis.call('HSET', KEYS[1], 'w', ARGV[10])
  set_away(KEYS[1], ARGV[13])
  written = say(14, P - 1)
  if redis.call('HLEN', KEYS[3]) >= needed then
    status = 2
  end
end
if status ~= 0 and ARGV[P] ~= '' then
  local moves_key = KEYS[#KEYS - 1]
  local held = redis.call('LLEN', moves_key)
  local cap = tonumber(ARGV[P + 1])
  if held > 0 and held < cap + 2 then
    redis.call('RPUSH', moves_key, ARGV[P])
    if ARGV[P + 5] ~= '' then
      local pending = redis.call('HGET', KEYS[1], 'hc')
      redis.call('HSET', KEYS[1], 'hc', pending and (pending .. ' ' .. ARGV[P + 5]) or ARGV[P + 5])
    end
  elseif held == cap + 2 then
    redis.call('RPUSH', moves_key, 'T')
  end
end
if status ~= 0 and ARGV[P + 4] == '+' then
  redis.call('HINCRBY', KEYS[1], 'u', 1)
elseif status ~= 0 and ARGV[P + 4] == '0' then
  redis.call('HDEL', KEYS[1], 'u')
end
if status == 2 and ARGV[P + 3] ~= '' then
  redis.call('PUBLISH', string.gsub(KEYS[1], ':table$', ':clock'), ARGV[P + 3])
end
if status ~= 0 and ARGV[P + 7] ~= '' then
  redis.call('HSET', KEYS[1], 'o', ARGV[P + 7] .. ' ' .. ARGV[10])
  if ARGV[P + 8] ~= '' then
    redis.call('PUBLISH', string.gsub(KEYS[1], ':table$', ':clock'), ARGV[P + 8])
  end
end
for i = 1, 5 do
  redis.call('EXPIRE', KEYS[i], ARGV[5])
end
for i = #KEYS - 2, #KEYS do
  redis.call('EXPIRE', KEYS[i], ARGV[5])
end
if status ~= 0 then
  -- The table's feed (service.streams): a choice was written; its page
  -- first, as in commit.lua (from the cursor before the events it wrote).
  if PAGES then
    publish_page(KEYS[1], KEYS[2], KEYS[3], count - written)
  end
  redis.call(FEED, string.gsub(KEYS[1], ':table$', ':feed'), count)
end
if status == 2 then
  local reply = redis.call('HGETALL', KEYS[3])
  table.insert(reply, 1, redis.call('HGET', KEYS[1], 'hc') or '')
  table.insert(reply, 1, written)
  table.insert(reply, 1, count)
  table.insert(reply, 1, 2)
  return reply
end
if ordered then
  local reply = redis.call('HGETALL', KEYS[3])
  table.insert(reply, 1, redis.call('HGET', KEYS[1], 'hc') or '')
  table.insert(reply, 1, written)
  table.insert(reply, 1, count)
  table.insert(reply, 1, status)
  return reply
end
if ARGV[6] ~= '' then
  redis.call('SET', KEYS[6], ARGV[6], 'EX', ARGV[7])
  if tonumber(ARGV[9]) > 0 then
    -- As in commit.lua: the newest ARGV[9] records of the token are kept.
    local now = tonumber(ARGV[10])
    redis.call('ZADD', KEYS[7], now, string.match(KEYS[6], '[^:]*$'))
    redis.call('ZREMRANGEBYSCORE', KEYS[7], '-inf', now - tonumber(ARGV[7]) * 1000)
    local over = redis.call('ZCARD', KEYS[7]) - tonumber(ARGV[9])
    if over > 0 then
      local oldest = redis.call('ZPOPMIN', KEYS[7], over)
      for i = 1, #oldest, 2 do
        redis.call('DEL', listed_key(KEYS[7], oldest[i]))
      end
    end
    redis.call('EXPIRE', KEYS[7], ARGV[7])
    register(KEYS[7], now, ARGV[7])
  end
end
return {status, count, written}
