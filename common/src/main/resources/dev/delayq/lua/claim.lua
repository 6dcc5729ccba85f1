--[[ claim: a consumer reads the record of the id it has just moved (BLMOVE) from ready into
  its in-flight list, and (re)registers itself as alive.
  KEYS[1] jobs      (HASH)  id -> record
  KEYS[2] in-flight (LIST)  this consumer's claimed ids
  KEYS[3] consumers (ZSET)  consumer id -> heartbeat expiry, epoch ms
  ARGV[1] job id
  ARGV[2] consumer id
  ARGV[3] heartbeat ttl in ms
  Returns the record, or false when the id has no record (it is then dropped from the list).
  Invariant: a consumer holding ids is always registered, even when the recoverer removed it
  a moment ago, so no in-flight list is left unwatched.
]]
--@include now
local jobsKey, inflightKey, consumersKey = KEYS[1], KEYS[2], KEYS[3]
local id, consumer, ttl = ARGV[1], ARGV[2], tonumber(ARGV[3])

redis.call('ZADD', consumersKey, nowMs() + ttl, consumer)
local record = redis.call('HGET', jobsKey, id)
if not record then
  redis.call('LREM', inflightKey, 1, id)
  return false
end
return record
