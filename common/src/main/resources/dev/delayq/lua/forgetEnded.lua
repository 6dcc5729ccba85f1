--[[ forgetEnded: frees the caller-chosen ids whose retention window has passed, oldest first, in
  a bounded batch (the scheduler calls it again at once while it comes back full).
  KEYS[1] ended        (HASH) caller-chosen id -> how its job ended
  KEYS[2] ended:expiry (ZSET) those ids -> when they are free again, epoch ms
  ARGV[1] most ids to free in this call
  ARGV[2] the queue's key base '<prefix>:{<queue>}:' (absent: ''): the kept results
          (results, results:expiry) past their time are forgotten too, as many at most
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
if (ARGV[2] or '') ~= '' then
  local results, resultsExpiry = ARGV[2] .. 'results', ARGV[2] .. 'results:expiry'
  local old = redis.call('ZRANGEBYSCORE', resultsExpiry, '-inf', nowMs(), 'LIMIT', 0, limit)
  if #old > 0 then
    redis.call('HDEL', results, unpack(old))
    redis.call('ZREM', resultsExpiry, unpack(old))
  end
  if #old > #ids then return #old end
end
return #ids
