--[[ requeueOrphan: put a job whose record sits in jobs with its id in no structure (the
  article's hash orphan) back on ready, so it runs; re-checked here, atomically.
  KEYS[1] jobs    (HASH)  id -> record
  KEYS[2] delayed (ZSET)  id -> due time
  KEYS[3] ready   (LIST)  due ids; an orphan goes on the right, to run next (it waited long enough)
  KEYS[4] dead    (ZSET)  id -> time it was dead-lettered
  KEYS[5..] in-flight (LIST)  every consumer's claimed ids, as found just before the call
  ARGV[1] job id
  ARGV[2] reason, kept in the record as recoveredFrom
  Returns 1 requeued; 2 dead-lettered (its record is unreadable, it is kept verbatim under
  "malformed"); 0 not an orphan (no record, or the id is in one of the places): nothing changed.
  Invariant: a record whose id is in no place gets exactly one place, in one step.
]]
--@include now
--@include record
local jobsKey, delayedKey, readyKey, deadKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local id, reason = ARGV[1], ARGV[2]

local raw = redis.call('HGET', jobsKey, id)
if not raw then return 0 end
if redis.call('ZSCORE', delayedKey, id) or redis.call('ZSCORE', deadKey, id)
    or redis.call('LPOS', readyKey, id) then
  return 0
end
for k = 5, #KEYS do
  if redis.call('LPOS', KEYS[k], id) then return 0 end
end

local now = nowMs()
local head, tail = nil, nil
if pcall(cjson.decode, raw) then head, tail = splitRecord(raw) end
if not head then
  redis.call('HSET', jobsKey, id, wrapMalformed(raw, 'malformed record of an orphan; ' .. reason, now))
  redis.call('ZADD', deadKey, now, id)
  return 2
end
head.recoveredFrom = reason
redis.call('HSET', jobsKey, id, joinRecord(head, tail))
redis.call('RPUSH', readyKey, id)
return 1
