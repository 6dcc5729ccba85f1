--[[ requeueInFlight: take back the deliveries of a consumer that is gone (its process exited) or
  silent (its heartbeat expired), charging only the job whose handler it had started.
  KEYS[1] in-flight (LIST)  that consumer's deliveries '<token>|<id>' (or a bare id BLMOVE left),
                            newest on the left
  KEYS[2] consumers (ZSET)  consumer id -> heartbeat expiry, epoch ms
  KEYS[3] jobs      (HASH)  id -> record
  KEYS[4] ready     (LIST)  due ids; taken-back ids go on the right, to run next, in claim order
  KEYS[5] dead      (ZSET)  id -> time it was dead-lettered
  KEYS[6] running   (HASH)  consumer id -> the delivery whose handler it started last
  KEYS[7] ended     (HASH)  caller-chosen id -> how its job ended (id retention)
  KEYS[8] ended:expiry (ZSET) those ids -> when they are free again, epoch ms
  ARGV[1] consumer id
  ARGV[2] most ids to take back in this call
  ARGV[3] "expired": only if the heartbeat has expired; "gone": unconditionally
  ARGV[4] reason, kept as lastError of the charged job
  ARGV[5] lost deliveries after which a job is a poison pill and goes to dead
  ARGV[6] the delivery that was running as the worker's crash record says, '|' when it says none
          was; '' when there is no record, and the running mark (KEYS[6]) decides
  ARGV[7] queue.idRetention in ms (0: off)
  ARGV[8…] the deliveries the crash record shows finished: their handler returned done, and their
          acknowledgement may not have left the process before it died; one written
          '!<delivery>' ended as cancelled (its kept id records that, as ack.lua would have)
          (then, when the last of them is '--', two more: the queue's key base and how long
          results are kept, ms: a workflow's job that goes to dead or is acknowledged here has its
          end settled, include/workflow.lua)
  Returns {uncharged, charged, deadLettered, left in the list, acknowledged}, or
  {-1, 0, 0, 0, 0} when the consumer is alive.
  The charging rule: the delivery that was running (its handler had started, and its outcome had
  not landed) gets attempt + 1 and lost + 1, and goes to dead past maxAttempts or the poison-pill
  limit (or when its record cannot be read or written back). Every other delivery goes back
  untouched: those claimed after it never started; one claimed before it had finished (its
  handler ended before the next one was marked), so it may run again, but is not counted lost.
  A delivery the crash record shows finished is acknowledged (the job is done: its record goes,
  a kept id stays taken), not run again. The consumer is unregistered once its list is empty; a late outcome from it is then fenced.
  Invariant: each id leaves the in-flight list and enters ready or dead in the same step, its new
  record built before anything is removed; a workflow's job that ends here is settled in it.
]]
--@include now
--@include record
--@include delivery
--@include ended
--@include workflow
local inflightKey, consumersKey, jobsKey, readyKey, deadKey, runningKey =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6]
local consumer, limit, mode, reason, poisonAt = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4], tonumber(ARGV[5])
local recorded = ARGV[6] or ''
local retain = retention(KEYS[7], KEYS[8], ARGV[7])
local finished = {}
local lastArg = #ARGV
local flow = nil
if lastArg >= 10 and ARGV[lastArg - 2] == '--' then
  flow = { base = ARGV[lastArg - 1], keep = ARGV[lastArg] }
  lastArg = lastArg - 3
end
for i = 8, lastArg do
  if string.byte(ARGV[i], 1) == 33 then -- '!': no job id holds it
    finished[string.sub(ARGV[i], 2)] = 'cancelled'
  else
    finished[ARGV[i]] = 'done'
  end
end

local now = nowMs()
if mode == 'expired' then
  local expiry = redis.call('ZSCORE', consumersKey, consumer)
  if expiry and tonumber(expiry) > now then return {-1, 0, 0, 0, 0} end
end
local running = recorded
if recorded == '' then running = redis.call('HGET', runningKey, consumer) end

-- What the charged delivery's record becomes, and whether it goes to dead.
local function charged(raw)
  local head, tail = splitRecord(raw)
  if not head then
    return wrapMalformed(raw, 'malformed record; ' .. reason, now), true
  end
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
    return deadRecord(raw, head, tail, toDead, now), true
  end
  local record, why = joinRecord(head, tail)
  if not record then
    return wrapMalformed(raw, 'malformed record: ' .. why .. '; ' .. reason, now), true
  end
  return record, false
end

local uncharged, chargedCount, deadLettered, acknowledged = 0, 0, 0, 0
for _ = 1, limit do
  -- newest first onto the right end, so the earliest claimed ends rightmost and runs first
  local delivery = redis.call('LINDEX', inflightKey, 0)
  if not delivery then break end
  local id = idOf(delivery)
  local raw = redis.call('HGET', jobsKey, id)
  if not raw then
    redis.call('LPOP', inflightKey) -- an id without a record: nothing could ever run it
  elseif finished[delivery] then
    redis.call('LPOP', inflightKey)
    rememberEnded(retain, id, raw, finished[delivery])
    redis.call('HDEL', jobsKey, id)
    acknowledged = acknowledged + 1
    if flow and recordInWorkflow(raw) then
      settleEnd(workflowContext(flow.base, flow.keep, now), id, finished[delivery], raw, nil)
    end
  elseif delivery == running then
    local record, toDead = charged(raw)
    redis.call('LPOP', inflightKey)
    redis.call('HSET', jobsKey, id, record)
    chargedCount = chargedCount + 1
    if toDead then
      redis.call('ZADD', deadKey, now, id)
      deadLettered = deadLettered + 1
      if flow and recordInWorkflow(record) then
        settleEnd(workflowContext(flow.base, flow.keep, now), id, 'dead', record, nil)
      end
    else
      redis.call('RPUSH', readyKey, id)
    end
  else
    redis.call('LPOP', inflightKey)
    redis.call('RPUSH', readyKey, id)
    uncharged = uncharged + 1
  end
end
local left = redis.call('LLEN', inflightKey)
if left == 0 then
  redis.call('ZREM', consumersKey, consumer)
  redis.call('HDEL', runningKey, consumer)
end
return {uncharged, chargedCount, deadLettered, left, acknowledged}
