--[[ readDelayed: reads a queue's (shard's) delayed jobs, in the time wheel and in the old
  delayed ZSET (include/wheel), for the read side (the job browser, stats, the forecast, check).
  It changes nothing.
  KEYS[1] delayed (wheel)  the delayed key; the wheel's keys are named after it
  KEYS[2] jobs    (HASH)  id -> record (modes "score" and "scan")
  ARGV[1] what to read:
    "range", min, max, offset, count[, start]: the jobs due in [min, max] (ZRANGEBYSCORE syntax:
      "-inf", "(123", "456", "+inf") in due order, from the offset-th on, at most count:
      {id, due, ...}; start (a position "skip" answered) begins the walk at that bucket instead
      of min's, the offset counted from there (ignored while the old ZSET exists)
    "skip", min, max, offset, start, buckets: walks the offset through the buckets from start
      (a position, inclusive; "" for min's bucket), at most buckets of them: {position, offset
      left, landed, old}: landed 1 when the offset-th job is in that position's bucket (then
      "range" from it), 0 when the budget ran out first (then "skip" again from it); position ""
      when the window holds no more; old 1 when the old ZSET exists (then "range" by offset)
    "count", min, max: how many are due in [min, max]
    "countSome", min, max, start, buckets: how many are due in [min, max] in at most buckets
      buckets from start (a position, inclusive; "" for min's bucket, and then the old ZSET's
      too): {n, the position to go on from, or "" when the window is counted}
    "countsSome", from, step, steps, step i, start, looks: how many are due in each of
      (from + i·step, from + (i+1)·step], from step i (0-based) on, in at most looks looks (a ZCOUNT
      of a bucket, or of the old ZSET once a step), from the bucket at start (a position,
      inclusive; "" for the step's first bucket, and then the old ZSET's count of it too):
      {the step to go on from (-1 when the window is counted), the position in it ("" from its
      start), the first step counted, its count, the next step's, ...}: a step cut by the budget
      is counted in part here and goes on in the next call
    "scan", after, most: the ids of whole buckets after the bucket after ("" from the first),
      at least most of them while there are more, those of them in a bucket their record's
      due time does not name (KEYS[2] jobs; a change by id would not find them), and those whose
      due time is out of range (include/wheel, WHEEL_LATEST; the forwarder dead-letters them),
      each with its due time:
      {next after, or "" at the end, n, m, id 1 … id n, misfiled id 1 … m, out-of-range id, due,
      ...}; the old ZSET is read apart (it is a plain ZSET)
    "score", id: the id's due time when it is delayed (found by its record's due time; KEYS[2]
      jobs), else nil
  Work: each bucket it reads holds at most 128 ids. range looks at the buckets of its window
  from its start (the caller skips a deep offset with "skip" first), skip and countSome at most
  their buckets, countsSome at most its looks (a ZCOUNT each, and a bucket lookup a step), scan
  at most most + 127 ids (one HMGET of records a bucket); count reads every bucket of its
  window. While the old ZSET exists, range by offset walks it too.
  Invariant: none kept or broken: it reads.
]]
--@include wheel
local delayedKey, mode = KEYS[1], ARGV[1]
local indexKey = delayedKey .. ':index'

local function bound(text, infinite)
  if text == '-inf' or text == '+inf' or text == 'inf' then return infinite end
  return tonumber((string.gsub(text, '^%(', '')))
end

local function positionDue(position)
  return tonumber(string.sub(position, 1, 16)) - 5e15
end

