--[[ schedulerBeat: a scheduler of a sharded queue says it is alive and learns how many are.
  KEYS[1] schedulers (ZSET) scheduler id -> expiry of its last beat, epoch ms
  ARGV[1] this scheduler's id
  ARGV[2] ttl in ms (the shard lease ttl)
  Returns the number of schedulers alive now, this one included; expired ones are dropped.
  Invariant: none touched; the count only decides how many shard leases each scheduler takes,
  so that the shards are shared out instead of one scheduler holding all while others stand by.
]]
--@include now
local schedulersKey = KEYS[1]
local me, ttl = ARGV[1], tonumber(ARGV[2])
local now = nowMs()
redis.call('ZREMRANGEBYSCORE', schedulersKey, '-inf', now)
redis.call('ZADD', schedulersKey, now + ttl, me)
return redis.call('ZCARD', schedulersKey)
