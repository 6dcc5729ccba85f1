--[[ moveDueToReady: the scheduler's forward step.
  KEYS[1] delayed (ZSET)  id -> due time, epoch ms
  KEYS[2] ready   (LIST)  due ids; pushed on the left, consumers take from the right
  ARGV[1] most ids to move in this call (bounded so no call blocks Redis for long)
  ARGV[2] grace, ms (optional, default 0): move only ids due at least this long ago. The lease
          holder passes 0; a hot standby passes scheduler.standbyGrace, so that it moves only
          what the holder left overdue (the holder is dead or stalled) and otherwise moves nothing.
  Returns {moved, nextDueAt or -1 when nothing is delayed, now}: the caller loops at once
  while moved == ARGV[1], else sleeps until nextDueAt (+ its grace) on its own clock (now lets
  it correct for the offset between its clock and Redis's). With a grace, nextDueAt may be
  already past (due, but not yet overdue by the grace).
  Invariant: each id leaves delayed and enters ready in the same call; its record is untouched.
  Any number of schedulers may call it at once: an id leaves delayed once, so none is moved twice.
]]
--@include now
--@include wheel
local delayedKey, readyKey = KEYS[1], KEYS[2]
local limit = tonumber(ARGV[1])
local grace = tonumber(ARGV[2] or '0')
local now = nowMs()

local ids = wheelTakeDue(delayedKey, now - grace, limit)
if #ids > 0 then
  -- ids come in due order; pushing each on the left leaves the earliest at the right end
  redis.call('LPUSH', readyKey, unpack(ids))
end
local _, nextDue = wheelHead(delayedKey)
return {#ids, nextDue or -1, now}
