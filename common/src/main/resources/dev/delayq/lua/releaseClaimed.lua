--[[ releaseClaimed: a consumer gives back jobs it claimed but never started (it is draining,
  or its worker is exiting), so they run next elsewhere as if never claimed: no attempt and no
  lost delivery is counted, the record is untouched.
  KEYS[1] in-flight (LIST)  the consumer's claimed ids
  KEYS[2] ready     (LIST)  due ids; released ids go on the right, to run next
  ARGV[1..n] job ids, in the order they were claimed
  Returns the number released (an id no longer in the list, e.g. taken back, is skipped).
  Invariant: each id leaves the in-flight list and enters ready in the same step.
]]
local inflightKey, readyKey = KEYS[1], KEYS[2]

local released = 0
-- last claimed first, so the earliest claimed ends at the very right and runs first
for i = #ARGV, 1, -1 do
  if redis.call('LREM', inflightKey, 1, ARGV[i]) == 1 then
    redis.call('RPUSH', readyKey, ARGV[i])
    released = released + 1
  end
end
return released
