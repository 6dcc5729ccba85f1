--[[ cancelRunning: ask the worker running a job to stop it (cancel.lua withdraws pending ones).
  KEYS[1] jobs            (HASH)   id -> record (read only)
  KEYS[2] delayed         (wheel)   read only
  KEYS[3] ready           (LIST)   read only
  KEYS[4] dead            (ZSET)   read only
  KEYS[5] cancel:<id>     (STRING) the request, with a TTL; workers check it at each heartbeat
  ARGV[1] job id
  ARGV[2] the cancel channel (pub/sub), told the id at once
  ARGV[3] how long the request stands, ms
  Returns 1 asked (the job is running: a consumer holds it); 0 it is pending (cancel it with
  cancel.lua); -1 unknown; -2 dead. Nothing but the request is written.
  Invariant: no job moves here; the worker ends the job through its usual acknowledgement.
]]
--@include now
--@include wheel
local jobsKey, delayedKey, readyKey, deadKey, requestKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local id, channel, ttl = ARGV[1], ARGV[2], ARGV[3]

local raw = redis.call('HGET', jobsKey, id)
if wheelScore(delayedKey, recordDue(raw), id) or redis.call('LPOS', readyKey, id) then return 0 end
if redis.call('ZSCORE', deadKey, id) then return -2 end
if not raw then return -1 end
redis.call('SET', requestKey, nowMs(), 'PX', ttl)
redis.call('PUBLISH', channel, id)
return 1
