--[[ moveToDelayed: a claimed job runs again later, as a retry after a failure or as the
  handler's own reschedule.
  KEYS[1] in-flight (LIST)  the consumer's claimed ids
  KEYS[2] jobs      (HASH)  id -> record
  KEYS[3] delayed   (ZSET)  id -> due time, epoch ms
  KEYS[4] wake      (LIST)  the scheduler's wake-up token
  ARGV[1] job id
  ARGV[2] delay in ms from Redis TIME
  ARGV[3] "retry": attempt + 1 and lastError = ARGV[4];
          "reschedule": attempt back to 1, lastError cleared
  ARGV[4] error text (retry only)
  Returns the new due time; 0 when fenced (the id is no longer in this consumer's list);
  -1 when the record is unreadable (the caller dead-letters it instead).
  Invariant: the id leaves the in-flight list and enters delayed in one step, record updated.
]]
--@include now
--@include record
--@include wake
local inflightKey, jobsKey, delayedKey, wakeKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local id, delay, mode, err = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]

local head, tail = splitRecord(redis.call('HGET', jobsKey, id) or '')
if not head then return -1 end
if redis.call('LREM', inflightKey, 1, id) == 0 then return 0 end

local dueAt = nowMs() + delay
head.dueAt = dueAt
if mode == 'retry' then
  head.attempt = (tonumber(head.attempt) or 1) + 1
  head.lastError = err
else
  head.attempt = 1
  head.lastError = nil
  head.runs = (tonumber(head.runs) or 1) + 1
end
redis.call('HSET', jobsKey, id, joinRecord(head, tail))
redis.call('ZADD', delayedKey, dueAt, id)
wakeIfHead(delayedKey, wakeKey, id)
return dueAt
