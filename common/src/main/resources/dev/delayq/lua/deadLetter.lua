--[[ deadLetter: a claimed job will not run again on its own; keep it with its last error.
  KEYS[1] in-flight (LIST)  the consumer's claimed ids
  KEYS[2] jobs      (HASH)  id -> record
  KEYS[3] dead      (ZSET)  id -> time it was dead-lettered, epoch ms
  ARGV[1] job id
  ARGV[2] error text
  Returns 1, or 0 when fenced (the id is no longer in this consumer's list).
  Invariant: the id leaves the in-flight list and enters dead in one step; its record stays
  (an unreadable one is kept verbatim under "malformed").
]]
--@include now
--@include record
local inflightKey, jobsKey, deadKey = KEYS[1], KEYS[2], KEYS[3]
local id, err = ARGV[1], ARGV[2]

if redis.call('LREM', inflightKey, 1, id) == 0 then return 0 end
local now = nowMs()
local raw = redis.call('HGET', jobsKey, id) or ''
local head, tail = nil, nil
-- the whole record must parse: a readable head in front of a broken payload is still unreadable
if pcall(cjson.decode, raw) then head, tail = splitRecord(raw) end
if head then
  head.lastError = err
  head.deadAt = now
  redis.call('HSET', jobsKey, id, joinRecord(head, tail))
else
  redis.call('HSET', jobsKey, id, wrapMalformed(raw, err, now))
end
redis.call('ZADD', deadKey, now, id)
return 1
