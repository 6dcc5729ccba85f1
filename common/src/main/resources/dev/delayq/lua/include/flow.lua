-- Flow control at claim time: pauses, rate limits and concurrency caps (docs/flow-control.md).
-- Needs the now, record, wake and delivery includes before it.
--
-- The claim scripts call flowOf() once per call and admit() for each job they are about to take
-- from ready. With no limit configured, nothing paused and nothing held, flowOf() costs one
-- EXISTS and returns nil: the claim goes on exactly as without flow control.
--
-- Where a job that may not start now goes, so that nothing spins:
--   paused queue or type -> held:<type> (LIST), its record marked "heldAt" (its lateness is then
--                           counted apart); resume.lua gives the list back to ready
--   type at its cap      -> held:<type> as well; a claim that finds a slot free gives back as
--                           many as are free
--   type over its rate   -> delayed, due when the window lets it in (spread at the rate over
--                           the jobs already deferred), record untouched: no attempt is burned
-- A limited job (rate or cap) is only claimed as the first of a batch, which starts at once:
-- its start is its claim, so the window and the slot count starts, not claims of prefetch.
--
-- Key names: the claim script gets the queue's key base '<prefix>:{<queue>}:' from Keys
-- (Keys.flowBase()) and appends the suffixes that Keys.held/rateWindow/rateNext/capHolders
-- also build: held:<type>, rate:<type>[|<key>], ratenext:<type>[|<key>], cap:<type>. All are
-- in the queue's slot.
--
-- A cap slot is the delivery itself: cap:<type> (HASH) maps each admitted delivery to the
-- in-flight list holding it. A slot is free again once its delivery has left that list, which
-- every end of a delivery does in its own script (ack, retry, dead-letter, and recovery's
-- requeueInFlight for a crashed or silent worker), so no slot outlives its holder. Slots are
-- checked only when the cap looks full.

