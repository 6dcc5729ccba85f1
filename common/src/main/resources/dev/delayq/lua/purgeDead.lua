--[[ purgeDead: forget dead jobs for good, oldest first, in a bounded batch.
  KEYS[1] dead (ZSET)  id -> time it was dead-lettered, epoch ms
  KEYS[2] jobs (HASH)  id -> record
  KEYS[3] ended (HASH) caller-chosen id -> how its job ended (id retention)
  KEYS[4] ended:expiry (ZSET) those ids -> when they are free again, epoch ms
  ARGV[1] minimum age in ms by Redis TIME (a job dead-lettered at or before now - age goes);
          "all" for every dead job whatever its age
  ARGV[2] most ids to remove in this call
  ARGV[3] queue.idRetention in ms (0: off)
  ARGV[4] the queue's key base '<prefix>:{<queue>}:' (absent: ''): the jobs waiting for a purged
          workflow job are told (include/workflow.lua: they end dead unless they run anyway)
  ARGV[5] how long results are kept, ms
  Returns the number of jobs removed; the caller calls again while it equals ARGV[2].
  Invariant: each id and its record leave together, a kept id entering ended in that step;
  nothing outside dead is touched.
]]
--@include now
--@include delivery
--@include ended
--@include workflow
local deadKey, jobsKey = KEYS[1], KEYS[2]
local age, limit = ARGV[1], tonumber(ARGV[2])
local retain = retention(KEYS[3], KEYS[4], ARGV[3])

local cutoff = '+inf'
if age ~= 'all' then cutoff = tostring(nowMs() - tonumber(age)) end
local ids = redis.call('ZRANGEBYSCORE', deadKey, '-inf', cutoff, 'LIMIT', 0, limit)
for _, id in ipairs(ids) do
  redis.call('ZREM', deadKey, id)
  local raw = redis.call('HGET', jobsKey, id)
  if retain.ms > 0 then rememberEnded(retain, id, raw, 'purged') end
  redis.call('HDEL', jobsKey, id)
  if (ARGV[4] or '') ~= '' and recordInWorkflow(raw) then
    settleEnd(workflowContext(ARGV[4], ARGV[5]), id, 'purged', raw, nil)
  end
end
return #ids
