-- Delete a table with every key it owns: its hash, its event list, other
-- keys of its own (the record of its creation), and every key listed in the
-- given indexes (the idempotency records of its tokens), with the indexes.
-- All of them carry the table's hash tag, so they are in its slot.
--
-- KEYS[1..ARGV[1]] keys to delete; KEYS[ARGV[1]+1..] sorted sets whose
-- members are keys to delete too.
-- Returns how many keys were deleted.
local deleted = 0
for i = tonumber(ARGV[1]) + 1, #KEYS do
  local members = redis.call('ZRANGE', KEYS[i], 0, -1)
  for _, member in ipairs(members) do
    deleted = deleted + redis.call('DEL', member)
  end
end
deleted = deleted + redis.call('DEL', unpack(KEYS))
-- The table's feed (service.streams): its streams end.
redis.call('PUBLISH', string.gsub(KEYS[1], ':table$', ':feed'), -1)
return deleted
