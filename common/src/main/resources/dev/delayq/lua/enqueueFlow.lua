--[[ enqueueFlow: accept jobs that take part in a workflow: a batch's jobs, jobs that wait for
  other jobs, or both (include/workflow.lua names the keys). Every job is checked before anything
  is written, so a bad one refuses the whole call and nothing is enqueued.
  KEYS[1] jobs     (HASH)  id -> record
  KEYS[2] delayed  (wheel)  id -> due time, epoch ms (include/wheel: keys named after this one)
  KEYS[3] ready    (LIST)  due ids
  KEYS[4] wake     (LIST)  the scheduler's wake-up token, and the standbys' wake channel
  KEYS[5] stats    (HASH)  count:enqueued:<type> grows by the jobs accepted
  KEYS[6] ended    (HASH)  caller-chosen id -> how its job ended (id retention)
  KEYS[7] ended:expiry (ZSET) those ids -> when they are free again, epoch ms
  KEYS[8] dead     (ZSET)  id -> time it was dead-lettered
  ARGV[1] the queue's key base '<prefix>:{<queue>}:' (the workflow keys are named from it)
  ARGV[2] queue.maxPayloadBytes
  ARGV[3] how long results and finished batches are kept, ms
  ARGV[4] the batch every job of the call joins, '' for none
  ARGV, from ARGV[5], per job: id, record head (compact, with "wf":1, and "b" / "w" as they
    apply), payload, delay in ms from Redis TIME (mode "delay") or due time in epoch ms ("at"),
    mode, what to do when a dependency does not end done ("fail", "run" or "wait"), the number n
    of its dependencies, then their n ids
  Returns, two per job: {1, dueAt} accepted; {7, n} waiting for n jobs; {8, now} dead at once (a
  dependency ended dead, cancelled or purged and its policy says fail); as enqueue.lua: {0, -1}
  the id's job is pending (kept as it is, not added), {3, deadAt} dead, {2, freeAt} ended and
  the id still taken, {-2, bytes} payload too long.
  Errors (nothing written): "BATCH <id> ..." when the batch is unknown, finished or cancelled;
  "WAIT <id> ..." when a dependency is unknown, cannot be waited for (its end is acknowledged
  without telling anyone: it was not enqueued in a workflow), is the job itself, or comes later in
  the call (which is how a cycle would have to be written).
  Invariant: each accepted id has its record and exactly one place (delayed, ready, waiting or
  dead), written together; a batch's job is in its pending set from the same step; a waiting job
  is in the waiters set of each dependency it waits for and they in its waitfor set.
]]
--@include now
--@include record
--@include wake
--@include stats
--@include workflow
local jobsKey, delayedKey, readyKey, wakeKey, statsKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local endedKey, expiryKey, deadKey = KEYS[6], KEYS[7], KEYS[8]
local base, maxPayload, batchId = ARGV[1], tonumber(ARGV[2]), ARGV[4]
local ctx = workflowContext(base, ARGV[3])
local now = ctx.now

local batchKey = nil
if batchId ~= '' then
  batchKey = base .. 'batch:' .. batchId
  local state = redis.call('HGET', batchKey, 'state')
  if not state then return redis.error_reply('BATCH ' .. batchId .. ' does not exist (never opened, or finished and forgotten)') end
  if state == 'finished' then return redis.error_reply('BATCH ' .. batchId .. ' has finished (its callback ran): open a new batch') end
  if state == 'cancelled' then return redis.error_reply('BATCH ' .. batchId .. ' was cancelled') end
end

