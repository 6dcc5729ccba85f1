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
  KEYS[9]  paused    (HASH)   flow control (include/flow.lua): '*' or a type -> paused since, ms
  KEYS[10] held      (SET)    types whose held:<type> list holds jobs
  KEYS[11] delayed   (wheel)   where a job over its rate limit waits, due when the window allows
  KEYS[12] wake      (LIST)   the scheduler's wake-up token, and the name of the standbys' wake channel
  ARGV[1] consumer id
  ARGV[2] heartbeat ttl in ms
  ARGV[3] most ids to take
  ARGV[4] ARGV[5] ARGV[6] the delivery to acknowledge first as include/ended.lua's
          acknowledgeOldest reads one: its hint ('' for none), its element and its id ('' when none)
  ARGV[7] queue.idRetention in ms (0: off)
  ARGV[8] worker.claimMaxBytes: the records one call returns add up to no more (the first one
          always comes, so a claim of one record of up to ARGV[9] bytes still goes through)
  ARGV[9] the longest record a worker reads (queue.maxPayloadBytes plus room for the head)
  ARGV[10] the queue's key base '<prefix>:{<queue>}:' (flow control's per-type keys)
  ARGV[11] queue.limits as flow.lua's spec, '' for none
  ARGV[12] the queue's shard count (absent: 1): every consumer is registered in every shard but
          claims from one at a time, so a shard's fair share is its length over the consumers
          divided by the shard count
  ARGV[13] take at least this many of what waits (absent: 1), up to ARGV[3], whatever the fair
          share: the consumer's handlers run that many within a short budget (include/takeReady's
          fairShare)
  Returns {ack, left, firstToken, id1, record1, id2, record2, ...}: ack 1 acknowledged, 0 fenced
  (that delivery is no longer this consumer's: nothing changed for it), 2 fenced with its job's
  record gone (include/ended.lua's acknowledgeOldest), -1 none asked; left is ready's length after
  the call (so a sharded worker's idle consumers can be sent to a shard that still holds jobs
  without looking again), -1 when flow control took the ids one by one; the i-th id's token is
  firstToken + i - 1; an id without a record is dropped (it was a breach: in ready with
  nothing to run) and returned with false; an empty record (written by another client) is claimed
  and answered as it is, so the worker dead-letters it with the reason; a record longer than
  ARGV[9] (written by another client, past enqueue.lua's limit) is claimed but answered by its
  length, a number, so the worker dead-letters it without pulling it. Fewer than ARGV[3] come when the byte budget is spent, or
  when flow control held or deferred some of the ids it looked at (at most 100 more than ARGV[3])
  or stopped the batch before a limited job that would not be its first. With nothing limited
  or paused (flow control's fast path) the batch is read and taken in a few calls for all its
  ids; otherwise id by id, each through flow control.
  Invariant: the acknowledged id leaves with its record; each claimed id moves from ready to the
  in-flight list in this one step, and the consumer is (re)registered, so its list is watched;
  an id flow control holds or defers moves from ready to held:<type> or delayed in this step.
]]
--@include now
--@include delivery
--@include ended
--@include record
--@include wake
--@include flow
--@include takeReady
local readyKey, inflightKey, jobsKey, consumersKey, runningKey, deliveriesKey =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local consumer, ttl, most = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])

local acked = acknowledge(inflightKey, jobsKey, ARGV, 4, retention(KEYS[7], KEYS[8], ARGV[7]))

-- flow control hook (include/flow.lua): nil, one EXISTS, when nothing is limited or paused
local flow = flowOf({ paused = KEYS[9], heldIndex = KEYS[10], delayed = KEYS[11], wake = KEYS[12] },
  ARGV[10], ARGV[11], readyKey)

local waiting = redis.call('LLEN', readyKey)
if waiting == 0 then return {acked, 0, 0} end
-- never more than waiting: fairShare is at most max(1, waiting / consumers)
local take = fairShare(consumersKey, waiting, most, tonumber(ARGV[12] or '1'), tonumber(ARGV[13] or '1'))

redis.call('ZADD', consumersKey, numberText(nowMs() + ttl), consumer)
local budget, recordMax = tonumber(ARGV[8]), tonumber(ARGV[9])
local firstToken = redis.call('INCRBY', deliveriesKey, numberText(take)) - take + 1
local out = {acked, -1, firstToken}

if not flow then
  -- nothing limited or paused: the batch in a few calls (include/takeReady)
  local deliveries, count = takeReady(readyKey, inflightKey, jobsKey, take, firstToken, budget, recordMax, 0, false, out)
  out[2] = waiting - count
  if #deliveries > 0 then
    redis.call('HSET', runningKey, consumer, deliveries[1])
  end
  return out
end

local marked = false
local pulled = 0
local claimed, passed = 0, 0
while claimed < take and passed <= 100 do
  local id = redis.call('LINDEX', readyKey, '-1')
  if not id then break end
  local size = redis.call('HSTRLEN', jobsKey, id)
  -- 0 is no record, or an empty one another client wrote: that one goes to the worker, which
  -- dead-letters it with the reason (only then is HEXISTS asked)
  local present = size > 0 or redis.call('HEXISTS', jobsKey, id) == 1
  if claimed > 0 and size <= recordMax and pulled + size > budget then break end
  local delivery = deliveryOf(firstToken + claimed, id)
  local verdict = 'run'
  if size > 0 and size <= recordMax then -- flow control hook (the fast path above took no flow)
    verdict = admit(flow, jobsKey, id, redis.call('HGET', jobsKey, id), delivery, inflightKey, claimed == 0)
  end
  if verdict == 'later' then break end
  redis.call('RPOP', readyKey)
  if verdict ~= 'run' then
    passed = passed + 1
  else
    local answer = false
    if present then
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
    claimed = claimed + 1
  end
end
return out
