-- The if-pending option of an enqueue whose id exists (debounce, replace by id). The option is a
-- suffix of the job's mode argument: '' keeps the existing job (the default), '+payload' replaces
-- its payload, '+due' moves its due time to the new one, '+payload+due' does both. A job that has
-- started or is dead is refused, never changed. Needs include/pending (and its own includes).
-- Returns the two reply values of the job (enqueue.lua's codes): {0, -1} kept; {4, dueAt} changed;
-- {5, -1} refused, it is running; {3, -1} refused, it is dead; {6, -1} refused, its record cannot
-- be rewritten.
local function onPending(jobsKey, delayedKey, readyKey, deadKey, wakeKey, id, option, payload, dueAt, now)
  if option == '' then return 0, -1 end
  local from = pendingPlace(jobsKey, delayedKey, readyKey, deadKey, id)
  if from == 'dead' then return 3, -1 end
  if from ~= 'delayed' and from ~= 'ready' then return 5, -1 end
  local newPayload, newDue = nil, nil
  if string.find(option, '+payload', 1, true) then newPayload = payload end
  if string.find(option, '+due', 1, true) then newDue = dueAt end
  local place, due = changePending(jobsKey, delayedKey, readyKey, wakeKey, id, from, newDue, newPayload, now, false)
  if not place then return 6, -1 end
  return 4, due
end
