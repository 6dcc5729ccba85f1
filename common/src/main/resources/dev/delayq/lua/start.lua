--[[ start: consumers acknowledge the job each has just finished and start the next one it
  prefetched, once this confirms the delivery is still its own. One call per job, and what makes
  a crash charge only the job that was running: the delivery is marked as running here, before
  its handler runs, and the one before it is gone from the list by then. A worker sends the
  starts of all its consumers that are waiting at that moment in one call.
  KEYS[1]   jobs      (HASH)  id -> record
  KEYS[2]   running   (HASH)  consumer id -> the delivery whose handler it started last
  KEYS[3]   ended     (HASH)  caller-chosen id -> how its job ended (id retention)
  KEYS[4]   ended:expiry (ZSET) those ids -> when they are free again, epoch ms
  KEYS[4+i] in-flight (LIST)  the i-th consumer's deliveries '<token>|<id>', newest on the left
  ARGV[1] queue.idRetention in ms (0: off)
  ARGV, from ARGV[2], five per start i:
    consumer id
    delivery to start
    the delivery to acknowledge first as include/ended.lua's acknowledgeOldest reads one: its
    hint ('' for none), its element and its id ('' when none)
  Returns, two per start: ack (1 acknowledged, 0 fenced: no longer this consumer's, 2 fenced
  with its job's record gone as include/ended.lua's acknowledgeOldest says, -1 none asked), started (1, or 0 when the delivery is no longer in the consumer's list: taken back
  after its heartbeat expired or its worker was presumed dead; it must not run).
  Invariant: an acknowledged id leaves with its record; nothing else moves.
]]
--@include now
--@include ended
local jobsKey, runningKey = KEYS[1], KEYS[2]
local retain = retention(KEYS[3], KEYS[4], ARGV[1])

local out = {}
for i = 1, (#ARGV - 1) / 5 do
  local inflightKey = KEYS[4 + i]
  local at = 5 * i - 3
  local consumer, delivery = ARGV[at], ARGV[at + 1]
  local acked = acknowledge(inflightKey, jobsKey, ARGV, at + 2, retain)
  local started = 0
  -- searched from the right: the next to start is the oldest delivery left
  if redis.call('LPOS', inflightKey, delivery, 'RANK', '-1') then
    redis.call('HSET', runningKey, consumer, delivery)
    started = 1
  end
  out[2 * i - 1] = acked
  out[2 * i] = started
end
return out
