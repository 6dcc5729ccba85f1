--[[ makeAllDue: the test kit's "everything is due now"; never used outside tests.
  KEYS[1] delayed (wheel)  the delayed key: the time wheel's keys are named after it; its ids
          are taken as the forwarder takes them (include/wheel.lua and now.lua,
          expanded by Script.expandIncludes), everything counting as due
  KEYS[2] jobs    (HASH)  id -> record
  KEYS[3] ready   (LIST)  due ids, consumers take from the right
  ARGV[1] most ids to change in this call
  Returns the number of ids it made due (ARGV[1] of them: call again).
  Invariant: each id leaves delayed and enters ready in one step, as moveDueToReady moves it,
  earliest first; its record's due time becomes now (the payload untouched), as if it had been
  enqueued due now.
]]
--@include wheel
--@include now
local delayedKey, jobsKey, readyKey = KEYS[1], KEYS[2], KEYS[3]
local most = tonumber(ARGV[1])
local now = nowMs()

-- everything is due, out-of-range due times (include/wheel) too
local ids, _, outOfRange = wheelTakeDue(delayedKey, '+inf', most)
for i = 1, #outOfRange, 2 do ids[#ids + 1] = outOfRange[i] end

for _, id in ipairs(ids) do
  local raw = redis.call('HGET', jobsKey, id)
  if raw then
    local at = string.find(raw, ',"p":', 1, true) or string.find(raw, ',"payload":', 1, true) or #raw
    local head, rest = string.sub(raw, 1, at - 1), string.sub(raw, at)
    local c = string.match(head, ',"c":(%-?%d+),"d":')
    if c then
      head = string.gsub(head, ',"d":%-?%d+', ',"d":' .. (now - tonumber(c)), 1)
    else
      head = string.gsub(head, '"dueAt":%-?[%d.eE+]+', '"dueAt":' .. now, 1)
    end
    redis.call('HSET', jobsKey, id, head .. rest)
  end
  redis.call('LPUSH', readyKey, id)
end
return #ids
