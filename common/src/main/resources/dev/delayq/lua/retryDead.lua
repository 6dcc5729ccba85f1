--[[ retryDead: give dead jobs another run, now, with their attempts counted afresh.
  KEYS[1] dead  (ZSET)  id -> time it was dead-lettered, epoch ms
  KEYS[2] jobs  (HASH)  id -> record
  KEYS[3] ready (LIST)  due ids; retried ids go on the left, behind the jobs already waiting
  ARGV[1..n] job ids (an operator's one id, or a batch of at most 1,000 from `dead retry --all`);
          when the first is '--', the second is the queue's key base '<prefix>:{<queue>}:' and
          the ids follow: a workflow's job retried is pending again in its batch (which had
          counted it dead) unless the batch finished, and its kept outcome is forgotten
  Returns one code per id, in order:
     1 retried: attempt back to 1, lost back to 0, dueAt = now, lastError moved to
       previousError, deadAt removed; the payload is kept byte for byte
     0 not dead (unknown, or in another place): nothing changed
    -1 dead without a record: the id is dropped from dead (nothing could ever run it)
    -2 dead with a record that cannot be read or written back: left in dead, unchanged
       (inspect it, then purge it)
  Invariant: the id leaves dead and enters ready in the same step, with its record, built before
  anything is removed.
]]
--@include now
--@include record
--@include workflow
local deadKey, jobsKey, readyKey = KEYS[1], KEYS[2], KEYS[3]

local now = nowMs()
local out = {}
local first, base = 1, nil
if ARGV[1] == '--' then first, base = 3, ARGV[2] end
for i = first, #ARGV do
  local id = ARGV[i]
  local code = 0
  if redis.call('ZSCORE', deadKey, id) then
    local raw = redis.call('HGET', jobsKey, id)
    if not raw then
      redis.call('ZREM', deadKey, id)
      code = -1
    else
      local head, tail = readWholeRecord(raw)
      local record = nil
      if head and head.malformed == nil then
        head.attempt = 1
        head.lost = 0
        head.dueAt = now
        if head.lastError ~= nil then head.previousError = head.lastError end
        head.lastError = nil
        head.deadAt = nil
        record = joinRecord(head, tail)
      end
      if not record then
        code = -2
      else
        redis.call('HSET', jobsKey, id, record)
        redis.call('ZREM', deadKey, id)
        redis.call('LPUSH', readyKey, id)
        code = 1
        if base and recordInWorkflow(raw) then
          redis.call('HDEL', base .. 'results', id)
          redis.call('ZREM', base .. 'results:expiry', id)
          local batchId = recordBatch(raw)
          local batchKey = batchId and base .. 'batch:' .. batchId
          local state = batchKey and redis.call('HGET', batchKey, 'state')
          if (state == 'open' or state == 'closed') and redis.call('SADD', batchKey .. ':pending', id) == 1 then
            redis.call('HINCRBY', batchKey, 'dead', -1)
          end
        end
      end
    end
  end
  out[#out + 1] = code
end
return out
