--[[ releaseLease: give up the leader lease at shutdown so a standby takes over at once.
  KEYS[1] leader (STRING) the holder's id
  ARGV[1] our id
  Returns 1 when released, 0 when we did not hold it.
  Invariant: none touched.
]]
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('DEL', KEYS[1])
  return 1
end
return 0
