--[[ claimReady: a consumer acknowledges the job it has just finished and takes a fair share of
  the due jobs at once, without blocking: up to ARGV[3] ids, but no more than ready's length
  divided by the number of registered consumers (at least 1), so one consumer never sits on jobs
  that idle ones could run. Each claim is a new delivery with its own token. The first is marked
  as running, because the consumer starts it at once; the others wait for start.lua. When ready
  is empty nothing is claimed (the acknowledgement still lands) and the consumer blocks on BLMOVE.
  KEYS[1] ready      (LIST)   due ids, taken from the right
  KEYS[2] in-flight  (LIST)   this consumer's deliveries '<token>|<id>', newest on the left
  KEYS[3] jobs       (HASH)   id -> record
  KEYS[4] consumers  (ZSET)   consumer id -> heartbeat expiry, epoch ms
  KEYS[5] running    (HASH)   consumer id -> the delivery whose handler it started last
  KEYS[6] deliveries (STRING) the queue's delivery counter: the tokens
  KEYS[7] ended      (HASH)   caller-chosen id -> how its job ended (id retention)
  KEYS[8] ended:expiry (ZSET) those ids -> when they are free again, epoch ms
  ARGV[1] consumer id
  ARGV[2] heartbeat ttl in ms
  ARGV[3] most ids to take
  ARGV[4] delivery to acknowledge first, '' for none
  ARGV[5] queue.idRetention in ms (0: off)
  ARGV[6] worker.claimMaxBytes: the records one call returns add up to no more (the first one
          always comes, so a claim of one record of up to ARGV[7] bytes still goes through)
  ARGV[7] the longest record a worker reads (queue.maxPayloadBytes plus room for the head)
  ARGV[8] the queue's shard count (absent: 1): every consumer is registered in every shard but
          claims from one at a time, so a shard's fair share is its length over the consumers
          divided by the shard count
  Returns {ack, firstToken, id1, record1, id2, record2, ...}: ack 1 acknowledged, 0 fenced (that
  delivery is no longer this consumer's: nothing changed for it), -1 none asked; the i-th id's
  token is firstToken + i - 1; an id without a record is dropped (it was a breach: in ready with
  nothing to run) and returned with false; a record longer than ARGV[7] (written by another
  client, past enqueue.lua's limit) is claimed but answered by its length, a number, so the worker
  dead-letters it without pulling it. Fewer than ARGV[3] come when the byte budget is spent.
  Invariant: the acknowledged id leaves with its record; each claimed id moves from ready to the
  in-flight list in this one step, and the consumer is (re)registered, so its list is watched.
]]
--@include now
--@include delivery
--@include ended
local readyKey, inflightKey, jobsKey, consumersKey, runningKey, deliveriesKey =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local consumer, ttl, most, ackFirst = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]

local acked = acknowledge(inflightKey, jobsKey, ackFirst, retention(KEYS[7], KEYS[8], ARGV[5]))

local waiting = redis.call('LLEN', readyKey)
if waiting == 0 then return {acked, 0} end
local shards = tonumber(ARGV[8] or '1')
local consumers = math.max(1, math.ceil(redis.call('ZCARD', consumersKey) / shards))
local take = math.min(waiting, math.max(1, math.min(most, math.floor(waiting / consumers))))

redis.call('ZADD', consumersKey, nowMs() + ttl, consumer)
local budget, recordMax = tonumber(ARGV[6]), tonumber(ARGV[7])
local firstToken = redis.call('INCRBY', deliveriesKey, take) - take + 1
local out = {acked, firstToken}
local marked = false
local pulled = 0
for i = 1, take do
  local id = redis.call('LINDEX', readyKey, -1)
  -- a record is never empty, so 0 means none
  local size = redis.call('HSTRLEN', jobsKey, id)
  if i > 1 and size <= recordMax and pulled + size > budget then break end
  redis.call('RPOP', readyKey)
  local answer = false
  if size > 0 then
    local delivery = deliveryOf(firstToken + i - 1, id)
    redis.call('LPUSH', inflightKey, delivery)
    if not marked then
      redis.call('HSET', runningKey, consumer, delivery)
      marked = true
    end
    if size > recordMax then
      answer = size
    else
      answer = redis.call('HGET', jobsKey, id)
      pulled = pulled + size
    end
  end
  out[#out + 1] = id
  out[#out + 1] = answer
end
return out
