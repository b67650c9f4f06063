-- Give up an Idempotency-Key's lock without recording a response (the request
-- never reached the rules: 401, 403, 404, 503...), so that a retry runs at once.
--
-- KEYS[1] the record key; ARGV[1] the lock this request took.
-- Deletes the key only while it still holds that very lock; returns 1 if deleted.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
