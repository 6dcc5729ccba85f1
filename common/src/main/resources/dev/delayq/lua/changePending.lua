--[[ changePending: promote, reschedule or edit one job that has not started.
  KEYS[1] jobs    (HASH)  id -> record
  KEYS[2] delayed (wheel)  id -> due time, epoch ms (include/wheel: keys named after this one)
  KEYS[3] ready   (LIST)  due ids; a promoted job goes on the right end (consumers take it
                          next), a job rescheduled to a past time on the left, behind those waiting
  KEYS[4] dead    (ZSET)  id -> time it was dead-lettered (read only: a dead job is refused)
  KEYS[5] wake    (LIST)  the scheduler's wake-up token, and the name of the standbys' wake channel
  ARGV[1] job id
  ARGV[2] when: "now" (promote), "delay" (ARGV[3] ms from Redis TIME), "at" (ARGV[3] epoch ms),
          or "keep" (edit only: the due time stays)
  ARGV[3] the delay or due time, or "" for now/keep
  ARGV[4] the new payload, a JSON text; "" keeps the payload byte for byte
  ARGV[5] the shard's key prefix, where nohandler:<type> is named (optional: without it a job
          waiting for a handler is refused as 'running')
  Returns {place, dueAt}: place is where the job is now, 'delayed' or 'ready', with its due
  time; or {refusal, -1} with nothing changed: 'running', 'dead', 'unknown' (see
  include/pending.lua), 'waiting' (due, in nohandler:<type>: no worker that took it had its
  handler) or 'malformed: <why>' when its record cannot be read or written back.
  Invariant: the id stays in exactly one of delayed and ready, with its record; the new record is
  built before the id moves. The attempt count and last error are kept.
]]
--@include now
--@include record
--@include wake
--@include pending
local jobsKey, delayedKey, readyKey, deadKey, wakeKey = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local id, when, amount, payload = ARGV[1], ARGV[2], ARGV[3], ARGV[4]

local from = pendingPlace(jobsKey, delayedKey, readyKey, deadKey, id)
if from == 'running' and (ARGV[5] or '') ~= '' then
  -- neither delayed, ready nor dead, with its record: held by a consumer, or left waiting for a handler
  local waitingKey = ARGV[5] .. 'nohandler:' .. recordType(redis.call('HGET', jobsKey, id))
  if redis.call('ZSCORE', waitingKey, id) then from = 'waiting' end
end
if from ~= 'delayed' and from ~= 'ready' then return {from, -1} end
local now = nowMs()
local dueAt = nil
if when == 'now' then
  dueAt = now
elseif when == 'delay' then
  dueAt = now + tonumber(amount)
elseif when == 'at' then
  dueAt = tonumber(amount)
end
if payload == '' then payload = nil end
local place, due = changePending(jobsKey, delayedKey, readyKey, wakeKey, id, from, dueAt, payload, now, when == 'now')
if not place then return {'malformed: ' .. due, -1} end
return {place, due}