-- calls visit(bucket key, position) for each bucket that may hold ids due in [min, max], earliest
-- first, from the bucket at position from (inclusive; nil for min's), until visit returns true
local function eachBucket(min, max, visit, from)
  local high = bound(max, math.huge)
  if not from or from == '' then
    local low = bound(min, -math.huge)
    local start = nil
    if low > -5e15 then start = wheelBucket(delayedKey, low, '') end
    from = start and ('[' .. start) or '-'
  else
    from = '[' .. from
  end
  while true do
    local members = redis.call('ZRANGE', indexKey, from, '+', 'BYLEX', 'LIMIT', 0, 64)
    for _, position in ipairs(members) do
      if positionDue(position) > high then return end
      if visit(delayedKey .. ':' .. position, position) then return end
    end
    if #members < 64 then return end
    from = '(' .. members[#members]
  end
end

local function count(min, max)
  local n = redis.call('ZCOUNT', delayedKey, min, max)
  eachBucket(min, max, function(bucket)
    n = n + redis.call('ZCOUNT', bucket, min, max)
  end)
  return n
end

local function wheelRange(min, max, offset, most, start)
  local out = {}
  eachBucket(min, max, function(bucket)
    if offset > 0 then
      local here = redis.call('ZCOUNT', bucket, min, max)
      if here <= offset then
        offset = offset - here
        return false
      end
    end
    local got = redis.call('ZRANGEBYSCORE', bucket, min, max, 'WITHSCORES', 'LIMIT', offset, most - #out / 2)
    offset = 0
    for _, v in ipairs(got) do out[#out + 1] = v end
    return #out / 2 >= most
  end, start)
  return out
end

if mode == 'range' then
  local min, max, offset, most = ARGV[2], ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])
  if redis.call('EXISTS', delayedKey) == 0 then return wheelRange(min, max, offset, most, ARGV[6]) end
  -- the old ZSET too (until the forwarder has drained it): merge both, by (due, id)
  local a = wheelRange(min, max, 0, offset + most)
  local b = redis.call('ZRANGEBYSCORE', delayedKey, min, max, 'WITHSCORES', 'LIMIT', 0, offset + most)
  local out, i, j = {}, 1, 1
  while #out / 2 < offset + most and (i <= #a or j <= #b) do
    local takeA = j > #b or (i <= #a and (tonumber(a[i + 1]) < tonumber(b[j + 1])
      or (tonumber(a[i + 1]) == tonumber(b[j + 1]) and wheelBefore(a[i], b[j]))))
    if takeA then
      out[#out + 1], out[#out + 2] = a[i], a[i + 1]
      i = i + 2
    else
      out[#out + 1], out[#out + 2] = b[j], b[j + 1]
      j = j + 2
    end
  end
  local page = {}
  for k = 2 * offset + 1, #out do page[#page + 1] = out[k] end
  return page
elseif mode == 'score' then
  return wheelScore(delayedKey, recordDue(redis.call('HGET', KEYS[2], ARGV[2])), ARGV[2])
elseif mode == 'skip' then
  local min, max, offset, start, most = ARGV[2], ARGV[3], tonumber(ARGV[4]), ARGV[5], tonumber(ARGV[6])
  if redis.call('EXISTS', delayedKey) == 1 then return { '', offset, 0, 1 } end
  local at, landed, looked = '', 0, 0
  eachBucket(min, max, function(bucket, position)
    if looked >= most then
      at = position
      return true
    end
    looked = looked + 1
    local here = redis.call('ZCOUNT', bucket, min, max)
    if here > offset then
      at, landed = position, 1
      return true
    end
    offset = offset - here
    return false
  end, start)
  return { at, offset, landed, 0 }
elseif mode == 'countSome' then
  local min, max, start, most = ARGV[2], ARGV[3], ARGV[4], tonumber(ARGV[5])
  local n = 0
  if start == '' then n = redis.call('ZCOUNT', delayedKey, min, max) end
  local at, looked = '', 0
  eachBucket(min, max, function(bucket, position)
    if looked >= most then
      at = position
      return true
    end
    looked = looked + 1
    n = n + redis.call('ZCOUNT', bucket, min, max)
    return false
  end, start)
  return { n, at }
elseif mode == 'count' then
  return count(ARGV[2], ARGV[3])
elseif mode == 'countsSome' then
  local from, step, steps = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
  local i, at, most = tonumber(ARGV[5]), ARGV[6], tonumber(ARGV[7])
  local out = { -1, '', i }
  local looked = 0
  while i < steps do
    local min, max = '(' .. numberText(from + i * step), numberText(from + (i + 1) * step)
    local n = 0
    if at == '' then
      -- the old ZSET (until the forwarder has drained it) once a step, as its first look
      n = redis.call('ZCOUNT', delayedKey, min, max)
      looked = looked + 1
    end
    local stopped = nil
    -- a bucket whose ids fall in two steps is counted in each (a ZCOUNT of the step's range)
    eachBucket(min, max, function(bucket, position)
      if looked >= most then
        stopped = position
        return true
      end
      looked = looked + 1
      n = n + redis.call('ZCOUNT', bucket, min, max)
      return false
    end, at)
    out[#out + 1] = n
    if stopped then
      out[1], out[2] = i, stopped
      return out
    end
    i, at = i + 1, ''
    if looked >= most and i < steps then
      out[1] = i
      return out
    end
  end
  return out
elseif mode == 'scan' then
  -- a position's due time and id when it is a 16-digit one, else nil
  local function parts(position)
    if not position or not string.find(position, WHEEL_POSITION) then return nil end
    return tonumber(string.sub(position, 1, 16)), string.sub(position, 18)
  end
  -- (due, id) before the position: by the due times as numbers, and by the ids only at one due
  -- time (a position's text compared byte by byte in Lua cost more than the rest of the id's
  -- check); the text for what the numbers cannot order (a due time out of range or not whole)
  local function before(due, id, position, start, name)
    if start and wheelDueInRange(due) and due == math.floor(due) then
      local at = due + 5e15
      if at ~= start then return at < start end
      return wheelBefore(id, name)
    end
    return wheelBefore(wheelPosition(due, id), position)
  end
  local after, most = ARGV[2], tonumber(ARGV[3])
  local from = after == '' and '-' or ('(' .. after)
  local ids, misfiled, outOfRange, last, done = {}, {}, {}, nil, false
  while not done and #ids < most do
    -- one member more than the buckets it reads: a bucket holds the positions up to the next
    -- one's, so a record's bucket is told by two comparisons, not an index lookup an id
    local members = redis.call('ZRANGE', indexKey, from, '+', 'BYLEX', 'LIMIT', 0, 17)
    local read = math.min(#members, 16)
    for k = 1, read do
      local position, following = members[k], members[k + 1]
      local start, name = parts(position)
      local nextStart, nextName = parts(following)
      local bucket = redis.call('ZRANGE', delayedKey .. ':' .. position, 0, -1, 'WITHSCORES')
      if #bucket > 0 then
        local names = {}
        for i = 1, #bucket, 2 do names[#names + 1] = bucket[i] end
        local records = redis.call('HMGET', KEYS[2], unpack(names))
        for n, id in ipairs(names) do
          local score = tonumber(bucket[2 * n])
          ids[#ids + 1] = id
          local due = recordDue(records[n])
          if not wheelDueInRange(score) then
            outOfRange[#outOfRange + 1] = id
            outOfRange[#outOfRange + 1] = bucket[2 * n]
          elseif due and (before(due, id, position, start, name)
              or (following and not before(due, id, following, nextStart, nextName))) then
            misfiled[#misfiled + 1] = id
          end
        end
      end
      last = position
      if #ids >= most then break end
    end
    -- the index is read to its end when a short read's last bucket was taken
    if #members < 17 and (#members == 0 or last == members[#members]) then done = true end
    if last then from = '(' .. last end
  end
  local out = { done and '' or last, #ids, #misfiled }
  for _, id in ipairs(ids) do out[#out + 1] = id end
  for _, id in ipairs(misfiled) do out[#out + 1] = id end
  for _, v in ipairs(outOfRange) do out[#out + 1] = v end
  return out
end
return redis.error_reply('readDelayed: unknown mode ' .. tostring(mode))