-- The jobs of the call, read first; the ids seen so far (a job may wait for an earlier one).
local jobs, inCall = {}, {}
local at = 5
while at <= #ARGV do
  local n = tonumber(ARGV[at + 6])
  local job = { id = ARGV[at], head = ARGV[at + 1], payload = ARGV[at + 2], when = tonumber(ARGV[at + 3]),
    mode = ARGV[at + 4], policy = ARGV[at + 5], deps = {} }
  for k = 1, n do job.deps[k] = ARGV[at + 6 + k] end
  jobs[#jobs + 1] = job
  at = at + 7 + n
end

-- How a dependency stands: 'pending' (it will end, and tell), 'done', 'dead', 'cancelled',
-- 'purged'; an error reply when it cannot be waited for.
local function dependencyState(job, dep)
  if dep == job.id then return nil, 'WAIT job ' .. job.id .. ' cannot wait for itself' end
  if inCall[dep] then return 'pending' end
  local raw = redis.call('HGET', jobsKey, dep)
  if raw then
    if not recordInWorkflow(raw) then
      return nil, 'WAIT job ' .. dep .. ' cannot be waited for: it was not enqueued in a workflow (a batch,'
        .. ' a chain, a wait, or JobOptions.awaitable()), so its end is acknowledged without telling anyone'
    end
    if redis.call('ZSCORE', deadKey, dep) then return 'dead' end
    return 'pending'
  end
  for _, later in ipairs(jobs) do
    if later.id == dep then
      return nil, 'WAIT job ' .. job.id .. ' waits for ' .. dep .. ', which comes later in the same call:'
        .. ' list a job after the jobs it waits for (jobs that wait for each other, a cycle, never run)'
    end
  end
  local kept = keptOutcome(ctx, dep)
  if kept then return kept end
  local ended = redis.call('HGET', endedKey, dep)
  if ended then return string.match(ended, '^(%a+)') end
  return nil, 'WAIT job ' .. dep .. ' does not exist (never enqueued, or ended and forgotten)'
end

-- Checks every job before anything is written: what each waits for, and whether it dies at once.
for _, job in ipairs(jobs) do
  job.waitFor, job.deadBecause = {}, nil
  for _, dep in ipairs(job.deps) do
    local state, err = dependencyState(job, dep)
    if err then return redis.error_reply(err) end
    if state == 'pending' or (state == 'dead' and job.policy == 'wait') then
      job.waitFor[#job.waitFor + 1] = dep
    elseif state ~= 'done' and job.policy ~= 'run' and not job.deadBecause then
      job.deadBecause = 'dependency ' .. dep .. ' ended ' .. state
    end
  end
  inCall[job.id] = true
end

-- When the id stays taken: the time it is free again (a passed window is trimmed here).
local function endedTaken(id)
  local freeAt = redis.call('ZSCORE', expiryKey, id)
  if not freeAt then return nil end
  freeAt = tonumber(freeAt)
  if freeAt > now then return freeAt end
  redis.call('HDEL', endedKey, id)
  redis.call('ZREM', expiryKey, id)
  return nil
end

local out = {}
local function reply(code, value)
  out[#out + 1] = code
  out[#out + 1] = value
end
for _, job in ipairs(jobs) do
  local id = job.id
  local freeAt = endedTaken(id)
  if #job.payload > maxPayload then
    reply(-2, #job.payload)
  elseif freeAt then
    reply(2, freeAt)
  elseif redis.call('HEXISTS', jobsKey, id) == 1 then
    local deadAt = redis.call('ZSCORE', deadKey, id)
    if deadAt then reply(3, tonumber(deadAt)) else reply(0, -1) end
  else
    local dueAt = job.when
    if job.mode == 'delay' then dueAt = now + job.when end
    local record = newRecord(job.head, now, dueAt, job.payload)
    if batchKey then
      redis.call('SADD', batchKey .. ':pending', id)
      redis.call('HINCRBY', batchKey, 'total', 1)
    end
    if job.deadBecause then
      local head, tail = splitRecord(record)
      record = deadRecord(record, head, tail, job.deadBecause, now)
      redis.call('HSET', jobsKey, id, record)
      redis.call('ZADD', deadKey, now, id)
      settleEnd(ctx, id, 'dead', record, nil)
      reply(8, now)
    elseif #job.waitFor > 0 then
      redis.call('HSET', jobsKey, id, record)
      redis.call('HSET', ctx.waiting, id, job.policy .. ':' .. math.max(0, dueAt - now) .. ':' .. now)
      redis.call('SADD', base .. 'waitfor:' .. id, unpack(job.waitFor))
      for _, dep in ipairs(job.waitFor) do redis.call('SADD', base .. 'waiters:' .. dep, id) end
      reply(7, #job.waitFor)
    else
      redis.call('HSET', jobsKey, id, record)
      placeDue(ctx, id, dueAt)
      reply(1, dueAt)
    end
    addCount(statsKey, 'count:enqueued:' .. recordType(job.head), 1)
  end
end
return out
