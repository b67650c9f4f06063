-- Record the response of a request that carried an Idempotency-Key, unless a
-- response is already recorded (then that one stands and is returned).
--
-- KEYS[1] the record key; ARGV[1] the record ("D" + JSON); ARGV[2] its life in s.
-- Returns false when written, else the record already there.
local held = redis.call('GET', KEYS[1])
if held and string.sub(held, 1, 1) == 'D' then
  return held
end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
return false
