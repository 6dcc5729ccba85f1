--[[ releaseClaimed: a consumer acknowledges the job it has just finished, then gives back every
  other delivery in its list, none of which it has started: it is draining, or a call failed and
  it no longer knows what its list holds. They run next elsewhere as if never claimed: no attempt
  and no lost delivery is counted, the records are untouched.
  KEYS[1] in-flight (LIST)  the consumer's deliveries '<token>|<id>', newest on the left
  KEYS[2] jobs      (HASH)  id -> record
  KEYS[3] ready     (LIST)  due ids; released ids go on the right, to run next, in claim order
  KEYS[4] ended     (HASH)  caller-chosen id -> how its job ended (id retention)
  KEYS[5] ended:expiry (ZSET) those ids -> when they are free again, epoch ms
  ARGV[1] queue.idRetention in ms (0: off)
  ARGV[2] ARGV[3] ARGV[4] the delivery to acknowledge first as include/ended.lua's
          acknowledgeOldest reads one: its hint ('' for none), its element and its id ('' when none)
  Returns {ack, released}: ack 1 acknowledged, 0 fenced, 2 fenced with its job's record
  gone (include/ended.lua's acknowledgeOldest), -1 none asked; released the number of
  ids given back.
  Invariant: the acknowledged id leaves with its record; each other id leaves the in-flight list
  and enters ready in the same step.
]]
--@include now
--@include delivery
--@include ended
local inflightKey, jobsKey, readyKey = KEYS[1], KEYS[2], KEYS[3]
local acked = acknowledge(inflightKey, jobsKey, ARGV, 2, retention(KEYS[4], KEYS[5], ARGV[1]))
-- newest first onto the right end, so the earliest claimed ends rightmost and runs first
local released = 0
while true do
  local delivery = redis.call('LPOP', inflightKey)
  if not delivery then break end
  redis.call('RPUSH', readyKey, idOf(delivery))
  released = released + 1
end
return {acked, released}
