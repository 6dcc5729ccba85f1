-- Id retention: a caller-chosen id stays taken for queue.idRetention after its job ended (done,
-- cancelled, dead and purged), so a producer that enqueues it again (a retry after a timeout)
-- does not run the job twice. Only records whose head carries "keepId":true (the producer sets
-- it for a caller-chosen id) leave an entry: a generated id is never enqueued twice, and costs
-- nothing. Needs the now and delivery includes before it.

-- A retention: the ended HASH, its expiry index ZSET, and the window in ms (0: off).
local function retention(endedKey, expiryKey, ms)
  return { ended = endedKey, expiry = expiryKey, ms = tonumber(ms) or 0 }
end

-- True when the record keeps its id after its end. Only the head before the payload is
-- searched: the payload may hold any text.
local function keepsId(raw)
  local at = string.find(raw, ',"payload":', 1, true)
  local head = raw
  if at then head = string.sub(raw, 1, at) end
  return string.find(head, '"keepId":true', 1, true) ~= nil
end

-- Remembers that the job of id (its record raw, read before it is deleted) ended with outcome.
local function rememberEnded(retain, id, raw, outcome)
  if retain.ms <= 0 or not raw or not keepsId(raw) then return end
  if not retain.now then retain.now = nowMs() end
  redis.call('HSET', retain.ended, id, outcome .. ':' .. retain.now)
  redis.call('ZADD', retain.expiry, retain.now + retain.ms, id)
end

-- Acknowledges a delivery of the consumer whose list is inflightKey: the job is done, its id and
-- record leave together (its id stays taken when it keeps it). Searched from the right, where
-- the oldest deliveries are. Returns 1, or 0 when fenced (no longer this consumer's: nothing
-- changes), or -1 for '' (none asked).
local function acknowledge(inflightKey, jobsKey, delivery, retain)
  if delivery == '' then return -1 end
  local acked = redis.call('LREM', inflightKey, -1, delivery)
  if acked == 1 then
    local id = idOf(delivery)
    if retain.ms > 0 then rememberEnded(retain, id, redis.call('HGET', jobsKey, id), 'done') end
    redis.call('HDEL', jobsKey, id)
  end
  return acked
end
