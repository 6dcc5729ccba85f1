--[[ holdLease: take the scheduler's leader lease when it is free, or renew it when we hold it.
  KEYS[1] leader (STRING) the holder's id, with a TTL
  ARGV[1] our id
  ARGV[2] ttl in ms
  Returns 1 when we hold the lease now, 0 when another scheduler does.
  Invariant: none touched; the lease only keeps a second scheduler from doubling work.
]]
local leaderKey = KEYS[1]
local me, ttl = ARGV[1], ARGV[2]
local holder = redis.call('GET', leaderKey)
if holder == me then
  redis.call('PEXPIRE', leaderKey, ttl)
  return 1
end
if not holder then
  redis.call('SET', leaderKey, me, 'PX', ttl)
  return 1
end
return 0
