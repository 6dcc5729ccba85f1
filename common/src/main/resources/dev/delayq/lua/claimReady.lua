--[[ claimReady: a consumer takes a fair share of the due jobs at once, without blocking: up to
  ARGV[3] ids, but no more than ready's length divided by the number of registered consumers
  (at least 1), so one consumer never sits on jobs that idle ones could run. When ready is
  empty it returns nothing and the consumer blocks on BLMOVE instead.
  KEYS[1] ready     (LIST)  due ids, taken from the right
  KEYS[2] in-flight (LIST)  this consumer's claimed ids
  KEYS[3] jobs      (HASH)  id -> record
  KEYS[4] consumers (ZSET)  consumer id -> heartbeat expiry, epoch ms
  ARGV[1] consumer id
  ARGV[2] heartbeat ttl in ms
  ARGV[3] most ids to take
  Returns {id1, record1, id2, record2, ...}; an id without record is dropped from the list and
  returned with false.
  Invariant: each id moves from ready to the in-flight list in this one step; the consumer is
  (re)registered, so its list is watched by the recoverer.
]]
--@include now
local readyKey, inflightKey, jobsKey, consumersKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local consumer, ttl, most = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])

local waiting = redis.call('LLEN', readyKey)
if waiting == 0 then return {} end
local consumers = math.max(1, redis.call('ZCARD', consumersKey))
local take = math.max(1, math.min(most, math.floor(waiting / consumers)))

redis.call('ZADD', consumersKey, nowMs() + ttl, consumer)
local out = {}
for i = 1, take do
  local id = redis.call('LMOVE', readyKey, inflightKey, 'RIGHT', 'LEFT')
  if not id then break end
  local record = redis.call('HGET', jobsKey, id)
  if not record then
    redis.call('LREM', inflightKey, 1, id)
  end
  out[#out + 1] = id
  out[#out + 1] = record
end
return out
