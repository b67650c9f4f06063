-- Issue a client key (service.storage.client_keys): KEYS[1] the keys' hash.
-- ARGV[1] the name, ARGV[2] the key's SHA-256 (hex), ARGV[3] its record (JSON).
-- Returns 0 (nothing written) when the name is taken, else 1.
if redis.call('HEXISTS', KEYS[1], 'n:' .. ARGV[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'n:' .. ARGV[1], ARGV[2], 'd:' .. ARGV[2], ARGV[3])
return 1
