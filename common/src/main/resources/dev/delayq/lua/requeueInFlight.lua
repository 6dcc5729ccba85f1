--[[ requeueInFlight: take back the jobs of a consumer that is gone (its process exited) or
  silent (its heartbeat expired), so they run again.
  KEYS[1] in-flight (LIST)  that consumer's claimed ids
  KEYS[2] consumers (ZSET)  consumer id -> heartbeat expiry, epoch ms
  KEYS[3] jobs      (HASH)  id -> record
  KEYS[4] ready     (LIST)  due ids; taken-back ids go on the right, to run next
  KEYS[5] dead      (ZSET)  id -> time it was dead-lettered
  ARGV[1] consumer id
  ARGV[2] most ids to take back in this call
  ARGV[3] "expired": only if the heartbeat has expired; "gone": unconditionally
  ARGV[4] reason, kept as lastError
  ARGV[5] lost deliveries after which a job is a poison pill and goes to dead
  Returns {requeued, deadLettered, left in the list}, or {-1, 0, 0} when the consumer is alive.
  Each job gets attempt + 1 and lost + 1; past maxAttempts or the poison-pill limit it goes to
  dead instead of ready. The consumer is unregistered once its list is empty; a late ack from
  it is then fenced.
  Invariant: each id leaves the in-flight list and enters ready or dead in the same step.
]]
--@include now
--@include record
local inflightKey, consumersKey, jobsKey, readyKey, deadKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local consumer, limit, mode, reason, poisonAt = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], tonumber(ARGV[5])

local now = nowMs()
if mode == 'expired' then
  local expiry = redis.call('ZSCORE', consumersKey, consumer)
  if expiry and tonumber(expiry) > now then return {-1, 0, 0} end
end

local requeued, deadLettered = 0, 0
for _ = 1, limit do
  local id = redis.call('RPOP', inflightKey)
  if not id then break end
  local raw = redis.call('HGET', jobsKey, id)
  if raw then
    local head, tail = splitRecord(raw)
    if not head then
      redis.call('HSET', jobsKey, id, wrapMalformed(raw, 'malformed record; ' .. reason, now))
      redis.call('ZADD', deadKey, now, id)
      deadLettered = deadLettered + 1
    else
      head.attempt = (tonumber(head.attempt) or 1) + 1
      head.lost = (tonumber(head.lost) or 0) + 1
      head.lastError = reason
      local toDead = nil
      if head.lost >= poisonAt then
        toDead = 'poison pill: ' .. head.lost .. ' deliveries were lost with their worker; last: ' .. reason
      elseif head.attempt > (tonumber(head.maxAttempts) or 1) then
        toDead = 'attempts exhausted; last delivery lost: ' .. reason
      end
      if toDead then
        head.lastError = toDead
        head.deadAt = now
        redis.call('HSET', jobsKey, id, joinRecord(head, tail))
        redis.call('ZADD', deadKey, now, id)
        deadLettered = deadLettered + 1
      else
        redis.call('HSET', jobsKey, id, joinRecord(head, tail))
        redis.call('RPUSH', readyKey, id)
        requeued = requeued + 1
      end
    end
  end
end
local left = redis.call('LLEN', inflightKey)
if left == 0 then redis.call('ZREM', consumersKey, consumer) end
return {requeued, deadLettered, left}
