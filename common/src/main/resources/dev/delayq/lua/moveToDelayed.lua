--[[ moveToDelayed: a delivered job runs again later, as a retry after a failure or as the
  handler's own reschedule.
  KEYS[1] in-flight (LIST)  the consumer's deliveries '<token>|<id>'
  KEYS[2] jobs      (HASH)  id -> record
  KEYS[3] delayed   (wheel)  id -> due time, epoch ms (include/wheel: keys named after this one)
  KEYS[4] wake      (LIST)  the scheduler's wake-up token, and the name of the standbys' wake channel
  KEYS[5] dead      (ZSET)  id -> time it was dead-lettered, epoch ms
  ARGV[1] delivery '<token>|<id>'
  ARGV[2] delay in ms from Redis TIME
  ARGV[3] "retry": attempt + 1 and lastError = ARGV[4];
          "reschedule": attempt back to 1, lastError cleared
          "wait": the handler was rate limited: attempt and lastError stay (no attempt burned)
  ARGV[4] error text (retry only)
  Returns the new due time; 0 when fenced (the delivery is no longer in this consumer's list:
  nothing changed); -1 when the record cannot be read or written back: the job went to dead
  instead, with the reason.
  Invariant: the id leaves the in-flight list and enters delayed (or dead) in one step, with its
  record updated; the new record is built before anything is removed.
]]
--@include now
--@include record
--@include wake
--@include delivery
local inflightKey, jobsKey, delayedKey, wakeKey, deadKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local delivery, delay, mode, err = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
local id = idOf(delivery)

if not redis.call('LPOS', inflightKey, delivery, 'RANK', -1) then return 0 end
local now = nowMs()
local raw = redis.call('HGET', jobsKey, id) or ''
local head, tail = splitRecord(raw)
local record, why = nil, 'the record is not a JSON object with a payload'
local dueAt = now + delay
if head then
  head.dueAt = dueAt
  -- a new due time: a pause that held the job before no longer explains its lateness
  head.heldAt = nil
  if mode == 'wait' then
    -- nothing else changes
  elseif mode == 'retry' then
    head.attempt = (tonumber(head.attempt) or 1) + 1
    head.lastError = err
  else
    head.attempt = 1
    head.lastError = nil
    head.runs = (tonumber(head.runs) or 1) + 1
  end
  record, why = joinRecord(head, tail)
end

redis.call('LREM', inflightKey, -1, delivery)
if not record then
  local reason = 'malformed record: cannot ' .. mode .. ' it (' .. why .. ')'
  if mode == 'retry' then reason = reason .. '; ' .. err end
  redis.call('HSET', jobsKey, id, wrapMalformed(raw, reason, now))
  redis.call('ZADD', deadKey, now, id)
  return -1
end
redis.call('HSET', jobsKey, id, record)
wheelAdd(delayedKey, dueAt, id)
wakeIfHead(delayedKey, wakeKey, id)
return dueAt
