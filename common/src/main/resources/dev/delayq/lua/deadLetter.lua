--[[ deadLetter: a delivered job will not run again on its own; keep it with its last error.
  KEYS[1] in-flight (LIST)  the consumer's deliveries '<token>|<id>'
  KEYS[2] jobs      (HASH)  id -> record
  KEYS[3] dead      (ZSET)  id -> time it was dead-lettered, epoch ms
  ARGV[1] delivery '<token>|<id>'
  ARGV[2] error text
  ARGV[3] the queue's key base '<prefix>:{<queue>}:' (absent: ''): a job that takes part in a
          workflow has its end settled from it (include/workflow.lua)
  ARGV[4] how long results and finished batches are kept, ms
  Returns 1, or 0 when fenced (the delivery is no longer in this consumer's list: nothing changed).
  Invariant: the id leaves the in-flight list and enters dead in one step; its record stays, with
  lastError and deadAt, or kept verbatim under "malformed" when it cannot be read or written back
  (built before anything is removed). A workflow's job is settled in the same step: its batch
  counts it dead, and the jobs waiting for it are told.
]]
--@include now
--@include record
--@include delivery
--@include workflow
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
if (ARGV[3] or '') ~= '' and recordInWorkflow(raw) then
  settleEnd(workflowContext(ARGV[3], ARGV[4], now), id, 'dead', record, nil)
end
return 1
