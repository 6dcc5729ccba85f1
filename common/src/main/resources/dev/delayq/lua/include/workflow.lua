-- Workflows: batches, jobs that wait for other jobs, and results (docs/workflows.md). A job that
-- takes part in one carries "wf":1 in its record head (a batch member also "b":"<batch id>", a
-- waiting job "w":[its dependencies]); only such a job's end is settled here, in the same script
-- as the end itself, so a callback or a release happens exactly once, with the end that caused
-- it. An ordinary job's end never comes here: the acknowledgement of the hot path reads nothing
-- of this. The keys are named from the queue's key base '<prefix>:{<queue>}:' (one slot: a
-- workflow needs queue.shards 1), as the time wheel's are named from delayed:
--   batches               ZSET  batch id -> created at, for batches not finished nor cancelled
--   batch:<id>            HASH  state (open|closed|finished|cancelled), total, done, dead,
--                               cancelled, createdAt, endedAt, and per callback (success,
--                               complete) <name>Id, <name>Head, <name>Payload, <name>Delay;
--                               fired: the id of the callback enqueued
--   batch:<id>:pending    SET   the batch's jobs that have not ended
--   waiting               HASH  id of a job waiting for others -> '<policy>:<delay ms>:<since ms>'
--   waitfor:<id>          SET   the jobs that job still waits for
--   waiters:<id>          SET   the jobs waiting for job <id>
--   results               HASH  id -> '<outcome>:<ended at ms>:<result JSON, or nothing>'
--   results:expiry        ZSET  those ids -> when they are forgotten, epoch ms
--@include now
--@include record
--@include wake
--@include stats

-- The context of a settle: the key base, how long results are kept (ms), and the time.
local function workflowContext(base, keepMs, now)
  return { base = base, keep = tonumber(keepMs) or 0, now = now or nowMs(),
    jobs = base .. 'jobs', delayed = base .. 'delayed', ready = base .. 'ready', wake = base .. 'wake',
    dead = base .. 'dead', stats = base .. 'stats', waiting = base .. 'waiting',
    batches = base .. 'batches', results = base .. 'results', resultsExpiry = base .. 'results:expiry' }
end

-- True when the record's job takes part in a workflow ("wf":1 in its head).
local function recordInWorkflow(raw)
  return raw ~= nil and raw ~= false and string.find(headText(raw), ',"wf":1', 1, true) ~= nil
end

-- The batch id of a record, or nil. (Inside a JSON string a quote is escaped, so ,"b":" is the
-- member's key wherever it appears in the head.)
local function recordBatch(raw)
  return string.match(headText(raw), ',"b":"([^"]*)"')
end

-- Keeps how the job of id ended, and its result, for ctx.keep ms.
local function keepResult(ctx, id, outcome, value)
  if ctx.keep <= 0 then return end
  redis.call('HSET', ctx.results, id, outcome .. ':' .. ctx.now .. ':' .. (value or ''))
  redis.call('ZADD', ctx.resultsExpiry, ctx.now + ctx.keep, id)
end

-- How the job of id ended, from the kept results: 'done', 'dead', 'cancelled', 'purged', or nil.
local function keptOutcome(ctx, id)
  local kept = redis.call('HGET', ctx.results, id)
  if not kept then return nil end
  return string.match(kept, '^(%a+):')
end

-- Puts a new job (a callback, or a waiting job released) in its place: ready when due, else the
-- time wheel, waking the scheduler when it became the earliest.
local function placeDue(ctx, id, dueAt)
  if dueAt <= ctx.now then
    redis.call('LPUSH', ctx.ready, id)
  else
    wheelAdd(ctx.delayed, dueAt, id)
    wakeIfHead(ctx.delayed, ctx.wake, id)
  end
end

-- Enqueues a finished batch's callback (which: 'success' or 'complete'), once: the batch's
-- state moved to finished in the same step. A batch without that callback fires nothing.
local function fireCallback(ctx, batchKey, which)
  local cb = redis.call('HMGET', batchKey, which .. 'Id', which .. 'Head', which .. 'Payload', which .. 'Delay')
  if not cb[1] then return end
  local dueAt = ctx.now + (tonumber(cb[4]) or 0)
  if redis.call('HSETNX', ctx.jobs, cb[1], newRecord(cb[2], ctx.now, dueAt, cb[3])) == 1 then
    placeDue(ctx, cb[1], dueAt)
    redis.call('HSET', batchKey, 'fired', cb[1])
    addCount(ctx.stats, 'count:enqueued:' .. recordType(cb[2]), 1)
  end
end

-- Finishes a closed batch whose jobs have all ended: success when every one ended done, else
-- complete; the batch leaves batches and its keys are kept for ctx.keep ms.
local function finishBatch(ctx, batchId, batchKey)
  local counts = redis.call('HMGET', batchKey, 'dead', 'cancelled')
  local which = ((tonumber(counts[1]) or 0) + (tonumber(counts[2]) or 0) == 0) and 'success' or 'complete'
  redis.call('HSET', batchKey, 'state', 'finished', 'endedAt', ctx.now, 'firedAs', which)
  redis.call('ZREM', ctx.batches, batchId)
  redis.call('DEL', batchKey .. ':pending')
  fireCallback(ctx, batchKey, which)
  if ctx.keep > 0 then redis.call('PEXPIRE', batchKey, ctx.keep) end
end

-- Counts the end of a batch's job, once (it leaves the pending set only once however often it
-- ran), and finishes a closed batch whose last job this was.
local function settleBatchMember(ctx, batchId, id, outcome)
  local batchKey = ctx.base .. 'batch:' .. batchId
  if redis.call('SREM', batchKey .. ':pending', id) == 0 then return end
  redis.call('HINCRBY', batchKey, outcome == 'done' and 'done' or (outcome == 'cancelled' and 'cancelled' or 'dead'), 1)
  if redis.call('HGET', batchKey, 'state') == 'closed' and redis.call('SCARD', batchKey .. ':pending') == 0 then
    finishBatch(ctx, batchId, batchKey)
  end
