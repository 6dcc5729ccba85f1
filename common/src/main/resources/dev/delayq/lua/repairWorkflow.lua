--[[ repairWorkflow: delayq recover's repair of one workflow breach that delayq check found
  (InvariantCheck: WAITING_RELEASABLE, WAITING_WITHOUT_RECORD, BATCH_MEMBER_LOST,
  BATCH_NOT_FIRED). The breach is looked for again here, atomically: a worker that ended, released
  or settled the job since the check leaves nothing to repair, and the call changes nothing.
  The keys are named from the key base as include/workflow.lua names them.
  KEYS[1] jobs     (HASH)  id -> record
  KEYS[2] waiting  (HASH)  id of a job waiting for others -> '<policy>:<delay ms>:<since ms>'
  KEYS[3] batches  (ZSET)  batch id -> created at, for batches not finished nor cancelled
  ARGV[1] the queue's key base '<prefix>:{<queue>}:'
  ARGV[2] how long results and finished batches are kept, ms
  ARGV[3] what to repair:
    "release" ARGV[4] job id, ARGV[5] the reason kept in its lastError if it goes dead: a
              waiting job whose dependencies have all ended is settled as their ends would have
              settled it: released (due its own delay from now), or dead when one ended dead,
              cancelled or purged and its policy says fail ("wait" fails too for a cancelled or
              purged one, as settleEnd does); a dependency that left no trace (no record, no
              kept result) counts as ended done
    "forget"  ARGV[4] job id: a waiting entry without a record leaves waiting and its wait sets
    "lost"    ARGV[4] batch id, ARGV[5] job id: a pending member without a record is counted in
              its batch as it ended by its kept result, else dead (then kept so, and the jobs
              waiting for it told, as settleEnd does); that may finish the batch and fire its
              callback
    "finish"  ARGV[4] batch id: a closed batch with no job pending finishes and fires its callback
  Returns 1 released; 2 dead by its policy; 3 forgotten; 4 member
  counted dead; 5 counted dead, and the batch finished with it; 6 batch finished; 0 nothing to
  repair any more (nothing changed): the job is not waiting, has a record (forget, lost) or none
  (release), waits for a job still pending or for a dead one under policy wait; the member is no
  longer pending; the batch is not closed or has jobs pending.
  Invariant: a released job enters its place (delayed or ready) as it leaves waiting, a failed
  one dead, in one step; a batch fires its callback once, in the step that finishes it.
]]
--@include now
--@include record
--@include wake
--@include stats
--@include workflow
local jobsKey, waitingKey, batchesKey = KEYS[1], KEYS[2], KEYS[3]
local base, op = ARGV[1], ARGV[3]
local ctx = workflowContext(base, ARGV[2])
ctx.jobs, ctx.waiting, ctx.batches = jobsKey, waitingKey, batchesKey

-- How a dependency of a waiting job stands now: 'pending' or 'dead' (it has a record), else how
-- it ended as kept ('done', 'dead', 'cancelled'; nil when nothing was kept).
local function dependencyState(dep)
  if redis.call('HEXISTS', jobsKey, dep) == 1 then
    return redis.call('ZSCORE', ctx.dead, dep) and 'dead' or 'pending'
  end
  return keptOutcome(ctx, dep) or 'done', true
end

if op == 'release' then
  local id = ARGV[4]
  local policy, delay = waitingInfo(ctx, id)
  local raw = redis.call('HGET', jobsKey, id)
  if not policy or not raw then return 0 end
  local failedBy = nil
  for _, dep in ipairs(redis.call('SMEMBERS', base .. 'waitfor:' .. id)) do
    local state, gone = dependencyState(dep)
    if state == 'pending' or (state == 'dead' and not gone and policy == 'wait') then return 0 end
    -- dead with its record gone (purged, or a lost job counted dead): nothing is left to retry,
    -- so it fails a wait too
    if state ~= 'done' and policy ~= 'run' and not failedBy then
      failedBy = 'dependency ' .. dep .. ' ended ' .. (gone and state == 'dead' and 'dead, its record gone' or state)
    end
  end
  if not failedBy then
    releaseWaiting(ctx, id, delay)
    return 1
  end
  leaveWaiting(ctx, id)
  local head, tail = splitRecord(raw)
  local record = deadRecord(raw, head, tail, failedBy .. ' (' .. ARGV[5] .. ')', ctx.now)
  redis.call('HSET', jobsKey, id, record)
  redis.call('ZADD', ctx.dead, ctx.now, id)
  settleEnd(ctx, id, 'dead', record, nil)
  return 2
end

if op == 'forget' then
  local id = ARGV[4]
  if redis.call('HEXISTS', waitingKey, id) == 0 or redis.call('HEXISTS', jobsKey, id) == 1 then return 0 end
  leaveWaiting(ctx, id)
  return 3
end

local batchId = ARGV[4]
local batchKey = base .. 'batch:' .. batchId
if op == 'lost' then
  local id = ARGV[5]
  if redis.call('HEXISTS', jobsKey, id) == 1 or redis.call('SISMEMBER', batchKey .. ':pending', id) == 0 then
    return 0
  end
  local kept = keptOutcome(ctx, id)
  settleBatchMember(ctx, batchId, id, kept or 'dead')
  -- no kept result: its end was never settled at all, so its waiters are told now (raw nil: the
  -- batch counted it just above)
  if not kept then settleEnd(ctx, id, 'dead', nil, nil) end
  return redis.call('HGET', batchKey, 'state') == 'finished' and 5 or 4
end

if op == 'finish' then
  if redis.call('HGET', batchKey, 'state') ~= 'closed' or redis.call('SCARD', batchKey .. ':pending') > 0 then
    return 0
  end
  finishBatch(ctx, batchId, batchKey)
  return 6
end
return redis.error_reply('repairWorkflow.lua: unknown repair ' .. tostring(op))
