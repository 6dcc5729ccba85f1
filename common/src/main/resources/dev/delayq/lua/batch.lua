--[[ batch: open, close or cancel a batch (include/workflow.lua names its keys).
  KEYS[1] batches (ZSET) batch id -> created at, for batches not finished nor cancelled
  ARGV[1] the queue's key base '<prefix>:{<queue>}:'
  ARGV[2] "open" | "close" | "cancel"
  ARGV[3] batch id
  ARGV[4] how long a finished or cancelled batch is kept, ms (results are kept as long)
  close, from ARGV[5]: per callback, success then complete: its job id ('' for none), record head
    (compact, with "wf":1), payload JSON, delay in ms after the batch finished
  Returns open: its created-at time; close: "closed", or "finished" when every job of the batch
  had ended already (its callback is enqueued in this step); cancel: the ids of its jobs that had
  not ended, each before the jobs of the batch it waits for (the caller cancels them in this order,
  so that no dependency's cancel fails a waiter first; their ends fire nothing).
  Errors: "BATCH <id> ..." when the batch exists already (open), does not exist, or is not open
  (close: closed twice, finished or cancelled; cancel: finished or cancelled).
  Invariant: a batch fires its callback once, in the step that saw it closed with no job pending:
  here when that is at its close, else in the script that ended its last job.
]]
--@include now
--@include workflow
local base, op, batchId = ARGV[1], ARGV[2], ARGV[3]
local ctx = workflowContext(base, ARGV[4])
local batchKey = base .. 'batch:' .. batchId
local state = redis.call('HGET', batchKey, 'state')

if op == 'open' then
  if state then return redis.error_reply('BATCH ' .. batchId .. ' exists already (' .. state .. ')') end
  redis.call('HSET', batchKey, 'state', 'open', 'total', 0, 'done', 0, 'dead', 0, 'cancelled', 0, 'createdAt', ctx.now)
  redis.call('ZADD', KEYS[1], ctx.now, batchId)
  return ctx.now
end
if not state then return redis.error_reply('BATCH ' .. batchId .. ' does not exist (never opened, or finished and forgotten)') end
if op == 'close' then
  if state ~= 'open' then
    return redis.error_reply('BATCH ' .. batchId .. ' cannot be closed: it is ' .. state
      .. (state == 'closed' and ' already' or ''))
  end
  local at = 5
  for _, which in ipairs({ 'success', 'complete' }) do
    if ARGV[at] ~= '' then
      redis.call('HSET', batchKey, which .. 'Id', ARGV[at], which .. 'Head', ARGV[at + 1],
        which .. 'Payload', ARGV[at + 2], which .. 'Delay', ARGV[at + 3])
    end
    at = at + 4
  end
  redis.call('HSET', batchKey, 'state', 'closed', 'closedAt', ctx.now)
  if redis.call('SCARD', batchKey .. ':pending') == 0 then
    finishBatch(ctx, batchId, batchKey)
    return 'finished'
  end
  return 'closed'
end
if op == 'cancel' then
  if state ~= 'open' and state ~= 'closed' then
    return redis.error_reply('BATCH ' .. batchId .. ' cannot be cancelled: it is ' .. state)
  end
  redis.call('HSET', batchKey, 'state', 'cancelled', 'endedAt', ctx.now)
  redis.call('ZREM', KEYS[1], batchId)
  local pending = redis.call('SMEMBERS', batchKey .. ':pending')
  if ctx.keep > 0 then
    redis.call('PEXPIRE', batchKey, ctx.keep)
    redis.call('PEXPIRE', batchKey .. ':pending', ctx.keep)
  end
  -- Each job before the jobs it waits for: the cancel of a dependency fails its waiters (a
  -- cancelled dependency never ends done), which would leave a job of the batch dead behind the
  -- caller that withdraws them in turn. A depth-first walk over the waiters sets, kept on a table
  -- rather than the call stack, since a chain may be longer than Lua's nesting allows.
  local inBatch, seen, ordered = {}, {}, {}
  for _, id in ipairs(pending) do inBatch[id] = true end
  for _, root in ipairs(pending) do
    if not seen[root] then
      seen[root] = true
      local stack = { { id = root, next = 1 } }
      while #stack > 0 do
        local top = stack[#stack]
        top.waiters = top.waiters or redis.call('SMEMBERS', base .. 'waiters:' .. top.id)
        local w = top.waiters[top.next]
        top.next = top.next + 1
        if w == nil then
          ordered[#ordered + 1] = top.id
          stack[#stack] = nil
        elseif inBatch[w] and not seen[w] then
          seen[w] = true
          stack[#stack + 1] = { id = w, next = 1 }
        end
      end
    end
  end
  return ordered
end
return redis.error_reply('batch.lua: unknown operation ' .. tostring(op))
