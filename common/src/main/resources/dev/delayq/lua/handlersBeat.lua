--[[ handlersBeat: a worker says which job types it runs (at its start and with each heartbeat),
  and brings the jobs of those types that waited for a handler back to ready's right end (the
  end consumers take next), the longest-waiting first, at most ARGV[2] of them.
  KEYS[1] handlers  (ZSET) job type -> when the latest announcement of it expires, epoch ms
  KEYS[2] nohandler (SET)  job types whose nohandler:<type> holds jobs
  KEYS[3] ready     (LIST) due ids
  ARGV[1] how long this announcement holds, ms (worker.heartbeatTtl)
  ARGV[2] the most ids to bring back in this call
  ARGV[3] the queue's key base '<prefix>:{<queue>}:' (nohandler:<type> is named from it)
  ARGV[4..] the worker's job types
  Returns {brought, left}: ids moved to ready, and ids of these types still waiting.
  Invariant: each id brought back leaves nohandler:<type> and enters ready in one step; records
  are not touched. Announcements expired a day ago are dropped, so the key stays small.
]]
--@include now
--@include recordFormat
local handlersKey, indexKey, readyKey = KEYS[1], KEYS[2], KEYS[3]
local ttl, room, base = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local now = nowMs()

redis.call('ZREMRANGEBYSCORE', handlersKey, '-inf', numberText(now - 86400000))
local brought, left = 0, 0
for i = 4, #ARGV do
  local jobType = ARGV[i]
  redis.call('ZADD', handlersKey, 'GT', numberText(now + ttl), jobType)
  if redis.call('SISMEMBER', indexKey, jobType) == 1 then
    local waitingKey = base .. 'nohandler:' .. jobType
    if room > 0 then
      local ids = redis.call('ZRANGE', waitingKey, 0, room - 1)
      if #ids > 0 then
        -- the longest-waiting last, at the right end: it runs first
        for j = #ids, 1, -1 do redis.call('RPUSH', readyKey, ids[j]) end
        redis.call('ZREMRANGEBYRANK', waitingKey, 0, #ids - 1)
        brought, room = brought + #ids, room - #ids
      end
    end
    local n = redis.call('ZCARD', waitingKey)
    if n == 0 then redis.call('SREM', indexKey, jobType) end
    left = left + n
  end
end
return {brought, left}
