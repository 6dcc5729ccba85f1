-- Takes a batch from ready's right end into a consumer's in-flight list with nothing limited or
-- paused (flow control's fast path): a few calls for the whole batch, not a few per id. Needs the
-- delivery include before it.
--@include recordFormat

-- The fair share of a claim: up to most ids, but no more than ready's length (waiting) divided
-- by the consumers registered in consumersKey (at least 1), so one consumer never sits on jobs
-- that idle ones could run. Every consumer is registered in every shard but claims from one at a
-- time, so a shard's share is over the consumers divided by the shard count. At least 1, and at
-- least atLeast (nil: 1) of what waits: a consumer whose handlers run that many within a short
-- budget says so (the worker's ClaimPace), and waking another consumer for a job costs more than
-- running it in turn.
local function fairShare(consumersKey, waiting, most, shards, atLeast)
  local consumers = math.max(1, math.ceil(redis.call('ZCARD', consumersKey) / shards))
  local share = math.max(1, math.min(most, math.floor(waiting / consumers)))
  return math.max(share, math.min(most, waiting, atLeast or 1))
end

-- Takes up to take ids from ready's right end (the next to run) as deliveries firstToken,
-- firstToken + 1, ... into in-flight, and appends id, then record to out for each: false for an id
-- without a record (a breach: it is dropped), its length for a record longer than recordMax (read
-- but not answered: the worker dead-letters it without pulling it). The records it answers add up
-- to no more than budget bytes beyond pulled (what the caller's claim already answered), except
-- that the first one comes whatever its size when nothing was claimed before it (claimedBefore
-- false). The ids and their records are read first, the batch is cut where the byte budget ends,
-- and exactly those ids are then taken (nothing runs in between); reading the records gives their
-- lengths, so no HSTRLEN is needed.
-- Returns the deliveries pushed (in claim order) and how many ids left ready.
local function takeReady(readyKey, inflightKey, jobsKey, take, firstToken, budget, recordMax, pulled,
    claimedBefore, out)
  local ids = redis.call('LRANGE', readyKey, numberText(-take), '-1')
  local records
  if #ids <= 1000 then -- unpack's limit
    records = redis.call('HMGET', jobsKey, unpack(ids))
  else
    records = {}
    for from = 1, #ids, 1000 do
      local part = redis.call('HMGET', jobsKey, unpack(ids, from, math.min(#ids, from + 999)))
      for _, raw in ipairs(part) do records[#records + 1] = raw end
    end
  end
  -- (running ends, not # on each append: # is a search in Lua 5.1)
  local deliveries, pushed, at = {}, 0, #out
  local count = 0
  for i = #ids, 1, -1 do -- the right end runs next
    local id, raw = ids[i], records[i]
    local size = raw and #raw or 0
    if (claimedBefore or count > 0) and size <= recordMax and pulled + size > budget then break end
    count = count + 1
    out[at + 1] = id
    at = at + 2
    if not raw then -- (an empty record, written by another client, goes to the worker to dead-letter)
      out[at] = false
    else
      pushed = pushed + 1
      deliveries[pushed] = deliveryOf(firstToken + count - 1, id)
      if size > recordMax then
        out[at] = size
      else
        out[at] = raw
        pulled = pulled + size
      end
    end
  end
  if count > 0 then
    -- LTRIM, not RPOP with a count: the same ids leave, and no reply of them comes back into Lua
    redis.call('LTRIM', readyKey, '0', numberText(-count - 1))
  end
  for from = 1, #deliveries, 1000 do
    redis.call('LPUSH', inflightKey, unpack(deliveries, from, math.min(#deliveries, from + 999)))
  end
  return deliveries, count
end
