--[[ cancel: withdraw a job that has not started.
  KEYS[1] jobs    (HASH)  id -> record
  KEYS[2] delayed (wheel)  id -> due time, epoch ms (include/wheel: keys named after this one)
  KEYS[3] ready   (LIST)  due ids
  KEYS[4] ended   (HASH)  caller-chosen id -> how its job ended (id retention)
  KEYS[5] ended:expiry (ZSET) those ids -> when they are free again, epoch ms
  ARGV[1] job id
  ARGV[2] queue.idRetention in ms (0: off)
  ARGV[3] the queue's key base '<prefix>:{<queue>}:' (absent: ''): a job waiting for a handler is
          in nohandler:<type>, named from it and its record's type; a job waiting for other jobs
          is in waiting, and a workflow's job has its end settled (include/workflow.lua)
  ARGV[4] how long results and finished batches are kept, ms (absent: 0)
  Returns 1 when the job was delayed, ready, waiting for a handler or for other jobs and is now gone; 0 otherwise
  (unknown, running, dead or done: nothing is changed).
  Invariant: the id and its record leave together; a kept id enters ended in that step, and a
  workflow's job is settled in it (its batch counts it cancelled, the jobs waiting for it are told).
]]
--@include now
--@include delivery
--@include ended
--@include wheel
--@include workflow
local jobsKey, delayedKey, readyKey = KEYS[1], KEYS[2], KEYS[3]
local id = ARGV[1]
local retain = retention(KEYS[4], KEYS[5], ARGV[2])

local raw = redis.call('HGET', jobsKey, id)
-- waiting for a handler: its type's set, and the index when that set empties
local function leftWaiting()
  local base = ARGV[3] or ''
  if base == '' or not raw then return false end
  local jobType = recordType(raw)
  local waitingKey = base .. 'nohandler:' .. jobType
  if redis.call('ZREM', waitingKey, id) == 0 then return false end
  if redis.call('EXISTS', waitingKey) == 0 then redis.call('SREM', base .. 'nohandler', jobType) end
  return true
end
local flow = (ARGV[3] or '') ~= '' and recordInWorkflow(raw) and workflowContext(ARGV[3], ARGV[4] or 0) or nil
-- waiting for other jobs: out of waiting and of the waiters of what it waited for
local function leftWaitingForJobs()
  if not flow or redis.call('HEXISTS', flow.waiting, id) == 0 then return false end
  leaveWaiting(flow, id)
  return true
end
if wheelRemove(delayedKey, recordDue(raw), id) or redis.call('LREM', readyKey, 1, id) == 1 or leftWaiting()
    or leftWaitingForJobs() then
  rememberEnded(retain, id, raw, 'cancelled')
  redis.call('HDEL', jobsKey, id)
  if flow then settleEnd(flow, id, 'cancelled', raw, nil) end
  return 1
end
return 0
