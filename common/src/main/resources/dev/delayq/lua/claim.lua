--[[ claim: after BLMOVE moved an id from ready into a consumer's in-flight list, turns it into a
  delivery with its own token, marks it as running (the consumer starts it at once), returns its
  record and (re)registers the consumer as alive. With nothing limited or paused it also takes,
  in this same call, the rest of the consumer's fair share of what still waits in ready (as
  claimReady does, up to ARGV[7] jobs in all), so a consumer woken into a backlog does not claim
  it one job per wake-up; those wait for start.lua, as the rest of a claimReady batch does.
  KEYS[1] jobs       (HASH)   id -> record
  KEYS[2] in-flight  (LIST)   this consumer's deliveries '<token>|<id>'; BLMOVE left the bare id
  KEYS[3] consumers  (ZSET)   consumer id -> heartbeat expiry, epoch ms
  KEYS[4] running    (HASH)   consumer id -> the delivery whose handler it started last
  KEYS[5] deliveries (STRING) the queue's delivery counter: the tokens
  KEYS[6] ready      (LIST)   due ids (flow control gives held jobs back onto it)
  KEYS[7] paused     (HASH)   flow control (include/flow.lua): '*' or a type -> paused since, ms
  KEYS[8] held       (SET)    types whose held:<type> list holds jobs
  KEYS[9] delayed    (wheel)   where a job over its rate limit waits, due when the window allows
  KEYS[10] wake      (LIST)   the scheduler's wake-up token, and the name of the standbys' wake channel
  ARGV[1] job id
  ARGV[2] consumer id
  ARGV[3] heartbeat ttl in ms
  ARGV[4] the longest record a worker reads (queue.maxPayloadBytes plus room for the head)
  ARGV[5] the queue's key base '<prefix>:{<queue>}:' (flow control's per-type keys)
  ARGV[6] queue.limits as flow.lua's spec, '' for none
  ARGV[7] most jobs to hold after this call, the moved one included (absent: 1, that one only)
  ARGV[8] worker.claimMaxBytes: the records of the batch add up to no more, the moved one's
          included (which always comes)
  ARGV[9] the queue's shard count (absent: 1), for the fair share as in claimReady
  ARGV[10] take at least this many in all (absent: 1), up to ARGV[7], as claimReady's ARGV[13]
  Returns {1, left, token, id, record, id2, record2, ...}: the moved id first, then the further ids
  in claim order, the i-th one's token token + i - 1, as claimReady answers them: a record, its
  length for one longer than ARGV[4] (the worker dead-letters it without pulling it), false for
  none (dropped, as in claimReady; never the moved id, below); left is ready's length after the
  call, or -1 when it was not looked at (flow control on, or ARGV[7] 1). {0} when the bare id is
  no longer in the list (taken back in the meantime: the consumer must not run it); {-1} when the
  id has no record (it is dropped); {-2} when flow control held it (paused, or its type at its
  cap) or deferred it (over its rate). Those three take nothing more.
  Invariant: the id stays in this one in-flight list, now as a delivery; each further id moves from
  ready to the in-flight list in this step; a consumer holding ids is always registered, even
  when the recoverer removed it a moment ago; an id flow control holds or defers moves from the
  in-flight list to held:<type> or delayed in this step.
]]
--@include now
--@include delivery
--@include record
--@include wake
--@include flow
--@include takeReady
local jobsKey, inflightKey, consumersKey, runningKey, deliveriesKey, readyKey =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local id, consumer, ttl, recordMax = ARGV[1], ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local most = tonumber(ARGV[7] or '1')

redis.call('ZADD', consumersKey, numberText(nowMs() + ttl), consumer)
if redis.call('LREM', inflightKey, '1', id) == 0 then return {0} end
-- the record read once: its length is what HSTRLEN would say, and one longer than ARGV[4] is read
-- but answered by its length only. An empty record (another client wrote it) is answered as it
-- is, so that the worker dead-letters it with the reason, rather than dropped as none.
local raw = redis.call('HGET', jobsKey, id)
if not raw then return {-1} end
local size = #raw
-- flow control hook (include/flow.lua): nil, one EXISTS, when nothing is limited or paused
local flow = flowOf({ paused = KEYS[7], heldIndex = KEYS[8], delayed = KEYS[9], wake = KEYS[10] },
  ARGV[5], ARGV[6], readyKey)
-- the rest of the fair share, the moved id counted in it; only on flow control's fast path (the
-- slow path stays id by id, in claimReady)
local waiting = (not flow and most > 1) and redis.call('LLEN', readyKey) or 0
local more = 0
if waiting > 0 then
  -- at most waiting: fairShare is at most max(1, (waiting + 1) / consumers)
  more = fairShare(consumersKey, waiting + 1, most, tonumber(ARGV[9] or '1'), tonumber(ARGV[10] or '1')) - 1
end
local token = redis.call('INCRBY', deliveriesKey, numberText(1 + more)) - more
local delivery = deliveryOf(token, id)
if flow and size > 0 and size <= recordMax then
  local verdict = admit(flow, jobsKey, id, raw, delivery, inflightKey, true)
  if verdict ~= 'run' then return {-2} end
end
redis.call('LPUSH', inflightKey, delivery)
redis.call('HSET', runningKey, consumer, delivery)
local out = {1, -1, token, id, size > recordMax and size or raw}
if more > 0 then
  local pulled = size > recordMax and 0 or size
  local _, count = takeReady(readyKey, inflightKey, jobsKey, more, token + 1, tonumber(ARGV[8]), recordMax,
    pulled, true, out)
  waiting = waiting - count
end
if not flow and most > 1 then out[2] = waiting end
return out
