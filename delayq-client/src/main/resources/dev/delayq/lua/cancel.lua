--[[ cancel: withdraw a job that has not started.
  KEYS[1] jobs    (HASH)  id -> record
  KEYS[2] delayed (wheel)  id -> due time, epoch ms (include/wheel: keys named after this one)
  KEYS[3] ready   (LIST)  due ids
  KEYS[4] ended   (HASH)  caller-chosen id -> how its job ended (id retention)
  KEYS[5] ended:expiry (ZSET) those ids -> when they are free again, epoch ms
  ARGV[1] job id
  ARGV[2] queue.idRetention in ms (0: off)
  Returns 1 when the job was delayed or ready and is now gone; 0 otherwise (unknown, running,
  dead or done: nothing is changed).
  Invariant: the id and its record leave together; a kept id enters ended in that step.
]]
--@include now
--@include delivery
--@include ended
--@include wheel
local jobsKey, delayedKey, readyKey = KEYS[1], KEYS[2], KEYS[3]
local id = ARGV[1]
local retain = retention(KEYS[4], KEYS[5], ARGV[2])

local raw = redis.call('HGET', jobsKey, id)
if wheelRemove(delayedKey, recordDue(raw), id) or redis.call('LREM', readyKey, 1, id) == 1 then
  rememberEnded(retain, id, raw, 'cancelled')
  redis.call('HDEL', jobsKey, id)
  return 1
end
return 0
