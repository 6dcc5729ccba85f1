--[[ moveDueToReady: the scheduler's forward step.
  KEYS[1] delayed (wheel)  id -> due time, epoch ms (include/wheel: keys named after this one)
  KEYS[2] ready   (LIST)  due ids; pushed on the left, consumers take from the right
  ARGV[1] most ids to move in this call (bounded so no call blocks Redis for long)
  ARGV[2] grace, ms (optional, default 0): move only ids due at least this long ago. The lease
          holder passes 0; a hot standby passes scheduler.standbyGrace, so that it moves only
          what the holder left overdue (the holder is dead or stalled) and otherwise moves nothing.
  Returns {moved, nextDueAt or -1 when nothing is delayed, now, now in epoch microseconds}: the
  caller loops at once while moved == ARGV[1], else sleeps until nextDueAt (+ its grace) on its
  own clock (now lets it correct for the offset between its clock and Redis's; the microseconds
  let it wake at the due millisecond itself, not up to 1 ms after it as a now truncated to the ms
  would). With a grace, nextDueAt may be already past (due, but not yet overdue by the grace).
  Errors, before any write: "WRONGTYPE <ready key> holds a <type>, not a list: ..." when another
  client set ready to another type: the due ids stay in delayed (an LPUSH failing after the take
  would leave them in no place), and the caller backs off as for any error reply.
  Invariant: each id leaves delayed and enters ready in the same call; its record is untouched.
  Any number of schedulers may call it at once: an id leaves delayed once, so none is moved twice.
]]
--@include wheel
--@include now
local delayedKey, readyKey = KEYS[1], KEYS[2]
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
local ids, nextDue = wheelTakeDue(delayedKey, now - grace, limit)
if #ids > 0 then
  -- ids come in due order; pushing each on the left leaves the earliest at the right end
  redis.call('LPUSH', readyKey, unpack(ids))
end
return {#ids, nextDue or -1, now, us}
