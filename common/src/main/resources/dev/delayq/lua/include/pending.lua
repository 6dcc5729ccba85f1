-- Changing a job that has not started (promote, reschedule, edit, the if-pending options of an
-- enqueue). pendingPlace() says where the job is, or why it cannot change:
--   'delayed' | 'ready'   pending: it may change
--   'dead'                dead-lettered (retry it with dead retry)
--   'running'             its record exists and it is in neither delayed, ready nor dead: a
--                         consumer holds it (its handler runs or is about to)
--   'unknown'             no record: never enqueued, or done and forgotten
local function pendingPlace(jobsKey, delayedKey, readyKey, deadKey, id)
  if wheelScore(delayedKey, recordDue(redis.call('HGET', jobsKey, id)), id) then return 'delayed' end
  if redis.call('LPOS', readyKey, id) then return 'ready' end
  if redis.call('ZSCORE', deadKey, id) then return 'dead' end
  if redis.call('HEXISTS', jobsKey, id) == 1 then return 'running' end
  return 'unknown'
end

-- Moves a pending job from its place to the one its new due time asks for: ready when due by
-- now, else delayed. In ready it goes behind the jobs already waiting there, like any job that
-- fell due, or with first set to the right end, which consumers take next (promote: run now).
-- The caller has written the new record first; the id is in exactly one place after. oldDue:
-- the due time its record gave before (which finds it in delayed).
local function movePending(delayedKey, readyKey, wakeKey, id, from, oldDue, dueAt, now, first)
  if from == 'delayed' then
    wheelRemove(delayedKey, oldDue, id)
  else
    redis.call('LREM', readyKey, 1, id)
  end
  if dueAt <= now then
    redis.call(first and 'RPUSH' or 'LPUSH', readyKey, id)
  else
    wheelAdd(delayedKey, dueAt, id)
    wakeIfHead(delayedKey, wakeKey, id)
  end
end

-- Rewrites a pending job's record: a new due time (dueAt, or nil to keep it) and a new payload
-- (a JSON text, or nil to keep it byte for byte), and moves it when its due time changed. Its
-- attempt, lastError, createdAt and the rest of its history are kept. Returns the place it is
-- in now and its due time, or nil and why when the record cannot be read or written back (then
-- nothing changed). first: see movePending.
local function changePending(jobsKey, delayedKey, readyKey, wakeKey, id, from, dueAt, payload, now, first)
  local raw = redis.call('HGET', jobsKey, id) or ''
  local oldDue = recordDue(raw)
  local head, tail = splitRecord(raw)
  if not head then return nil, 'its record is not a JSON object with a payload' end
  if payload then tail = payload end
  if dueAt then head.dueAt = dueAt end
  local record, why = joinRecord(head, tail)
  if not record then return nil, why end
  redis.call('HSET', jobsKey, id, record)
  if not dueAt then return from, tonumber(head.dueAt) or -1 end
  movePending(delayedKey, readyKey, wakeKey, id, from, oldDue, dueAt, now, first)
  if dueAt <= now then return 'ready', dueAt end
  return 'delayed', dueAt
end