end

-- The waiting job's policy for a dependency that did not end done ('fail', 'run' or 'wait') and
-- its delay in ms, from the waiting hash; nil when it is not waiting.
local function waitingInfo(ctx, id)
  local info = redis.call('HGET', ctx.waiting, id)
  if not info then return nil end
  local policy, delay = string.match(info, '^(%a+):(%d+):')
  return policy, tonumber(delay) or 0
end

-- Takes a waiting job out of waiting: its sets go, and it leaves the waiters of every
-- dependency it still waited for.
local function leaveWaiting(ctx, id)
  local waitforKey = ctx.base .. 'waitfor:' .. id
  for _, dep in ipairs(redis.call('SMEMBERS', waitforKey)) do
    local waitersKey = ctx.base .. 'waiters:' .. dep
    redis.call('SREM', waitersKey, id)
  end
  redis.call('DEL', waitforKey)
  redis.call('HDEL', ctx.waiting, id)
end

-- A waiting job whose dependencies all ended: due its own delay from now, its record saying so.
local function releaseWaiting(ctx, id, delay)
  leaveWaiting(ctx, id)
  local raw = redis.call('HGET', ctx.jobs, id)
  local dueAt = ctx.now + delay
  local head, tail = splitRecord(raw or '')
  if head then
    head.dueAt = dueAt
    local record = joinRecord(head, tail)
    if record then redis.call('HSET', ctx.jobs, id, record) end
  end
  placeDue(ctx, id, dueAt)
end

-- Settles the end of a job that takes part in a workflow (outcome 'done', 'dead', 'cancelled' or
-- 'purged'; raw its record as it was, value its result JSON or nil): keeps its result, counts it
-- in its batch (which may fire the batch's callback), and tells the jobs waiting for it. A
-- waiting job whose policy says fail ends dead in turn, and its own end is settled the same way.
local function settleEnd(ctx, id, outcome, raw, value)
  local work = { { id, outcome, raw, value } }
  while #work > 0 do
    local e = table.remove(work)
    id, outcome, raw, value = e[1], e[2], e[3], e[4]
    if outcome ~= 'purged' then keepResult(ctx, id, outcome, value) end
    local batchId = raw and recordBatch(raw)
    if batchId then settleBatchMember(ctx, batchId, id, outcome) end
    local waitersKey = ctx.base .. 'waiters:' .. id
    local left = 0
    for _, w in ipairs(redis.call('SMEMBERS', waitersKey)) do
      local policy, delay = waitingInfo(ctx, w)
      if not policy then
        redis.call('SREM', waitersKey, w)
      elseif outcome == 'done' or policy == 'run' then
        redis.call('SREM', waitersKey, w)
        redis.call('SREM', ctx.base .. 'waitfor:' .. w, id)
        if redis.call('SCARD', ctx.base .. 'waitfor:' .. w) == 0 then releaseWaiting(ctx, w, delay) end
      elseif policy == 'wait' and outcome == 'dead' then
        left = left + 1 -- an operator retries the dependency (it may then end done) or cancels w
      else
        leaveWaiting(ctx, w)
        local wraw = redis.call('HGET', ctx.jobs, w) or ''
        local head, tail = splitRecord(wraw)
        local record = deadRecord(wraw, head, tail, 'dependency ' .. id .. ' ended ' .. outcome, ctx.now)
        redis.call('HSET', ctx.jobs, w, record)
        redis.call('ZADD', ctx.dead, ctx.now, w)
        work[#work + 1] = { w, 'dead', record, nil }
      end
    end
    if left == 0 then redis.call('DEL', waitersKey) end
  end
end
