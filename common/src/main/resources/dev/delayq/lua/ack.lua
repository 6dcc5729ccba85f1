--[[ ack: a job finished; forget it.
  KEYS[1] in-flight (LIST)  the acknowledging consumer's claimed ids
  KEYS[2] jobs      (HASH)  id -> record
  ARGV[1] job id
  Returns 1 when acknowledged; 0 when fenced: the id is no longer in this consumer's list (it
  was taken back after its heartbeat expired or its process died), and nothing is changed.
  Invariant: the record goes only with the consumer's own claim on it.
]]
local inflightKey, jobsKey = KEYS[1], KEYS[2]
local id = ARGV[1]

if redis.call('LREM', inflightKey, 1, id) == 0 then
  return 0
end
redis.call('HDEL', jobsKey, id)
return 1
