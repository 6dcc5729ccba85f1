--[[ enqueue: accept jobs, idempotently; one call takes a batch of them.
  KEYS[1] jobs     (HASH)  id -> record
  KEYS[2] delayed  (ZSET)  id -> due time, epoch ms
  KEYS[3] ready    (LIST)  due ids, consumers take from the right
  KEYS[4] wake     (LIST)  the scheduler's wake-up token
  KEYS[5] stats    (HASH)  counters; count:enqueued:<type> grows by the jobs accepted
  ARGV, five per job:
    id
    record head: the record's JSON object up to, not including, its closing brace and without
      attempt, createdAt, dueAt and payload, e.g. {"type":"order_close","maxAttempts":5
    payload, a JSON text
    delay in ms from Redis TIME when mode is "delay"; due time in epoch ms when "at"
    mode: "delay" | "at"
  Returns, two per job: {1, dueAt} when accepted; {0, -1} when the id exists already (nothing
  is changed for it).
  Invariant: each record and its id's one place (delayed, or ready when already due and nothing
  older is waiting) are written together or not at all.
]]
--@include now
local jobsKey, delayedKey, readyKey, wakeKey, statsKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]

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
  local dueAt = when
  if mode == 'delay' then dueAt = now + when end
  local record = head .. ',"attempt":1,"createdAt":' .. now .. ',"dueAt":' .. dueAt
    .. ',"payload":' .. payload .. '}'
  if redis.call('HSETNX', jobsKey, id, record) == 0 then
    out[#out + 1] = 0
    out[#out + 1] = -1
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
