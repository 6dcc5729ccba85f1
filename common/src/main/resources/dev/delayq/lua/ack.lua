--[[ ack: the consumers of one worker acknowledge the jobs they finished and say which delivery
  each has started since, all in one call (the worker sends whatever gathered while the last call
  was out). The mark is what the heartbeat path of recovery charges; it may lag the consumer by
  one call, which is why a worker's own crash record, not this mark, decides after a crash.
  KEYS[1]   jobs      (HASH)  id -> record
  KEYS[2]   running   (HASH)  consumer id -> the delivery whose handler it started last
  KEYS[3]   ended     (HASH)  caller-chosen id -> how its job ended (id retention)
  KEYS[4]   ended:expiry (ZSET) those ids -> when they are free again, epoch ms
  KEYS[4+i] in-flight (LIST)  the i-th consumer's deliveries '<token>|<id>', newest on the left
  ARGV[1] queue.idRetention in ms (0: off)
  ARGV, from ARGV[2], per consumer i: consumer id, the delivery it started ('' for none), then
    the n deliveries it finished as include/ended.lua's acknowledgeOldest reads them: their hints
    in one string, one character each (done or cancelled, which a kept id records; and whether the
    worker read in its record that it keeps its id, or not, so the record is not read again, or
    did not know), then their n elements '<token>|<id>', then their n ids (sent, not cut out of
    the elements: no string work per job in the script)
  Returns, per consumer, n codes: 1 acknowledged, 0 fenced (no longer this consumer's: nothing
  changed for it; its job's record is still there, so the job lives on elsewhere), 2 fenced and
  its job's record gone (the job ended: by an earlier call of this same acknowledgement whose
  WAIT fell short, or, after a take-back, by another delivery's). Only a fenced delivery costs
  that look (one HEXISTS); the worker tells the two cases of 2 apart from what it knows.
  A consumer's finished deliveries are as a rule its oldest, the right end of its list, which
  then goes in one LTRIM (include/ended.lua's acknowledgeOldest); any other in-flight element
  stays, and a delivery no longer in the list is fenced as before. The delivery it started is then
  as a rule the oldest left: the same LRANGE, one element longer, shows it still there (else one
  LPOS looks), and the marks of all the consumers go in one HSET.
  Invariant: an acknowledged id leaves with its record (the records of one call go in one HDEL at
  its end); a kept id enters ended in that step. A mark is set only on a delivery still in
  the consumer's list, so a late one never points at a job that has moved on.
]]
--@include now
--@include ended
local jobsKey, runningKey = KEYS[1], KEYS[2]
local retain = retention(KEYS[3], KEYS[4], ARGV[1])

local out = {}
local done = {}
-- the marks to set, consumer then delivery, all in one HSET at the end (nothing here reads them)
local marks, marked = {}, 0
local at = 2
for i = 1, #KEYS - 4 do
  local inflightKey = KEYS[4 + i]
  local consumer, mark = ARGV[at], ARGV[at + 1]
  local seen
  -- the started delivery is as a rule the oldest left: the acknowledgement's LRANGE shows it
  at, seen = acknowledgeOldest(inflightKey, jobsKey, ARGV, at + 2, retain, done, out, mark ~= '' and mark or nil)
  if mark ~= '' and (seen or redis.call('LPOS', inflightKey, mark, 'RANK', '-1')) then
    marks[marked + 1], marks[marked + 2] = consumer, mark
    marked = marked + 2
  end
end
for from = 1, marked, 1000 do -- unpack's limit
  redis.call('HSET', runningKey, unpack(marks, from, math.min(marked, from + 999)))
end
deleteRecords(jobsKey, done)
return out
