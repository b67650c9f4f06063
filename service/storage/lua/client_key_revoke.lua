-- Revoke a client key by its name: KEYS[1] the keys' hash; ARGV[1] the name.
-- Returns 0 when there is no such key, else 1 (both fields gone at once).
local digest = redis.call('HGET', KEYS[1], 'n:' .. ARGV[1])
if not digest then return 0 end
redis.call('HDEL', KEYS[1], 'n:' .. ARGV[1], 'd:' .. digest)
return 1
