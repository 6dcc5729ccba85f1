--@include recordFormat
-- The time wheel that holds a queue's (shard's) delayed jobs (docs/redis-layout.md, "The time
-- wheel"): small ZSETs (buckets, id -> due time, epoch ms) of at most WHEEL_MOST ids, so that each
-- stays a listpack (~35 B an id instead of a skiplist's ~120), and an index of them. Every key is
-- named after the delayed key the caller passes (KEYS), so all sit in its slot:
--   <delayed>:index   ZSET, every score 0, members '<position>' in lex order: one per bucket, the
--                     position of the first (due, id) it may hold; it holds up to the next one's
--   <delayed>:<position>  ZSET, a bucket
--   <delayed>:count   STRING, the ids in all buckets (the depth, without reading every bucket)
--   <delayed>         ZSET, id -> due time: the layout before the wheel, still read and drained
--                     until it is empty (nothing adds to it any more)
-- A position is '<due + 5e15, 16 digits>|<id>', so lex order is (due, id) order, and an id's
-- bucket follows from its due time (the one in its record, which every writer keeps equal to its
-- place's) by one index lookup: ties of any number of ids at one ms split by id. This include is
-- the only Lua that knows the layout.

-- zset-max-listpack-entries (128). Splitting at 64 made the scans of an add shorter but the
-- enqueue bench no cheaper, for ~5 B more a job (docs/redis-layout.md).
local WHEEL_MOST = 128

-- The fewest due ids of one bucket for which a take asks whether they are all of it (ZCARD), to
-- delete the bucket whole instead of ZREM of each: below it, the ZREM is cheaper than the question.
local WHEEL_WHOLE_AT = 16

-- Moves the depth (<delayed>:count) by n, after the ids themselves moved. A count that holds no
-- integer (another client wrote it) is reset to max(n, 0) rather than failing a call whose ids are
-- already in or out of their buckets: an error now would leave them half-moved.
local function wheelCount(delayedKey, n)
  local counted = redis.pcall('INCRBY', delayedKey .. ':count', numberText(n))
  if type(counted) == 'table' and counted.err then
    redis.pcall('SET', delayedKey .. ':count', numberText(math.max(n, 0)))
  end
end

-- a < b byte by byte, as Redis orders lex ranges (Lua's < follows the locale)
local function wheelBefore(a, b)
  for i = 1, math.min(#a, #b) do
    local x, y = string.byte(a, i), string.byte(b, i)
    if x ~= y then return x < y end
  end
  return #a < #b
end

local function wheelPosition(due, id)
  return string.format('%016d', due + 5e15) .. '|' .. id
end

-- The index member of the bucket that holds (due, id) if it is anywhere in the wheel, or nil.
local function wheelBucket(delayedKey, due, id)
  return redis.call('ZRANGE', delayedKey .. ':index', '[' .. wheelPosition(due, id), '-',
    'BYLEX', 'REV', 'LIMIT', '0', '1')[1]
end

-- The index member of the bucket that holds id, looked for in every bucket: for an id whose due
-- time is unknown (its record cannot be read), so O(delayed ids / 64), never on a job's path.
local function wheelSearch(delayedKey, id)
  local from = '-'
  while true do
    local members = redis.call('ZRANGE', delayedKey .. ':index', from, '+', 'BYLEX', 'LIMIT', 0, 100)
    for _, position in ipairs(members) do
      if redis.call('ZSCORE', delayedKey .. ':' .. position, id) then return position end
    end
    if #members < 100 then return nil end
    from = '(' .. members[#members]
  end
end

-- The bucket for (due, id); when due is false (the id has no record), none: an id leaves the
-- wheel with its record, so a cancel of a finished job costs one HGET, not a look at every
-- bucket; when due is nil (a record whose due time cannot be read), the bucket that holds id.
local function wheelFind(delayedKey, due, id)
  if due then return wheelBucket(delayedKey, due, id) end
  if due == false then return nil end
  return wheelSearch(delayedKey, id)
end

-- The due time a record gives (createdAt + d, or dueAt); false for no record, nil for a record
-- that does not say (see wheelFind).
local function recordDue(raw)
  if not raw then return false end
  local head = headText(raw)
  if string.sub(head, 1, 5) == '{"t":' then
    local c, d = string.match(head, ',"c":(%-?%d+),"d":(%-?%d+)')
    if c then return tonumber(c) + tonumber(d) end
  end
  return tonumber(string.match(head, '"dueAt":(%-?[%d.eE+]+)'))
end

-- Splits the bucket at (index member) of size ids in halves before it grows past the listpack
-- limit (a skiplist never turns back): a COPY of the bucket (its listpack's bytes) loses its lower
-- half, the bucket its upper half. Adding the upper half's ids one by one to a new ZSET scans its
-- listpack for each: that cost ten times more, a few µs per enqueued job. Returns the upper
-- half's index member and the halves' sizes.
local function wheelSplit(delayedKey, at, size)
  local bucket = delayedKey .. ':' .. at
  local half = math.floor(size / 2)
  local upper = redis.call('ZRANGE', bucket, half, half, 'WITHSCORES')
  local split = wheelPosition(tonumber(upper[2]), upper[1])
  local upperKey = delayedKey .. ':' .. split
  redis.call('COPY', bucket, upperKey, 'REPLACE')
  redis.call('ZREMRANGEBYRANK', upperKey, 0, half - 1)
  redis.call('ZREMRANGEBYRANK', bucket, half, -1)
  redis.call('ZADD', delayedKey .. ':index', '0', split)
  return split, half, size - half
end

-- Puts id, due at due, in the wheel, without counting it: returns 1 when it was not in its bucket
-- yet (the caller adds that to <delayed>:count), else 0, and the bucket's index member. The caller
-- has taken it out of every other place.
local function wheelPut(delayedKey, due, id)
  local indexKey = delayedKey .. ':index'
  local at = wheelBucket(delayedKey, due, id)
  if not at then
    -- before every bucket: the first one moves its start down when it has room, else a new one
    local first = redis.call('ZRANGE', indexKey, '0', '0')[1]
    at = wheelPosition(due, id)
    if first and redis.call('ZCARD', delayedKey .. ':' .. first) < WHEEL_MOST then
      redis.call('RENAME', delayedKey .. ':' .. first, delayedKey .. ':' .. at)
      redis.call('ZREM', indexKey, first)
    end
    redis.call('ZADD', indexKey, '0', at)
  end
  local bucket = delayedKey .. ':' .. at
  local size = redis.call('ZCARD', bucket)
  if size >= WHEEL_MOST then
    local split = wheelSplit(delayedKey, at, size)
    if not wheelBefore(wheelPosition(due, id), split) then
      at = split
      bucket = delayedKey .. ':' .. split
    end
  end
  return redis.call('ZADD', bucket, numberText(due), id), at
end

-- Puts id, due at due, in the wheel. The caller has taken it out of every other place.
local function wheelAdd(delayedKey, due, id)
  if wheelPut(delayedKey, due, id) == 1 then
    wheelCount(delayedKey, 1)
  end
end

-- Many adds in one script call (enqueue's batch): wheelGather collects them and wheelFlush puts
-- them all in the wheel, bucket by bucket, and counts them with one INCRBY. Until the flush they
-- are nowhere: the caller flushes before it reads the wheel or the ids' places, and before it
-- returns. wheelAdd, for one id, needs no flush.
local function wheelAdds(delayedKey)
  return { key = delayedKey, dues = {}, ids = {}, has = {} }
end

-- The index members (positions) from the bucket that holds due times of low on to the last one
-- before high + 1 ms, in order; nil when they are many more than the n adds that will look them
-- up (then one lookup per add is cheaper than reading them all).
local function wheelRange(indexKey, low, high, n)
  local start, to = wheelPosition(low, ''), '(' .. wheelPosition(high + 1, '')
  -- the ones that start within the range, and the one before it that holds its first ids
  if redis.call('ZLEXCOUNT', indexKey, '[' .. start, to) + 1 > 2 * n + 8 then return nil end
  local from = redis.call('ZRANGE', indexKey, '[' .. start, '-', 'BYLEX', 'REV', 'LIMIT', '0', '1')[1]
  return redis.call('ZRANGE', indexKey, from and ('[' .. from) or '-', to, 'BYLEX')
end

-- The range of due times (DueTime in Java, which every producer's door applies): from the epoch
-- to 9999-12-31T23:59:59.999Z. Every due time in it has a 16-digit position, exact in a double.
-- A record outside it (written by an older version, or by hand) may have a position that sorts
-- before every real one (17 digits, or '-9223372036854775808|...'); wheelTakeDue never stops at
-- such a bucket: it takes it, and hands each id whose due time is out of range to its caller.
local WHEEL_LATEST = 253402300799999
local WHEEL_POSITION = '^' .. string.rep('%d', 16) .. '|'

local function wheelDueInRange(due)
  return due >= 0 and due <= WHEEL_LATEST
end

-- (due, id) is before the position whose due time (+ 5e15, as its 16 digits say) and id are
-- start and name: position order without writing the position.
local function wheelBeforeParsed(due, id, start, name)
  local s = math.floor(due) + 5e15
  return s < start or (s == start and wheelBefore(id, name))
end

-- Puts the adds list (indexes into dues and ids) in the bucket at (index member), which holds
-- size ids (nil: ask ZCARD) and whose range holds all of them: as many as it has room for in one
-- ZADD; when they do not all fit, it splits the bucket, now full, and goes on with each half,
-- whose sizes it knows. Returns how many ids it added.
local function wheelFill(key, at, size, list, dues, ids)
  local bucket = key .. ':' .. at
  size = size or redis.call('ZCARD', bucket)
  local fit = math.min(#list, WHEEL_MOST - size)
  local added = 0
  if fit > 0 then
    local args = {}
    for g = 1, fit do
      local i = list[g]
      args[#args + 1] = numberText(dues[i])
      args[#args + 1] = ids[i]
    end
    added = redis.call('ZADD', bucket, unpack(args))
  end
  if fit == #list then return added end
  if added < fit then
    -- some were in the bucket already (no caller adds such ids): the size is not the one
    -- reckoned, so the others go one by one
    for g = fit + 1, #list do added = added + wheelPut(key, dues[list[g]], ids[list[g]]) end
    return added
  end
  local split, lowerSize, upperSize = wheelSplit(key, at, size + added)
  -- which half each of the others goes to, in the order a lookup sees: a 16-digit position and a
  -- due time in range compare as numbers; else (see WHEEL_LATEST) by the positions' text
  local start, name
  if string.find(split, WHEEL_POSITION) then start, name = tonumber(string.sub(split, 1, 16)), string.sub(split, 18) end
  local lower, upper = {}, {}
  for g = fit + 1, #list do
    local i = list[g]
    local below
    if start and wheelDueInRange(dues[i]) then
      below = wheelBeforeParsed(dues[i], ids[i], start, name)
    else
      below = wheelBefore(wheelPosition(dues[i], ids[i]), split)
    end
    if below then
      lower[#lower + 1] = i
    else
      upper[#upper + 1] = i
    end
  end
  if #lower > 0 then added = added + wheelFill(key, at, lowerSize, lower, dues, ids) end
  if #upper > 0 then added = added + wheelFill(key, split, upperSize, upper, dues, ids) end
  return added
end

-- Puts the gathered adds in the wheel. Each add's bucket comes from one read of the index range
-- they fall in (a binary search over it here) or, when that range is large, one lookup per add;
-- the adds of one bucket go in with one ZCARD and one ZADD while the bucket has room for them,
-- and past its room the bucket splits and its halves take the rest (wheelFill). The adds before
-- every bucket go in last: the earliest of them alone (wheelPut: it makes the first bucket start
-- at it), then the others, which that bucket now holds, together.
local function wheelFlush(adds)
  local n = #adds.ids
  if n == 0 then return end
  local key, dues, ids = adds.key, adds.dues, adds.ids
  adds.dues, adds.ids, adds.has = {}, {}, {}
  local indexKey = key .. ':index'
  local low, high = dues[1], dues[1]
  for i = 2, n do
    if dues[i] < low then low = dues[i] elseif dues[i] > high then high = dues[i] end
  end
  local members = wheelRange(indexKey, low, high, n)
  -- the members' due times (positions' numbers) and ids, parsed when the search first reads them
  local starts, names = {}, {}
  local function parse(j)
    local m = members[j]
    local bar = string.find(m, '|', 1, true)
    starts[j], names[j] = tonumber(string.sub(m, 1, bar - 1)), string.sub(m, bar + 1)
  end
  local groups, order, before = {}, {}, {}
  for i = 1, n do
    local due, id, at = dues[i], ids[i], nil
    if members then
      -- the last member not after (due, id), as wheelBucket's lookup finds it
      local lo, hi, found = 1, #members, 0
      while lo <= hi do
        local mid = math.floor((lo + hi) / 2)
        if not starts[mid] then parse(mid) end
        if not wheelBeforeParsed(due, id, starts[mid], names[mid]) then
          found, lo = mid, mid + 1
        else
          hi = mid - 1
        end
      end
      at = members[found]
    else
      at = wheelBucket(key, due, id)
    end
    if at then
      local group = groups[at]
      if not group then
        group = {}
        groups[at] = group
        order[#order + 1] = at
      end
      group[#group + 1] = i
    else
      before[#before + 1] = i
    end
  end
  local added = 0
  for _, at in ipairs(order) do added = added + wheelFill(key, at, nil, groups[at], dues, ids) end
  if #before > 0 then
    local first = 1
    for g = 2, #before do
      local i, f = before[g], before[first]
      if wheelBeforeParsed(dues[i], ids[i], math.floor(dues[f]) + 5e15, ids[f]) then first = g end
    end
    local i = before[first]
    local one, at = wheelPut(key, dues[i], ids[i])
    added = added + one
    table.remove(before, first)
    if at == wheelPosition(dues[i], ids[i]) then
      -- the first bucket now starts at the earliest of them: it holds the others too
      if #before > 0 then added = added + wheelFill(key, at, nil, before, dues, ids) end
    else
      -- it went in a bucket that starts before it (whose position is out of range and sorts
      -- apart from its due time, see WHEEL_LATEST): the others find theirs one by one
      for _, j in ipairs(before) do added = added + wheelPut(key, dues[j], ids[j]) end
    end
  end
  if added > 0 then wheelCount(key, added) end
end

-- Gathers one add for wheelFlush. An id gathered twice flushes the first add before it (the
-- second then finds the first in its bucket, as wheelAdd would).
local function wheelGather(adds, due, id)
  if adds.has[id] then wheelFlush(adds) end
  adds.has[id] = true
  adds.dues[#adds.dues + 1] = due
  adds.ids[#adds.ids + 1] = id
end

-- Takes id out of the wheel's bucket for due (its record's due time; nil when unknown: then
-- every bucket is looked at) or out of the old delayed ZSET. Returns true when it was in either.
local function wheelRemove(delayedKey, due, id)
  local at = wheelFind(delayedKey, due, id)
  if at and redis.call('ZREM', delayedKey .. ':' .. at, id) == 1 then
    wheelCount(delayedKey, -1)
    if redis.call('EXISTS', delayedKey .. ':' .. at) == 0 then
      redis.call('ZREM', delayedKey .. ':index', at)
    end
    return true
  end
  return redis.call('ZREM', delayedKey, id) == 1
end

-- The id's due time in the wheel (or the old ZSET), or nil when it is not delayed.
local function wheelScore(delayedKey, due, id)
  local at = wheelFind(delayedKey, due, id)
  if at then
    local score = redis.call('ZSCORE', delayedKey .. ':' .. at, id)
    if score then return tonumber(score) end
  end
  local score = redis.call('ZSCORE', delayedKey, id)
  return score and tonumber(score) or nil
end

-- The earliest delayed job: its id and due time, or nil, nil when nothing is delayed.
local function wheelHead(delayedKey)
  local id, due
  local first = redis.call('ZRANGE', delayedKey .. ':index', 0, 0)[1]
  if first then
    local head = redis.call('ZRANGE', delayedKey .. ':' .. first, 0, 0, 'WITHSCORES')
    id, due = head[1], tonumber(head[2])
  end
  local old = redis.call('ZRANGE', delayedKey, 0, 0, 'WITHSCORES')
  if old[1] and (not due or tonumber(old[2]) < due) then id, due = old[1], tonumber(old[2]) end
  return id, due
end

-- The earliest due time in one ZSET (a bucket or the old delayed ZSET), or nil when it is gone.
local function wheelFirstDue(key)
  return tonumber(redis.call('ZRANGE', key, '0', '0', 'WITHSCORES')[2])
end

-- The text of the range, for the reason an out-of-range job is dead-lettered with.
local WHEEL_RANGE_TEXT = 'due times run from the epoch to 9999-12-31T23:59:59.999Z'

-- Takes a bucket whose position is not a 16-digit one out of the wheel, at most most of its ids
-- a call: each id whose due time is in range is put back where its due time says, the others go
-- to out (id, due, ...). Returns how many ids it looked at. What it leaves stays indexed, for the
-- next call.
local function wheelEvacuate(delayedKey, position, most, out)
  local indexKey, bucket = delayedKey .. ':index', delayedKey .. ':' .. position
  local members = redis.call('ZRANGE', bucket, '0', numberText(most - 1), 'WITHSCORES')
  redis.call('ZREM', indexKey, position)
  local n = #members / 2
  if n == 0 then return 0 end
  local ids = {}
  for i = 1, #members, 2 do ids[#ids + 1] = members[i] end
  redis.call('ZREM', bucket, unpack(ids))
  local left = n
  for i = 1, #members, 2 do
    local due = tonumber(members[i + 1])
    if wheelDueInRange(due) then
      left = left - wheelPut(delayedKey, due, members[i])
    else
      out[#out + 1] = members[i]
      out[#out + 1] = due
    end
  end
  if redis.call('EXISTS', bucket) == 1 then redis.call('ZADD', indexKey, '0', position) end
  if left ~= 0 then wheelCount(delayedKey, -left) end
  return n
end

-- Takes the ids of bucket whose due time is out of range (due past the latest, or before the
-- epoch) out of it, at most most, into out (id, due, ...). Returns how many it took.
local function wheelTakeOutOfRange(delayedKey, bucket, most, out)
  local taken = 0
  for _, range in ipairs({ { '(' .. numberText(WHEEL_LATEST), '+inf' }, { '-inf', '(0' } }) do
    local members = redis.call('ZRANGEBYSCORE', bucket, range[1], range[2], 'WITHSCORES', 'LIMIT', '0',
      numberText(most - taken))
    local ids = {}
    for i = 1, #members, 2 do
      ids[#ids + 1] = members[i]
      out[#out + 1] = members[i]
      out[#out + 1] = tonumber(members[i + 1])
    end
    if #ids > 0 then redis.call('ZREM', bucket, unpack(ids)) end
    taken = taken + #ids
  end
  if taken > 0 then wheelCount(delayedKey, -taken) end
  return taken
end

-- Takes up to most ids due by cutoff out of the delayed jobs, earliest first (the old ZSET's
-- before the wheel's), and returns them, the due time of the earliest id left (nil when
-- nothing is delayed any more): the forwarder sleeps until then without reading the head again,
-- and the ids whose due time is out of range that it took out of the wheel on its way
-- (id, due, ...: the caller gives them a place). A bucket it took from answers both whether it
-- is gone and its new head with one ZRANGE; one it took wholly is deleted at once. A bucket it
-- cannot order (see WHEEL_LATEST) costs it as much of its budget as the ids it looked at; when
-- the budget runs out on one, the next due time is cutoff (call again at once).
local function wheelTakeDue(delayedKey, cutoff, most)
  local ids, oldNext, outOfRange = {}, nil, {}
  if redis.call('EXISTS', delayedKey) == 1 then
    ids = redis.call('ZRANGEBYSCORE', delayedKey, '-inf', numberText(cutoff), 'LIMIT', '0', numberText(most))
    if #ids > 0 then redis.call('ZREM', delayedKey, unpack(ids)) end
    oldNext = wheelFirstDue(delayedKey)
  end
  local indexKey, taken, wheelNext, known, looked = delayedKey .. ':index', 0, nil, false, 0
  while #ids + looked < most do
    local first = redis.call('ZRANGE', indexKey, '0', '0')[1]
    if not first then known = true break end
    local bucket = delayedKey .. ':' .. first
    if not string.find(first, WHEEL_POSITION) then
      looked = looked + wheelEvacuate(delayedKey, first, most - #ids - looked, outOfRange)
    else
      -- from 0: a due time before the epoch is out of range (taken below, with the others)
      local due = redis.call('ZRANGEBYSCORE', bucket, '0', numberText(cutoff), 'LIMIT', '0', numberText(most - #ids - looked))
      local whole = false
      if #due > 0 then
        -- a bucket due as a whole (the rule in a backlog) goes in one DEL: a ZREM of each id
        -- converts every id again and closes the listpack's gap once per id. Asked only past a few
        -- ids, so a step that moves a trickle costs no ZCARD more.
        whole = #due >= WHEEL_WHOLE_AT and redis.call('ZCARD', bucket) == #due
        if whole then
          redis.call('DEL', bucket)
        else
          redis.call('ZREM', bucket, unpack(due))
        end
        for _, id in ipairs(due) do ids[#ids + 1] = id end
        taken = taken + #due
      end
      wheelNext = not whole and wheelFirstDue(bucket) or nil
      if wheelNext and wheelDueInRange(wheelNext) then known = true break end
      if wheelNext then
        -- its head is out of range: it would hold the take here for ever (or, before the epoch,
        -- never be taken); take those out and look at what is left of the bucket again
        wheelNext = nil
        looked = looked + wheelTakeOutOfRange(delayedKey, bucket, most - #ids - looked, outOfRange)
        if redis.call('EXISTS', bucket) == 0 then redis.call('ZREM', indexKey, first) end
      else
        -- the bucket is gone (emptied by this take): drop it from the index and go on
        redis.call('ZREM', indexKey, first)
      end
    end
  end
  if taken > 0 then wheelCount(delayedKey, -taken) end
  if not known then
    -- the batch filled before the wheel's head was looked at (the caller calls again at once)
    local _, due = wheelHead(delayedKey)
    wheelNext = due
    if looked > 0 and due then wheelNext = math.min(due, tonumber(cutoff) or due) end
  end
  if oldNext and (not wheelNext or oldNext < wheelNext) then wheelNext = oldNext end
  return ids, wheelNext, outOfRange
end
