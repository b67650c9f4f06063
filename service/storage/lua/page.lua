-- table_page(table_key, events_key, choices_key, after, limit): a page of a
-- table's event log together with its event count and what the store needs
-- to compute the events due but not written yet (the state, its step's
-- choices, the clock of its last write and now), in one atomic step (a
-- commit between the reads would shift the positions). Prepended to the
-- scripts that call it (events.lua, commit.lua, choose.lua:
-- service.storage.loading's PAGED_SCRIPTS).
--
-- table_key the table hash {v, n, s, a, k, w}; events_key the event list
-- (the newest events; commit.lua trims it); choices_key the choices hash of
-- the step. after: the page holds the events with seq > after; limit: at
-- most this many (one more is read, to tell whether more follow).
-- Returns false when the table does not exist; else {n, oldest, s, w, TIME,
-- choices, v, a, k, events...}: n the seq of the last event written, oldest
-- the seq of the first one kept (n - LLEN + 1; the list holds seq
-- oldest..n, oldest first), the state, w (false when absent), TIME's reply,
-- the choices as HGETALL gives them, the version, the auth record, the
-- step key (false when absent: a stream builds the seat's view from this
-- same read) and the clock's fields b, y, c, o, u, t (store.Control: the
-- seat's view shows its deadline and away), the event at seq `after` itself
-- (false when it is not kept or after > n: a stream compares it with the one
-- it sent, to find a log that was rolled back and wrote other events under
-- the same seqs), then up to limit + 1 events after `after`, none when
-- after < oldest - 1 (gone) or after >= n.
-- Reads only: the due events are the caller's to compute, never written here.
local function table_page(table_key, events_key, choices_key, after, limit)
  if redis.call('EXISTS', table_key) == 0 then
    return false
  end
  local n = tonumber(redis.call('HGET', table_key, 'n') or '0')
  local oldest = n - redis.call('LLEN', events_key) + 1
  local held = redis.call('HMGET', table_key, 's', 'w', 'v', 'a', 'k', 'b', 'y', 'c', 'o', 'u', 't')
  local reply = {
    n, oldest, held[1], held[2], redis.call('TIME'), redis.call('HGETALL', choices_key),
    held[3], held[4], held[5], {held[6], held[7], held[8], held[9], held[10], held[11]},
  }
  reply[11] = false
  if after >= oldest and after <= n then
    reply[11] = redis.call('LINDEX', events_key, after - oldest)
  end
  if after < oldest - 1 or after >= n then
    return reply
  end
  local start = after - oldest + 1
  local page = redis.call('LRANGE', events_key, start, start + limit)
  for i = 1, #page do
    reply[#reply + 1] = page[i]
  end
  return reply
end

-- followed(table_key): whether a stream holds a lease on the table
-- (service.storage.stream_leases: its public streams' set, or a seat's, for
-- seats 0 to STREAM_SEATS - 1): only then is a commit's page worth
-- publishing (its feed is published whatever this says).
local STREAM_SEATS = 10  -- the most seats a game has (tests check it)
local function followed(table_key)
  local base = string.gsub(table_key, ':table$', ':streams')
  local keys = {base}
  for seat = 0, STREAM_SEATS - 1 do
    keys[#keys + 1] = base .. ':' .. seat
  end
  return redis.call('EXISTS', unpack(keys)) > 0
end

-- publish_page(table_key, events_key, choices_key, after): what a stream
-- reads after a commit whose events follow seq `after` (table_page from
-- there, as the JSON array [after, page]), published on the table's page
-- channel (its hash key with ":page" for ":table") while a stream follows
-- the table (service.streams.hub).
local PAGE = 100  -- a stream's page of events (service.streams.follow.PAGE)
local function publish_page(table_key, events_key, choices_key, after)
  if followed(table_key) then
    local page = cjson.encode({after, table_page(table_key, events_key, choices_key, after, PAGE)})
    redis.call('PUBLISH', string.gsub(table_key, ':table$', ':page'), page)
  end
end
