--[[ tickSchedule: create the job of one tick of a recurring schedule and move the schedule on to
  its next tick, in one step, so each tick gets exactly one job however many schedulers tick and
  whenever one of them dies.
  KEYS[1] schedules      (HASH)  schedule id -> definition JSON (read only)
  KEYS[2] schedules:next (ZSET)  schedule id -> next tick whose job is not created, epoch ms
  KEYS[3] schedules:last (HASH)  schedule id -> latest tick whose job was created, epoch ms
  KEYS[4] jobs           (HASH)  id -> record
  KEYS[5] delayed        (wheel)  id -> due time, epoch ms (include/wheel: keys named after this one)
  KEYS[6] ready          (LIST)  due ids
  KEYS[7] wake           (LIST)  the scheduler's wake-up token, and the name of the standbys' wake channel
  KEYS[8] stats          (HASH)  count:enqueued:<type> grows by the jobs created (written last, and
                                 a field that holds no integer is reset: include/stats)
  ARGV[1] schedule id
  ARGV[2] the next tick the caller read from schedules:next (the compare of compare-and-set)
  ARGV[3] the definition the caller read from schedules (compared byte for byte)
  ARGV[4] the tick whose job to create, epoch ms, or "" to create none (ticks missed, skipped)
  ARGV[5] that job's id, <schedule id>@<tick ms>
  ARGV[6] its record head, {"t":...,"m":N,"schedule":...,"tickAt":<tick> (compact)
  ARGV[7] its payload, a JSON text
  ARGV[8] the schedule's new next tick, epoch ms, or "" when it has none (the schedule ends)
  Returns {code, now}: code 1 the job was created and the schedule moved on; 2 moved on without a
  job (none asked, or its id existed already); 0 stale: the schedule changed since the caller
  read it (another scheduler ticked it, or it was edited, paused or removed): nothing changed.
  Invariant: the job's record and its one place (delayed, or ready when its tick is past) are
  written together, in the same step as the schedule moves past that tick.
]]
--@include now
--@include recordFormat
--@include wake
--@include stats
local schedulesKey, nextKey, lastKey, jobsKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local delayedKey, readyKey, wakeKey, statsKey = KEYS[5], KEYS[6], KEYS[7], KEYS[8]
local sid, expectedNext, expectedDef = ARGV[1], ARGV[2], ARGV[3]
local tick, jobId, head, payload, newNext = ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8]

local now = nowMs()
local next = redis.call('ZSCORE', nextKey, sid)
if not next or tonumber(next) ~= tonumber(expectedNext) or redis.call('HGET', schedulesKey, sid) ~= expectedDef then
  return {0, now}
end
local code = 2
if tick ~= '' then
  local dueAt = tonumber(tick)
  local record = newRecord(head, now, dueAt, payload)
  if redis.call('HSETNX', jobsKey, jobId, record) == 1 then
    if dueAt <= now then
      redis.call('LPUSH', readyKey, jobId)
    else
      wheelAdd(delayedKey, dueAt, jobId)
      wakeIfHead(delayedKey, wakeKey, jobId)
    end
    code = 1
  end
  redis.call('HSET', lastKey, sid, tick)
end
if newNext == '' then
  redis.call('ZREM', nextKey, sid)
else
  redis.call('ZADD', nextKey, newNext, sid)
end
if code == 1 then
  addCount(statsKey, 'count:enqueued:' .. recordType(head), 1)
end
return {code, now}
