-- Begin a request that carries an Idempotency-Key: take the key's lock, or
-- hand back what the key already holds.
--
-- KEYS[1] the record key; ARGV[1] the lock ("L" + JSON); ARGV[2] its life in ms.
-- Returns false when the lock was taken (the request runs), else the stored
-- value: "L..." (another request with this key is running) or "D..." (done:
-- its response, to replay).
local held = redis.call('GET', KEYS[1])
if held then
  return held
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return false
