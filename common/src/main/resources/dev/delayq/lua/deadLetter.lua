--[[ deadLetter: a delivered job will not run again on its own; keep it with its last error.
  KEYS[1] in-flight (LIST)  the consumer's deliveries '<token>|<id>'
  KEYS[2] jobs      (HASH)  id -> record
  KEYS[3] dead      (ZSET)  id -> time it was dead-lettered, epoch ms
  ARGV[1] delivery '<token>|<id>'
  ARGV[2] error text
  Returns 1, or 0 when fenced (the delivery is no longer in this consumer's list: nothing changed).
  Invariant: the id leaves the in-flight list and enters dead in one step; its record stays, with
  lastError and deadAt, or kept verbatim under "malformed" when it cannot be read or written back
  (built before anything is removed).
]]
--@include now
--@include record
--@include delivery
local inflightKey, jobsKey, deadKey = KEYS[1], KEYS[2], KEYS[3]
local delivery, err = ARGV[1], ARGV[2]
local id = idOf(delivery)

if not redis.call('LPOS', inflightKey, delivery, 'RANK', -1) then return 0 end
local now = nowMs()
local raw = redis.call('HGET', jobsKey, id) or ''
local head, tail = readWholeRecord(raw)
local record = deadRecord(raw, head, tail, err, now)
redis.call('LREM', inflightKey, -1, delivery)
redis.call('HSET', jobsKey, id, record)
redis.call('ZADD', deadKey, now, id)
return 1
