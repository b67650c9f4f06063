-- Delete a table with every key it owns: its hash, its event list, other
-- keys of its own (the record of its creation), and every key listed in the
-- given indexes (the idempotency records of its tokens), with the indexes.
-- All of them carry the table's hash tag, so they are in its slot.
--
-- KEYS[1..ARGV[1]] keys to delete; KEYS[ARGV[1]+1..] sorted sets whose
-- members name keys to delete too (a key, or its last part: listed_key;
-- a member that names an index, as "idem-index:-" lists anonymous callers'
-- indexes, takes that index's members with it).
-- Returns how many keys were deleted.
-- An index lists a record by the last part of its key (short enough for
-- Redis's compact sorted set); a full key name is an older release's entry.
local FEED = 'PUBLISH'  -- SPUBLISH on a sharded Redis Cluster (service.storage.feeds)
local function listed_key(index, member)
  if string.find(member, ':', 1, true) then return member end
  return (string.gsub(index, 'idem%-index:[^:]*$', 'idem:')) .. member
end
local deleted = 0
for i = tonumber(ARGV[1]) + 1, #KEYS do
  local members = redis.call('ZRANGE', KEYS[i], 0, -1)
  for _, member in ipairs(members) do
    local key = listed_key(KEYS[i], member)
    if string.find(key, ':idem-index:', 1, true) then
      -- An anonymous caller's index, listed in "idem-index:-": its records too.
      for _, inner in ipairs(redis.call('ZRANGE', key, 0, -1)) do
        deleted = deleted + redis.call('DEL', listed_key(key, inner))
      end
    end
    deleted = deleted + redis.call('DEL', key)
  end
end
deleted = deleted + redis.call('DEL', unpack(KEYS))
-- The table's feed (service.streams): its streams end (when a table went:
-- this script also drops a token's records alone).
if KEYS[1] and string.find(KEYS[1], ':table$') then
  redis.call(FEED, string.gsub(KEYS[1], ':table$', ':feed'), -1)
end
return deleted
