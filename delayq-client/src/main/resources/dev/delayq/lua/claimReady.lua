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
  ARGV[1] consumer id
  ARGV[2] heartbeat ttl in ms
  ARGV[3] most ids to take
  ARGV[4] delivery to acknowledge first, '' for none
  ARGV[5] the queue's shard count (absent: 1): every consumer is registered in every shard but
          claims from one at a time, so a shard's fair share is its length over the consumers
          divided by the shard count
  Returns {ack, firstToken, id1, record1, id2, record2, ...}: ack 1 acknowledged, 0 fenced (that
  delivery is no longer this consumer's: nothing changed for it), -1 none asked; the i-th id's
  token is firstToken + i - 1; an id without a record is dropped (it was a breach: in ready with
  nothing to run) and returned with false.
  Invariant: the acknowledged id leaves with its record; each claimed id moves from ready to the
  in-flight list in this one step, and the consumer is (re)registered, so its list is watched.
]]
--@include now
--@include delivery
local readyKey, inflightKey, jobsKey, consumersKey, runningKey, deliveriesKey =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local consumer, ttl, most, ackFirst = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]

local acked = acknowledge(inflightKey, jobsKey, ackFirst)

local waiting = redis.call('LLEN', readyKey)
if waiting == 0 then return {acked, 0} end
local shards = tonumber(ARGV[5] or '1')
local consumers = math.max(1, math.ceil(redis.call('ZCARD', consumersKey) / shards))
local take = math.min(waiting, math.max(1, math.min(most, math.floor(waiting / consumers))))

redis.call('ZADD', consumersKey, nowMs() + ttl, consumer)
local firstToken = redis.call('INCRBY', deliveriesKey, take) - take + 1
local out = {acked, firstToken}
local marked = false
for i = 1, take do
  local id = redis.call('RPOP', readyKey)
  local record = redis.call('HGET', jobsKey, id)
  if record then
    local delivery = deliveryOf(firstToken + i - 1, id)
    redis.call('LPUSH', inflightKey, delivery)
    if not marked then
      redis.call('HSET', runningKey, consumer, delivery)
      marked = true
    end
  end
  out[#out + 1] = id
  out[#out + 1] = record
end
return out
