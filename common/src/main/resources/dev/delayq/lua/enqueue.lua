--[[ enqueue: accept one job, idempotently.
  KEYS[1] jobs     (HASH)  id -> record
  KEYS[2] delayed  (ZSET)  id -> due time, epoch ms
  KEYS[3] ready    (LIST)  due ids, consumers take from the right
  KEYS[4] wake     (LIST)  the scheduler's wake-up token
  ARGV[1] job id
  ARGV[2] record head: the record's JSON object up to, not including, its closing brace and
          without attempt, createdAt, dueAt and payload, e.g. {"type":"order_close","maxAttempts":5
  ARGV[3] payload, a JSON text
  ARGV[4] delay in ms from Redis TIME when ARGV[5] is "delay"; due time in epoch ms when "at"
  ARGV[5] "delay" | "at"
  Returns {1, dueAt} when accepted; {0, -1} when the id exists already (nothing is changed).
  Invariant: the record and the id's one place (delayed, or ready when already due and nothing
  older is waiting) are written together or not at all.
]]
--@include now
--@include wake
local jobsKey, delayedKey, readyKey, wakeKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local id, head, payload, when, mode = ARGV[1], ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5]

if redis.call('HEXISTS', jobsKey, id) == 1 then
  return {0, -1}
end
local now = nowMs()
local dueAt = when
if mode == 'delay' then dueAt = now + when end

redis.call('HSET', jobsKey, id, head .. ',"attempt":1,"createdAt":' .. now .. ',"dueAt":' .. dueAt
  .. ',"payload":' .. payload .. '}')

-- Already due and no older due job is waiting: skip the scheduler's hop. Otherwise the
-- scheduler forwards it in due order.
local first = redis.call('ZRANGE', delayedKey, 0, 0, 'WITHSCORES')
if dueAt <= now and (first[2] == nil or tonumber(first[2]) > now) then
  redis.call('LPUSH', readyKey, id)
else
  redis.call('ZADD', delayedKey, dueAt, id)
  wakeIfHead(delayedKey, wakeKey, id)
end
return {1, dueAt}
