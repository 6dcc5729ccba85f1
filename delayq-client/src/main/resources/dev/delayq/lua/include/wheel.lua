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

local WHEEL_MOST = 128

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
    'BYLEX', 'REV', 'LIMIT', 0, 1)[1]
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

-- The bucket for (due, id), or, when due is nil, the one that holds id.
local function wheelFind(delayedKey, due, id)
  if due then return wheelBucket(delayedKey, due, id) end
  return wheelSearch(delayedKey, id)
end

-- The due time a record gives (createdAt + d, or dueAt), or nil.
local function recordDue(raw)
  if not raw then return nil end
  local head = headText(raw)
  if string.sub(head, 1, 5) == '{"t":' then
    local c, d = string.match(head, ',"c":(%-?%d+),"d":(%-?%d+)')
    if c then return tonumber(c) + tonumber(d) end
  end
  return tonumber(string.match(head, '"dueAt":(%-?[%d.eE+]+)'))
end

-- Puts id, due at due, in the wheel. The caller has taken it out of every other place.
local function wheelAdd(delayedKey, due, id)
  local indexKey = delayedKey .. ':index'
  local at = wheelBucket(delayedKey, due, id)
  if not at then
    -- before every bucket: the first one moves its start down when it has room, else a new one
    local first = redis.call('ZRANGE', indexKey, 0, 0)[1]
    at = wheelPosition(due, id)
    if first and redis.call('ZCARD', delayedKey .. ':' .. first) < WHEEL_MOST then
      redis.call('RENAME', delayedKey .. ':' .. first, delayedKey .. ':' .. at)
      redis.call('ZREM', indexKey, first)
    end
    redis.call('ZADD', indexKey, 0, at)
  end
  local bucket = delayedKey .. ':' .. at
  if redis.call('ZCARD', bucket) >= WHEEL_MOST then
    -- split in halves before it grows past the listpack limit (a skiplist never turns back)
    local upper = redis.call('ZRANGE', bucket, WHEEL_MOST / 2, -1, 'WITHSCORES')
    local split = wheelPosition(tonumber(upper[2]), upper[1])
    local args = {}
    for i = 1, #upper, 2 do
      args[#args + 1] = upper[i + 1]
      args[#args + 1] = upper[i]
    end
    redis.call('ZADD', delayedKey .. ':' .. split, unpack(args))
    redis.call('ZREMRANGEBYRANK', bucket, WHEEL_MOST / 2, -1)
    redis.call('ZADD', indexKey, 0, split)
    if not wheelBefore(wheelPosition(due, id), split) then bucket = delayedKey .. ':' .. split end
  end
  if redis.call('ZADD', bucket, due, id) == 1 then
    redis.call('INCR', delayedKey .. ':count')
  end
end

-- Takes id out of the wheel's bucket for due (its record's due time; nil when unknown: then
-- every bucket is looked at) or out of the old delayed ZSET. Returns true when it was in either.
local function wheelRemove(delayedKey, due, id)
  local at = wheelFind(delayedKey, due, id)
  if at and redis.call('ZREM', delayedKey .. ':' .. at, id) == 1 then
    redis.call('DECR', delayedKey .. ':count')
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

-- Takes up to most ids due by cutoff out of the delayed jobs, earliest first (the old ZSET's
-- before the wheel's), and returns them.
local function wheelTakeDue(delayedKey, cutoff, most)
  local ids = {}
  if redis.call('EXISTS', delayedKey) == 1 then
    ids = redis.call('ZRANGEBYSCORE', delayedKey, '-inf', cutoff, 'LIMIT', 0, most)
    if #ids > 0 then redis.call('ZREM', delayedKey, unpack(ids)) end
  end
  local indexKey, taken = delayedKey .. ':index', 0
  while #ids < most do
    local first = redis.call('ZRANGE', indexKey, 0, 0)[1]
    if not first then break end
    local bucket = delayedKey .. ':' .. first
    local due = redis.call('ZRANGEBYSCORE', bucket, '-inf', cutoff, 'LIMIT', 0, most - #ids)
    if #due == 0 then break end
    redis.call('ZREM', bucket, unpack(due))
    for _, id in ipairs(due) do ids[#ids + 1] = id end
    taken = taken + #due
    if redis.call('EXISTS', bucket) == 1 then break end
    redis.call('ZREM', indexKey, first)
  end
  if taken > 0 then redis.call('DECRBY', delayedKey .. ':count', taken) end
  return ids
end
