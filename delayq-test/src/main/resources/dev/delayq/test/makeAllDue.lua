--[[ makeAllDue: the test kit's "everything is due now"; never used outside tests.
  KEYS[1] delayed (ZSET)  the delayed key: the time wheel's keys are named after it
          (delayed:index, delayed:<position>, delayed:count: include/wheel.lua in delayq-client),
          and the ZSET itself is the layout before the wheel
  KEYS[2] jobs    (HASH)  id -> record
  KEYS[3] ready   (LIST)  due ids, consumers take from the right
  ARGV[1] most ids to change in this call
  Returns the number of ids it made due (ARGV[1] of them: call again).
  Invariant: each id leaves delayed and enters ready in one step, as moveDueToReady moves it,
  earliest first; its record's due time becomes now (the payload untouched), as if it had been
  enqueued due now.
]]
local delayedKey, jobsKey, readyKey = KEYS[1], KEYS[2], KEYS[3]
local most = tonumber(ARGV[1])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

local ids = redis.call('ZRANGE', delayedKey, 0, most - 1)
if #ids > 0 then redis.call('ZREM', delayedKey, unpack(ids)) end
local indexKey, taken = delayedKey .. ':index', 0
while #ids < most do
  local first = redis.call('ZRANGE', indexKey, 0, 0)[1]
  if not first then break end
  local bucket = delayedKey .. ':' .. first
  local some = redis.call('ZRANGE', bucket, 0, most - #ids - 1)
  redis.call('ZREM', bucket, unpack(some))
  for _, id in ipairs(some) do ids[#ids + 1] = id end
  taken = taken + #some
  if redis.call('EXISTS', bucket) == 1 then break end
  redis.call('ZREM', indexKey, first)
end
if taken > 0 then redis.call('DECRBY', delayedKey .. ':count', taken) end

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
