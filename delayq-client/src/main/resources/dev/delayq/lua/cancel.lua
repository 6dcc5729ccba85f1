--[[ cancel: withdraw a job that has not started.
  KEYS[1] jobs    (HASH)  id -> record
  KEYS[2] delayed (ZSET)  id -> due time
  KEYS[3] ready   (LIST)  due ids
  ARGV[1] job id
  Returns 1 when the job was delayed or ready and is now gone; 0 otherwise (unknown, running,
  dead or done: nothing is changed).
  Invariant: the id and its record leave together.
]]
local jobsKey, delayedKey, readyKey = KEYS[1], KEYS[2], KEYS[3]
local id = ARGV[1]

if redis.call('ZREM', delayedKey, id) == 1 or redis.call('LREM', readyKey, 1, id) == 1 then
  redis.call('HDEL', jobsKey, id)
  return 1
end
return 0
