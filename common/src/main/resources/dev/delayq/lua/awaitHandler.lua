--[[ awaitHandler: a consumer claimed a job whose type its worker has no handler for. It leaves
  the job to a worker that has one: the job goes from its in-flight list to its type's nohandler
  set, uncharged (its record is not touched, so its attempt is not counted), until a worker that
  announces the type brings it back to ready (handlersBeat.lua) or, with none for
  queue.handlerWait, expireNoHandler.lua dead-letters it. Called only on that miss: a claim of a
  job whose handler is there costs nothing more.
  KEYS[1] in-flight        (LIST) the consumer's deliveries '<token>|<id>'
  KEYS[2] nohandler        (SET)  job types whose nohandler:<type> holds jobs
  KEYS[3] nohandler:<type> (ZSET) id -> waiting since, epoch ms
  ARGV[1] delivery '<token>|<id>'
  ARGV[2] the job's type (as its record says)
  Returns 1, or 0 when fenced (the delivery is no longer in this consumer's list: nothing changed).
  Invariant: the id leaves the in-flight list and enters nohandler:<type> in one step; its record
  stays as it was.
]]
--@include now
--@include delivery
local inflightKey, indexKey, waitingKey = KEYS[1], KEYS[2], KEYS[3]
local delivery, jobType = ARGV[1], ARGV[2]

if redis.call('LREM', inflightKey, -1, delivery) == 0 then return 0 end
redis.call('ZADD', waitingKey, nowMs(), idOf(delivery))
redis.call('SADD', indexKey, jobType)
return 1
