--[[ requeueOrphan: put a job whose record sits in jobs with its id in no structure (a record
  that lost its place: no one would ever run it) back on ready, so it runs; re-checked here,
  atomically.
  KEYS[1] jobs    (HASH)  id -> record
  KEYS[2] delayed (wheel)  id -> due time, epoch ms (include/wheel: keys named after this one)
  KEYS[3] ready   (LIST)  due ids; an orphan goes on the right, to run next (it waited long enough)
  KEYS[4] dead    (ZSET)  id -> time it was dead-lettered
  KEYS[5] waiting (HASH)  id of a job waiting for other jobs -> its policy (a place too)
  KEYS[6..] in-flight (LIST)  every consumer's deliveries '<token>|<id>', as found just before
                              the call
  ARGV[1] job id
  ARGV[2] reason, kept in the record as recoveredFrom
  Returns 1 requeued; 2 dead-lettered (its record is unreadable, it is kept verbatim under
  "malformed"); 0 not an orphan (no record, or the id is in one of the places): nothing changed.
  Invariant: a record whose id is in no place gets exactly one place, in one step, its new
  record built before it is placed.
]]
--@include now
--@include record
--@include wheel
--@include delivery
local jobsKey, delayedKey, readyKey, deadKey, waitingKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local id, reason = ARGV[1], ARGV[2]

local raw = redis.call('HGET', jobsKey, id)
if not raw then return 0 end
if wheelScore(delayedKey, recordDue(raw), id) or redis.call('ZSCORE', deadKey, id)
    or redis.call('LPOS', readyKey, id) or redis.call('HEXISTS', waitingKey, id) == 1 then
  return 0
end
-- in-flight lists are short (a consumer's prefetch), so reading them whole is cheap
for k = 6, #KEYS do
  for _, delivery in ipairs(redis.call('LRANGE', KEYS[k], 0, -1)) do
    if idOf(delivery) == id then return 0 end
  end
end

local now = nowMs()
local head, tail = readWholeRecord(raw)
local record, why = nil, 'malformed record of an orphan; ' .. reason
if head then
  head.recoveredFrom = reason
  record, why = joinRecord(head, tail)
  if not record then why = 'malformed record of an orphan: ' .. why .. '; ' .. reason end
end
if not record then
  redis.call('HSET', jobsKey, id, wrapMalformed(raw, why, now))
  redis.call('ZADD', deadKey, now, id)
  return 2
end
redis.call('HSET', jobsKey, id, record)
redis.call('RPUSH', readyKey, id)
return 1
