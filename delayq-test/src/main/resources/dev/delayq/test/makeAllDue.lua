--[[ makeAllDue: the test kit's "everything is due now"; never used outside tests.
  KEYS[1] delayed (ZSET)  id -> due time, epoch ms
  ARGV[1] most ids to change in this call
  Returns the number of ids whose due time it set to now (ARGV[1] of them: call again).
  Invariant: the ids stay in delayed with their records untouched; only their scores change,
  and moveDueToReady then moves them to ready as it moves any due id.
]]
local delayedKey = KEYS[1]
local most = tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local ids = redis.call('ZRANGEBYSCORE', delayedKey, '(' .. now, '+inf', 'LIMIT', 0, most)
for _, id in ipairs(ids) do
  redis.call('ZADD', delayedKey, 'XX', now, id)
end
return #ids
