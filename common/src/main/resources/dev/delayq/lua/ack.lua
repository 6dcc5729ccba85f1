--[[ ack: jobs finished; forget them.
  KEYS[1] in-flight (LIST)  the acknowledging consumer's claimed ids
  KEYS[2] jobs      (HASH)  id -> record
  ARGV[1..n] job ids
  Returns one number per id: 1 when acknowledged; 0 when fenced: the id is no longer in this
  consumer's list (it was taken back after its heartbeat expired or its process died), and
  nothing is changed for it.
  Invariant: a record goes only with the consumer's own claim on it.
]]
local inflightKey, jobsKey = KEYS[1], KEYS[2]

local acked = {}
for i = 1, #ARGV do
  if redis.call('LREM', inflightKey, 1, ARGV[i]) == 0 then
    acked[i] = 0
  else
    redis.call('HDEL', jobsKey, ARGV[i])
    acked[i] = 1
  end
end
return acked
