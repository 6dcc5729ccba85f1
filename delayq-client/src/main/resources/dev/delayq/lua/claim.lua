--[[ claim: after BLMOVE moved an id from ready into a consumer's in-flight list, turns it into a
  delivery with its own token, marks it as running (the consumer starts it at once), returns its
  record and (re)registers the consumer as alive.
  KEYS[1] jobs       (HASH)   id -> record
  KEYS[2] in-flight  (LIST)   this consumer's deliveries '<token>|<id>'; BLMOVE left the bare id
  KEYS[3] consumers  (ZSET)   consumer id -> heartbeat expiry, epoch ms
  KEYS[4] running    (HASH)   consumer id -> the delivery whose handler it started last
  KEYS[5] deliveries (STRING) the queue's delivery counter: the tokens
  ARGV[1] job id
  ARGV[2] consumer id
  ARGV[3] heartbeat ttl in ms
  ARGV[4] the longest record a worker reads (queue.maxPayloadBytes plus room for the head)
  Returns {token, record}; {token, length} for a record longer than ARGV[4] (the worker
  dead-letters it without pulling it); {0} when the bare id is no longer in the list (taken back
  in the meantime: the consumer must not run it); {-1} when the id has no record (it is dropped).
  Invariant: the id stays in this one in-flight list, now as a delivery; a consumer holding ids
  is always registered, even when the recoverer removed it a moment ago.
]]
--@include now
--@include delivery
local jobsKey, inflightKey, consumersKey, runningKey, deliveriesKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local id, consumer, ttl = ARGV[1], ARGV[2], tonumber(ARGV[3])

redis.call('ZADD', consumersKey, nowMs() + ttl, consumer)
if redis.call('LREM', inflightKey, 1, id) == 0 then return {0} end
local size = redis.call('HSTRLEN', jobsKey, id)
if size == 0 then return {-1} end
local token = redis.call('INCR', deliveriesKey)
local delivery = deliveryOf(token, id)
redis.call('LPUSH', inflightKey, delivery)
redis.call('HSET', runningKey, consumer, delivery)
if size > tonumber(ARGV[4]) then return {token, size} end
return {token, redis.call('HGET', jobsKey, id)}
