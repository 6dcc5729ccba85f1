--[[ forgetEnded: frees the caller-chosen ids whose retention window has passed, oldest first, in
  a bounded batch (the scheduler calls it again at once while it comes back full).
  KEYS[1] ended        (HASH) caller-chosen id -> how its job ended
  KEYS[2] ended:expiry (ZSET) those ids -> when they are free again, epoch ms
  ARGV[1] most ids to free in this call
  Returns the number of ids freed.
  Invariant: an id leaves ended and its expiry index together; jobs and the places are untouched.
]]
--@include now
local endedKey, expiryKey = KEYS[1], KEYS[2]
local limit = tonumber(ARGV[1])

local ids = redis.call('ZRANGEBYSCORE', expiryKey, '-inf', nowMs(), 'LIMIT', 0, limit)
if #ids > 0 then
  redis.call('HDEL', endedKey, unpack(ids))
  redis.call('ZREM', expiryKey, unpack(ids))
end
return #ids
