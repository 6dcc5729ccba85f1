--[[ handOffUnstarted: gives back to ready the deliveries a consumer claimed and has not started,
  because its handler runs long and idle consumers of its worker could run them now (the worker's
  IdleGate, or ShardWatch on a queue of several shards: the keys are then the batch's shard's).
  Another consumer of the same worker sends it; the owner has stopped short of them (it starts
  none of them after this). Each element still in the owner's list leaves it and its
  id goes to ready's right end, to run next, in claim order, as releaseClaimed gives back: no
  attempt and no lost delivery counted, the records untouched. An element no longer in the list
  (taken back by recovery meanwhile) is passed over.
  KEYS[1] in-flight (LIST)  the owner's deliveries '<token>|<id>', newest on the left
  KEYS[2] ready     (LIST)  due ids, taken from the right
  ARGV    the deliveries' elements, in claim order (the first to run first)
  Returns the number of ids given back.
  Invariant: each id given back leaves the in-flight list and enters ready in the same step.
]]
--@include delivery
local inflightKey, readyKey = KEYS[1], KEYS[2]
local released = 0
-- the last claimed first onto the right end, so the first claimed ends rightmost and runs first
for i = #ARGV, 1, -1 do
  if redis.call('LREM', inflightKey, '-1', ARGV[i]) == 1 then
    redis.call('RPUSH', readyKey, idOf(ARGV[i]))
    released = released + 1
  end
end
return released
