--[[ claimLayout: record how many shards a queue is laid out in, or say how many it already has.
  KEYS[1] layout  (STRING) the shard count, in the {<queue>} slot; absent for a one-shard queue
  KEYS[2] jobs    (HASH)   the one-shard layout's records (same slot)
  KEYS[3] delayed (wheel)   the one-shard layout's delayed jobs (a pending job also has its record in jobs)
  KEYS[4] ready   (LIST)   the one-shard layout's ready jobs
  KEYS[5] dead    (ZSET)   the one-shard layout's dead jobs
  ARGV[1] the shard count this process is configured with
  Returns the queue's shard count: the recorded one; else 1 when the one-shard layout holds jobs
  (a queue from before queue.shards, or of one shard) or when ARGV[1] is 1 (nothing is
  recorded: one shard is the layout as it always was); else ARGV[1], recorded now.
  Invariant: none touched; a process that finds another count than its own refuses to start, so
  no job is left in a slot nobody reads.
]]
local layoutKey, jobsKey, delayedKey, readyKey, deadKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local wanted = tonumber(ARGV[1])
local recorded = redis.call('GET', layoutKey)
if recorded then return tonumber(recorded) end
if wanted == 1 then return 1 end
if redis.call('EXISTS', jobsKey, delayedKey, readyKey, deadKey) > 0 then return 1 end
redis.call('SET', layoutKey, wanted)
return wanted
