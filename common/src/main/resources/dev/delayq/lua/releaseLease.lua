--[[ releaseLease: give up a shard's lease (with one shard: the leader lease) at shutdown, or a
  shard past this scheduler's share, so that a standby takes it over at once.
  KEYS[1] leader (STRING) the holder's id
  KEYS[2] wake   (pub/sub channel named like the wake LIST) where the standbys listen
  ARGV[1] our id
  Returns 1 when released (and 'released' published on the channel, so each standby looks at the
  lease now instead of at its next renewal time), 0 when we did not hold it (nothing published).
  Invariant: none touched.
]]
local leaderKey, wakeChannel = KEYS[1], KEYS[2]
local owner = ARGV[1]
if redis.call('GET', leaderKey) == owner then
  redis.call('DEL', leaderKey)
  redis.call('PUBLISH', wakeChannel, 'released')
  return 1
end
return 0