-- The limits spec (ARGV from the worker's queue.limits): one line per type,
-- '<type> <rate> <periodMs> <keyField or -> <cap>', 0 for none.
local function parseLimits(spec)
  local limits = {}
  for line in string.gmatch(spec, '[^\n]+') do
    local t, rate, period, keyField, cap = string.match(line, '^(%S+) (%d+) (%d+) (%S+) (%d+)$')
    if t then
      limits[t] = { rate = tonumber(rate), period = tonumber(period), cap = tonumber(cap),
        keyField = keyField ~= '-' and keyField or nil }
    end
  end
  return limits
end

-- Live cap holders of a type: stale ones (their delivery left its in-flight list) are dropped.
local function capHeld(capKey)
  local pairs_ = redis.call('HGETALL', capKey)
  local live = 0
  for i = 1, #pairs_, 2 do
    if redis.call('LPOS', pairs_[i + 1], pairs_[i], 'RANK', '-1') then
      live = live + 1
    else
      redis.call('HDEL', capKey, pairs_[i])
    end
  end
  return live
end

local function capFree(f, t, limit)
  local capKey = f.base .. 'cap:' .. t
  local held = redis.call('HLEN', capKey)
  if held >= limit.cap then held = capHeld(capKey) end
  return limit.cap - held
end

local function isPaused(f, t)
  return f.paused['*'] or f.paused[t]
end

-- Gives held jobs back to ready's right end (next to run, oldest first) for every held type
-- that is not paused, as many as its cap has free (at most 'most'). Returns how many.
local function giveBackHeld(f, readyKey, most)
  local given = 0
  for _, t in ipairs(redis.call('SMEMBERS', f.heldIndexKey)) do
    if not isPaused(f, t) then
      local heldKey = f.base .. 'held:' .. t
      local room = most
      local limit = f.limits[t]
      if limit and limit.cap > 0 then room = math.min(room, capFree(f, t, limit)) end
      for _ = 1, room do
        local id = redis.call('RPOP', heldKey)
        if not id then break end
        redis.call('RPUSH', readyKey, id)
        given = given + 1
      end
      if redis.call('LLEN', heldKey) == 0 then redis.call('SREM', f.heldIndexKey, t) end
    end
  end
  return given
end

-- The flow state for this claim, or nil on the fast path (nothing to check).
-- keys: { paused = HASH, heldIndex = SET, delayed = ZSET, wake = LIST } (Keys builds them).
local function flowOf(keys, base, spec, readyKey)
  if spec == '' and redis.call('EXISTS', keys.paused, keys.heldIndex) == 0 then return nil end
  local f = { base = base, heldIndexKey = keys.heldIndex, paused = {}, limits = parseLimits(spec),
    delayedKey = keys.delayed, wakeKey = keys.wake }
  local pausedKey, heldIndexKey = keys.paused, keys.heldIndex
  local fields = redis.call('HKEYS', pausedKey)
  for _, field in ipairs(fields) do f.paused[field] = true end
  if redis.call('EXISTS', heldIndexKey) == 1 then giveBackHeld(f, readyKey, 100) end
  return f
end

-- Parks a job in its type's held list (oldest on the right); a pause marks its record.
local function park(f, jobsKey, id, raw, t, byPause)
  if byPause then
    local head, tail = splitRecord(raw)
    if head and not head.heldAt then
      head.heldAt = nowMs()
      local record = joinRecord(head, tail)
      if record then redis.call('HSET', jobsKey, id, record) end
    end
  end
  redis.call('LPUSH', f.base .. 'held:' .. t, id)
  redis.call('SADD', f.heldIndexKey, t)
end

-- The rate limiter's key for a job: its type, and the payload's keyField when set.
local function rateSuffix(t, limit, raw)
  if not limit.keyField then return t end
  local ok, payload = pcall(cjson.decode, payloadOf(raw) or 'null')
  local key = ok and type(payload) == 'table' and payload[limit.keyField]
  if key == nil or type(key) == 'table' then key = '' end
  key = tostring(key)
  if #key > 100 then key = redis.sha1hex(key) end
  return t .. '|' .. key
end

-- 0 when the window lets one more start in now (and counts it), else when it will.
local function rateAdmit(f, limit, suffix, member, now)
  local windowKey = f.base .. 'rate:' .. suffix
  redis.call('ZREMRANGEBYSCORE', windowKey, '-inf', now - limit.period)
  if redis.call('ZCARD', windowKey) < limit.rate then
    redis.call('ZADD', windowKey, now, member)
    redis.call('PEXPIRE', windowKey, limit.period)
    return 0
  end
  local oldest = tonumber(redis.call('ZRANGE', windowKey, 0, 0, 'WITHSCORES')[2])
  local due = oldest + limit.period
  -- the jobs deferred before this one wait their turn at the rate: one per period / rate
  local nextKey = f.base .. 'ratenext:' .. suffix
  local last = tonumber(redis.call('GET', nextKey) or '0')
  local step = math.max(1, math.floor(limit.period / limit.rate))
  if last + step > due then due = last + step end
  redis.call('SET', nextKey, due, 'PX', due - now + limit.period)
  return due
end

-- What becomes of the job id (record raw) a claim is about to take as its delivery (the claim's
-- first when first): 'run' (claim it; a cap slot is taken), 'held' (parked in held:<type>),
-- 'deferred' (moved to delayed by its rate limit), or 'later' (a limited job that is not the
-- first of a batch: the batch ends before it, it stays in ready). The caller removes the id
-- from where it took it unless the answer is 'run' or 'later'.
local function admit(f, jobsKey, id, raw, delivery, inflightKey, first)
  local t = recordType(raw)
  if isPaused(f, t) then
    park(f, jobsKey, id, raw, t, true)
    return 'held'
  end
  local limit = f.limits[t]
  if not limit then return 'run' end
  if not first then return 'later' end
  if limit.cap > 0 and capFree(f, t, limit) <= 0 then
    park(f, jobsKey, id, raw, t, false)
    return 'held'
  end
  if limit.rate > 0 then
    local now = nowMs()
    local due = rateAdmit(f, limit, rateSuffix(t, limit, raw), delivery, now)
    if due > 0 then
      -- its record says the new due time, as every delayed job's does: the wheel finds it by it
      local head, tail = splitRecord(raw)
      local record = nil
      if head then
        head.dueAt = due
        head.heldAt = nil
        record = joinRecord(head, tail)
      end
      -- (an unreadable record runs instead: its worker dead-letters it with the reason)
      if record then
        redis.call('HSET', jobsKey, id, record)
        wheelAdd(f.delayedKey, due, id)
        wakeIfHead(f.delayedKey, f.wakeKey, id)
        return 'deferred'
      end
    end
  end
  if limit.cap > 0 then redis.call('HSET', f.base .. 'cap:' .. t, delivery, inflightKey) end
  return 'run'
end
