--[[ expireNoHandler: jobs that waited for a handler longer than queue.handlerWait while no live
  worker announced their type go to dead, with a reason that says so. A type that a live worker
  announces is left alone, however long its jobs waited: that worker brings them back.
  KEYS[1] handlers  (ZSET) job type -> when the latest announcement of it expires, epoch ms
  KEYS[2] nohandler (SET)  job types whose nohandler:<type> holds jobs
  KEYS[3] jobs      (HASH) id -> record
  KEYS[4] dead      (ZSET) id -> time it was dead-lettered, epoch ms
  KEYS[5] stats     (HASH) counters: count:dead:<type> grows by the jobs dead-lettered here,
                           after their moves (include/stats: a bad field never fails them)
  ARGV[1] queue.handlerWait, ms
  ARGV[2] the most ids to dead-letter in this call
  ARGV[3] the queue's key base '<prefix>:{<queue>}:' (nohandler:<type> is named from it)
  ARGV[4] queue.handlerWait as the reason says it ('1h')
  Returns the number of ids dead-lettered (call again while it equals ARGV[2]).
  Invariant: each id leaves nohandler:<type> and enters dead in one step; its record stays, with
  lastError and deadAt, or kept verbatim under "malformed" when it cannot be read or written back.
]]
--@include now
--@include record
--@include stats
local handlersKey, indexKey, jobsKey, deadKey, statsKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local wait, room, base, waitText = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], ARGV[4]
local now = nowMs()

local dead = 0
for _, jobType in ipairs(redis.call('SMEMBERS', indexKey)) do
  if room <= 0 then break end
  local live = tonumber(redis.call('ZSCORE', handlersKey, jobType) or '0')
  local waitingKey = base .. 'nohandler:' .. jobType
  if live <= now then
    local ids = redis.call('ZRANGE', waitingKey, '-inf', numberText(now - wait), 'BYSCORE', 'LIMIT', 0, room)
    local err = "no live worker had a handler for type '" .. jobType .. "' for " .. waitText
    for _, id in ipairs(ids) do
      local raw = redis.call('HGET', jobsKey, id) or ''
      local head, tail = readWholeRecord(raw)
      redis.call('HSET', jobsKey, id, deadRecord(raw, head, tail, err, now))
      redis.call('ZADD', deadKey, now, id)
      redis.call('ZREM', waitingKey, id)
    end
    dead, room = dead + #ids, room - #ids
    if #ids > 0 then addCount(statsKey, 'count:dead:' .. jobType, #ids) end
  end
  if redis.call('ZCARD', waitingKey) == 0 then redis.call('SREM', indexKey, jobType) end
end
return dead
