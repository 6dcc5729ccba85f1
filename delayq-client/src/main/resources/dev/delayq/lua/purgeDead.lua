--[[ purgeDead: forget dead jobs for good, oldest first, in a bounded batch.
  KEYS[1] dead (ZSET)  id -> time it was dead-lettered, epoch ms
  KEYS[2] jobs (HASH)  id -> record
  ARGV[1] minimum age in ms by Redis TIME (a job dead-lettered at or before now - age goes);
          "all" for every dead job whatever its age
  ARGV[2] most ids to remove in this call
  Returns the number of jobs removed; the caller calls again while it equals ARGV[2].
  Invariant: each id and its record leave together; nothing outside dead is touched.
]]
--@include now
local deadKey, jobsKey = KEYS[1], KEYS[2]
local age, limit = ARGV[1], tonumber(ARGV[2])

local cutoff = '+inf'
if age ~= 'all' then cutoff = tostring(nowMs() - tonumber(age)) end
local ids = redis.call('ZRANGEBYSCORE', deadKey, '-inf', cutoff, 'LIMIT', 0, limit)
for _, id in ipairs(ids) do
  redis.call('ZREM', deadKey, id)
  redis.call('HDEL', jobsKey, id)
end
return #ids
