--[[ enqueue: accept jobs, idempotently; one call takes a batch of them.
  KEYS[1] jobs     (HASH)  id -> record
  KEYS[2] delayed  (wheel)  id -> due time, epoch ms (include/wheel: keys named after this one)
  KEYS[3] ready    (LIST)  due ids, consumers take from the right
  KEYS[4] wake     (LIST)  the scheduler's wake-up token, and the name of the standbys' wake channel
  KEYS[5] stats    (HASH)  counters; count:enqueued:<type> grows by the jobs accepted (written last, and
                           a field that holds no integer is reset: include/stats)
  KEYS[6] ended    (HASH)  caller-chosen id -> how its job ended (id retention)
  KEYS[7] ended:expiry (ZSET) those ids -> when they are free again, epoch ms
  KEYS[8] dead     (ZSET)  id -> time it was dead-lettered
  ARGV[1] queue.maxPayloadBytes: a longer payload is refused here too, whoever sends it
  ARGV, from ARGV[2], five per job:
    id
    record head: the record's JSON object up to, not including, its closing brace and without
      createdAt, dueAt and payload, compact (include/recordFormat), e.g. {"t":"order_close","m":5
      (a head with full names, {"type":...,"maxAttempts":5, makes a record with full names)
    payload, a JSON text
    delay in ms from Redis TIME when mode is "delay"; due time in epoch ms when "at"
    mode: "delay" | "at", then the if-pending option for an id whose job is pending
      (include/ifPending): "" keep it, "+payload", "+due" or "+payload+due", e.g. "delay+due"
  Returns, two per job (nothing is changed for a job not accepted, unless its option changed it):
    {1, dueAt}    accepted
    {0, -1}       the id's job is still pending (delayed, ready or running), kept as it is
    {3, deadAt}   the id's job is dead (its record kept until purged)
    {2, freeAt}   the id's job ended (done, cancelled, purged) and the id stays taken until freeAt
    {-2, bytes}   the payload is longer than ARGV[1]
    {4, dueAt}    if-pending: the pending job was changed (its payload and/or due time)
    {5, -1}       if-pending: refused, the job is running; {6, -1} its record cannot be rewritten
  Errors: "WRONGTYPE <ready key> holds a <type>, ..." when a job is due now and another client set
  ready to another type; the jobs of that write are not written (nor any after it).
  Invariant: each record and its id's one place (delayed, or ready when already due and nothing
  older is waiting) are written together or not at all.
  Work: one ZMSCORE (ended:expiry) and one HMGET (jobs) for the call's ids; one HSET and one LPUSH
  for the accepted; their wheel adds bucket by bucket with one count (include/wheel wheelGather,
  wheelFlush). An id a second time in the call, or an id that has a record, goes on alone after
  the writes before it are made.
]]
--@include now
--@include record
--@include wake
--@include pending
--@include ifPending
--@include stats
local jobsKey, delayedKey, readyKey, wakeKey, statsKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local endedKey, expiryKey, deadKey = KEYS[6], KEYS[7], KEYS[8]
local maxPayload = tonumber(ARGV[1])

local now = nowMs()
local nowText = numberText(now)
local _, headBefore = wheelHead(delayedKey)
-- Already-due jobs skip the scheduler's hop unless an older due job is still waiting for it.
local straightToReady = headBefore == nil or headBefore > now
local earliestAdded = nil
local acceptedPerType = {}
-- each record head's job type, read once a call (a call's jobs mostly share one head)
local typeOfHead = {}
local out = {}

