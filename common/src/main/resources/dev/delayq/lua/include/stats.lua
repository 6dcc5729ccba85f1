-- addCount(statsKey, field, n): adds n to a counter of the stats hash, after the job's own
-- transition is written. A field that holds no integer (another client planted it) is reset to n
-- instead of failing the call: a counter is worth less than telling a producer whose job is in
-- the queue that its enqueue failed (it would enqueue it again). A stats key of another type is
-- left alone: the counter is skipped.
local function addCount(statsKey, field, n)
  local added = redis.pcall('HINCRBY', statsKey, field, n)
  if type(added) == 'table' and added.err then
    redis.pcall('HSET', statsKey, field, n)
  end
end
