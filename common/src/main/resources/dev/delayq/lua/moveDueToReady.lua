--[[ moveDueToReady: the scheduler's forward step.
  KEYS[1] delayed (wheel)  id -> due time, epoch ms (include/wheel: keys named after this one)
  KEYS[2] ready   (LIST)  due ids; pushed on the left, consumers take from the right
  KEYS[3] jobs    (HASH)  id -> record (only for the ids dead-lettered below)
  KEYS[4] dead    (ZSET)  id -> time it was dead-lettered, epoch ms
  ARGV[1] most ids to move in this call (bounded so no call blocks Redis for long)
  ARGV[2] grace, ms (optional, default 0): move only ids due at least this long ago. The lease
          holder passes 0; a hot standby passes scheduler.standbyGrace, so that it moves only
          what the holder left overdue (the holder is dead or stalled) and otherwise moves nothing.
  Returns {moved, nextDueAt or -1 when nothing is delayed, now, now in epoch microseconds}: the
  caller loops at once while moved == ARGV[1], else sleeps until nextDueAt (+ its grace) on its
  own clock (now lets it correct for the offset between its clock and Redis's; the microseconds
  let it wake at the due millisecond itself, not up to 1 ms after it as a now truncated to the ms
  would). With a grace, nextDueAt may be already past (due, but not yet overdue by the grace).
  An id whose due time is out of range (before the epoch or after 9999-12-31T23:59:59.999Z:
  written by an older version or by hand; include/wheel) goes to dead instead, its record with
  lastError saying so, so that it never holds up the ids behind it.
  Errors, before any write: "WRONGTYPE <ready key> holds a <type>, not a list: ..." when another
  client set ready to another type: the due ids stay in delayed (an LPUSH failing after the take
  would leave them in no place), and the caller backs off as for any error reply.
  Invariant: each id leaves delayed and enters ready (or dead, its record given lastError, deadAt
  and, for the due time no reader could take, dueAt = now) in the same call; the record of an id
  moved to ready is untouched.
  Any number of schedulers may call it at once: an id leaves delayed once, so none is moved twice.
]]
--@include wheel
--@include now
--@include record
local delayedKey, readyKey, jobsKey, deadKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local limit = tonumber(ARGV[1])
local grace = tonumber(ARGV[2] or '0')
local readyType = redis.call('TYPE', readyKey).ok
if readyType ~= 'list' and readyType ~= 'none' then
  return redis.error_reply('WRONGTYPE ' .. readyKey .. ' holds a ' .. readyType .. ', not a list: due jobs'
    .. ' stay in delayed until it is deleted or renamed (delayq check names it)')
end
local us = nowUs()
local now = math.floor(us / 1000)

-- the take answers the next due time too: the head is not read again after it
local ids, nextDue, outOfRange = wheelTakeDue(delayedKey, now - grace, limit)
for i = 1, #outOfRange, 2 do
  local id = outOfRange[i]
  local raw = redis.call('HGET', jobsKey, id) or ''
  local head, tail = readWholeRecord(raw)
  local err = 'due time ' .. numberText(outOfRange[i + 1]) .. ' ms is out of range: ' .. WHEEL_RANGE_TEXT
    .. ' (delayq dead retry runs it now)'
  -- the record's own due time is the one no reader can take (an overflowed one is not a long):
  -- it becomes when the job went to dead; the error keeps the one it had
  if head then head.dueAt = now end
  redis.call('HSET', jobsKey, id, deadRecord(raw, head, tail, err, now))
  redis.call('ZADD', deadKey, now, id)
end
if #ids > 0 then
  -- ids come in due order; pushing each on the left leaves the earliest at the right end
  redis.call('LPUSH', readyKey, unpack(ids))
end
return {#ids, nextDue or -1, now, us}
