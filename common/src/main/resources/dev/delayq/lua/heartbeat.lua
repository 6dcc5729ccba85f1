--[[ heartbeat: a worker process says its consumers are alive.
  KEYS[1] consumers (ZSET) consumer id -> heartbeat expiry, epoch ms
  ARGV[1] ttl in ms
  ARGV[2..] consumer ids
  Returns the number of consumers refreshed.
  Invariant: none touched; the expiry is what lets the recoverer find silent consumers.
]]
--@include now
local consumersKey = KEYS[1]
local expiry = nowMs() + tonumber(ARGV[1])
for i = 2, #ARGV do
  redis.call('ZADD', consumersKey, expiry, ARGV[i])
end
return #ARGV - 1
