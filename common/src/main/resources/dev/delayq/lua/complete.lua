--[[ complete: a worker's end of a delivery that takes part in a workflow, or that ended with a
  result: done or cancelled, with its result, settled in the same step (include/workflow.lua). An
  ordinary job without a result is acknowledged by ack.lua and its kin instead, and never pays
  for this.
  KEYS[1] in-flight (LIST)  the consumer's deliveries '<token>|<id>'
  KEYS[2] jobs      (HASH)  id -> record
  KEYS[3] ended     (HASH)  caller-chosen id -> how its job ended (id retention)
  KEYS[4] ended:expiry (ZSET) those ids -> when they are free again, epoch ms
  ARGV[1] delivery '<token>|<id>'
  ARGV[2] outcome: "done" or "cancelled"
  ARGV[3] the result, a JSON text, or '' for none
  ARGV[4] queue.idRetention in ms (0: off)
  ARGV[5] the queue's key base '<prefix>:{<queue>}:' (the workflow keys are named from it)
  ARGV[6] how long results and finished batches are kept, ms
  Returns 1, or 0 when fenced (the delivery is no longer in this consumer's list: nothing changed).
  Invariant: the id leaves the in-flight list with its record; a kept id enters ended, its result
  enters results, its batch counts it and a waiting job it released enters its place, all in
  that step.
]]
--@include now
--@include delivery
--@include ended
--@include workflow
local inflightKey, jobsKey = KEYS[1], KEYS[2]
local delivery, outcome, value = ARGV[1], ARGV[2], ARGV[3]
local id = idOf(delivery)
local retain = retention(KEYS[3], KEYS[4], ARGV[4])

if redis.call('LREM', inflightKey, -1, delivery) == 0 then return 0 end
local raw = redis.call('HGET', jobsKey, id)
rememberEnded(retain, id, raw, outcome)
redis.call('HDEL', jobsKey, id)
local ctx = workflowContext(ARGV[5], ARGV[6])
if recordInWorkflow(raw) then
  settleEnd(ctx, id, outcome, raw, value ~= '' and value or nil)
elseif value ~= '' then
  keepResult(ctx, id, outcome, value)
end
return 1