-- Commands take at most this many arguments from unpack (Lua's stack is bounded).
local CHUNK = 1000

-- The reply of command on key with the values from, in CHUNK pieces: the replies' elements
-- joined, or their sum when they are numbers.
local function chunked(command, key, values)
  local all, sum = {}, 0
  for from = 1, #values, CHUNK do
    local r = redis.call(command, key, unpack(values, from, math.min(#values, from + CHUNK - 1)))
    if type(r) == 'table' then
      for _, v in ipairs(r) do all[#all + 1] = v end
    else
      sum = sum + r
    end
  end
  return all, sum
end

-- What the batch reads before it writes, one command each for all its ids: the ended window of
-- each (ended:expiry) and whether it has a record. A job whose id came earlier in this call
-- reads them again (its first job may have written them).
local ids = {}
for i = 2, #ARGV, 5 do ids[#ids + 1] = ARGV[i] end
local freeAts = chunked('ZMSCORE', expiryKey, ids)
local existing = chunked('HMGET', jobsKey, ids)
local seen = {}

-- The writes of accepted jobs, gathered and made together by flush(): before anything reads a
-- record or a place (an id's second job, the if-pending path) and before the call returns.
local records, readyIds, adds = {}, {}, wheelAdds(delayedKey)
local readyChecked = false
local function flush()
  if #readyIds > 0 then
    if not readyChecked then
      -- another client may have set ready to another type: fail before these jobs' records are
      -- written, which would otherwise be in no place (one TYPE a call, and only for due jobs)
      local t = redis.call('TYPE', readyKey).ok
      if t ~= 'list' and t ~= 'none' then
        error({ err = 'WRONGTYPE ' .. readyKey .. ' holds a ' .. t .. ', not a list: jobs due now cannot be'
          .. ' enqueued until it is deleted or renamed (delayq check names it)' })
      end
      readyChecked = true
    end
    chunked('LPUSH', readyKey, readyIds)
  end
  if #records > 0 then chunked('HSET', jobsKey, records) end
  records, readyIds = {}, {}
  wheelFlush(adds)
end

-- When the id stays taken (its window has not passed): the time it is free again. A window that passed but
-- that the scheduler has not trimmed yet is trimmed here, so the id is free on time.
local function endedTaken(id, freeAt)
  if not freeAt then return nil end
  freeAt = tonumber(freeAt)
  if freeAt > now then return freeAt end
  redis.call('HDEL', endedKey, id)
  redis.call('ZREM', expiryKey, id)
  return nil
end

-- The outcome pair of the job at k (1-based), writing it when it is accepted.
local function enqueueOne(k, id, head, payload, when, mode)
  local option = ''
  if mode ~= 'delay' and mode ~= 'at' then mode, option = string.match(mode, '^(%a+)(.*)$') end
  if #payload > maxPayload then return -2, #payload end
  local again = seen[id]
  seen[id] = true
  if again then flush() end
  local freeAt = freeAts[k]
  if again then freeAt = redis.call('ZSCORE', expiryKey, id) end
  freeAt = endedTaken(id, freeAt)
  if freeAt then return 2, freeAt end
  local dueAt = when
  if mode == 'delay' then dueAt = now + when end
  local record = newRecord(head, now, dueAt, payload, nowText)
  local exists = existing[k]
  if again then exists = redis.call('HEXISTS', jobsKey, id) == 1 end
  if exists then
    local deadAt = redis.call('ZSCORE', deadKey, id)
    if deadAt then return 3, tonumber(deadAt) end
    flush()
    return onPending(jobsKey, delayedKey, readyKey, deadKey, wakeKey, id, option, payload, dueAt, now)
  end
  records[#records + 1] = id
  records[#records + 1] = record
  if dueAt <= now and straightToReady then
    readyIds[#readyIds + 1] = id
  else
    wheelGather(adds, dueAt, id)
    if earliestAdded == nil or dueAt < earliestAdded then earliestAdded = dueAt end
  end
  local jobType = typeOfHead[head]
  if not jobType then
    jobType = recordType(head)
    typeOfHead[head] = jobType
  end
  acceptedPerType[jobType] = (acceptedPerType[jobType] or 0) + 1
  return 1, dueAt
end

for i = 2, #ARGV, 5 do
  local code, value = enqueueOne((i + 3) / 5, ARGV[i], ARGV[i + 1], ARGV[i + 2], tonumber(ARGV[i + 3]), ARGV[i + 4])
  out[#out + 1] = code
  out[#out + 1] = value
end
flush()

-- A new earliest job: wake the scheduler (at most one token waits) and the hot standbys.
if earliestAdded ~= nil and (headBefore == nil or earliestAdded < headBefore) then
  wakeOnNewHead(wakeKey, earliestAdded)
end

-- The counters last, after the jobs and the wake-up: a bad stats field cannot fail the call.
for jobType, n in pairs(acceptedPerType) do
  addCount(statsKey, 'count:enqueued:' .. jobType, n)
end
return out
