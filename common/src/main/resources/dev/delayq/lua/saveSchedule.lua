--[[ saveSchedule: create, change, pause, resume or remove a recurring schedule, withdrawing the
  jobs its ticks created ahead that have not fallen due (the ticker creates each tick's job a
  moment early, so the forwarder fires it on time).
  KEYS[1] schedules      (HASH)  schedule id -> definition JSON
  KEYS[2] schedules:next (ZSET)  schedule id -> next tick whose job is not created, epoch ms
  KEYS[3] schedules:last (HASH)  schedule id -> latest tick whose job was created, epoch ms
  KEYS[4] jobs           (HASH)  id -> record
  KEYS[5] delayed        (wheel)  id -> due time, epoch ms (include/wheel: keys named after this one)
  ARGV[1] schedule id
  ARGV[2] the definition to store, or "" to remove the schedule
  ARGV[3] its next tick, epoch ms, or "" for none (paused, removed, or no tick left)
  ARGV[4] the latest created tick the caller read from schedules:last, or "" for none (compared)
  ARGV[5..] the ids of the jobs created ahead, ticks after now up to that latest one
  Returns {1, withdrawn}: saved, and how many created-ahead jobs were withdrawn (those still in
  delayed; one already forwarded runs); or {0, 0}: a tick was created since the caller read
  schedules:last, nothing changed, read again and retry.
  Invariant: a withdrawn job's id and record leave together; a tick job is never in two places.
]]
--@include wheel
local schedulesKey, nextKey, lastKey, jobsKey, delayedKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local sid, definition, next, expectedLast = ARGV[1], ARGV[2], ARGV[3], ARGV[4]

if (redis.call('HGET', lastKey, sid) or '') ~= expectedLast then return {0, 0} end
local withdrawn = 0
for i = 5, #ARGV do
  if wheelRemove(delayedKey, recordDue(redis.call('HGET', jobsKey, ARGV[i])), ARGV[i]) then
    redis.call('HDEL', jobsKey, ARGV[i])
    withdrawn = withdrawn + 1
  end
end
redis.call('HDEL', lastKey, sid)
if definition == '' then
  redis.call('HDEL', schedulesKey, sid)
else
  redis.call('HSET', schedulesKey, sid, definition)
end
if next == '' then
  redis.call('ZREM', nextKey, sid)
else
  redis.call('ZADD', nextKey, next, sid)
end
return {1, withdrawn}
