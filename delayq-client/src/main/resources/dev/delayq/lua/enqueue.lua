--[[ enqueue: accept jobs, idempotently; one call takes a batch of them.
  KEYS[1] jobs     (HASH)  id -> record
  KEYS[2] delayed  (ZSET)  id -> due time, epoch ms
  KEYS[3] ready    (LIST)  due ids, consumers take from the right
  KEYS[4] wake     (LIST)  the scheduler's wake-up token
  KEYS[5] stats    (HASH)  counters; count:enqueued:<type> grows by the jobs accepted
  KEYS[6] dead     (ZSET)  read only: an if-pending change refuses a dead job
  ARGV, five per job:
    id
    record head: the record's JSON object up to, not including, its closing brace and without
      attempt, createdAt, dueAt and payload, e.g. {"type":"order_close","maxAttempts":5
    payload, a JSON text
    delay in ms from Redis TIME when mode is "delay"; due time in epoch ms when "at"
    mode: "delay" | "at", then the if-pending option for an id that exists (include/ifPending):
      "" keep it, "+payload", "+due" or "+payload+due", e.g. "delay+due" (debounce)
  Returns, two per job: {1, dueAt} when accepted; {0, -1} when the id exists already (nothing
  is changed for it); for an if-pending option, {2, dueAt} when the pending job was changed, or
  {-1 running | -2 dead | -3 unreadable record, -1} when it was refused (nothing changed).
  Invariant: each record and its id's one place (delayed, or ready when already due and nothing
  older is waiting) are written together or not at all.
]]
--@include now
--@include record
--@include wake
--@include pending
--@include ifPending
local jobsKey, delayedKey, readyKey, wakeKey, statsKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local deadKey = KEYS[6]

local now = nowMs()
local first = redis.call('ZRANGE', delayedKey, 0, 0, 'WITHSCORES')
local headBefore = tonumber(first[2])
-- Already-due jobs skip the scheduler's hop unless an older due job is still waiting for it.
local straightToReady = headBefore == nil or headBefore > now
local earliestAdded = nil
local acceptedPerType = {}
local out = {}

for i = 1, #ARGV, 5 do
  local id, head, payload, when, mode = ARGV[i], ARGV[i + 1], ARGV[i + 2], tonumber(ARGV[i + 3]), ARGV[i + 4]
  local option
  mode, option = string.match(mode, '^(%a+)(.*)$')
  local dueAt = when
  if mode == 'delay' then dueAt = now + when end
  local record = head .. ',"attempt":1,"createdAt":' .. now .. ',"dueAt":' .. dueAt
    .. ',"payload":' .. payload .. '}'
  if redis.call('HSETNX', jobsKey, id, record) == 0 then
    local code, due = onPending(jobsKey, delayedKey, readyKey, deadKey, wakeKey, id, option, payload, dueAt, now)
    out[#out + 1] = code
    out[#out + 1] = due
  else
    if dueAt <= now and straightToReady then
      redis.call('LPUSH', readyKey, id)
    else
      redis.call('ZADD', delayedKey, dueAt, id)
      if earliestAdded == nil or dueAt < earliestAdded then earliestAdded = dueAt end
    end
    local jobType = string.match(head, '^{"type":"([^"]+)"') or '?'
    acceptedPerType[jobType] = (acceptedPerType[jobType] or 0) + 1
    out[#out + 1] = 1
    out[#out + 1] = dueAt
  end
end

for jobType, n in pairs(acceptedPerType) do
  redis.call('HINCRBY', statsKey, 'count:enqueued:' .. jobType, n)
end

-- A new earliest job: wake the scheduler (at most one token waits).
if earliestAdded ~= nil and (headBefore == nil or earliestAdded < headBefore)
    and redis.call('LLEN', wakeKey) == 0 then
  redis.call('RPUSH', wakeKey, '1')
end
return out
