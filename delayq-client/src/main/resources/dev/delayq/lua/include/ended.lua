-- Id retention: a caller-chosen id stays taken for queue.idRetention after its job ended (done,
-- cancelled, dead and purged), so a producer that enqueues it again (a retry after a timeout)
-- does not run the job twice. Only records whose head carries "k":1 ("keepId":true in the old
-- format; the producer sets it for a caller-chosen id) leave an entry: a generated id is never enqueued twice, and costs
-- nothing. Needs the now and delivery includes before it.
--@include recordFormat

-- A retention: the ended HASH, its expiry index ZSET, and the window in ms (0: off).
local function retention(endedKey, expiryKey, ms)
  return { ended = endedKey, expiry = expiryKey, ms = tonumber(ms) or 0 }
end

-- Remembers that the job of id (its record raw, read before it is deleted) ended with outcome.
local function rememberEnded(retain, id, raw, outcome)
  if retain.ms <= 0 or not raw or not recordKeepsId(raw) then return end
  if not retain.now then retain.now = nowMs() end
  redis.call('HSET', retain.ended, id, outcome .. ':' .. retain.now)
  redis.call('ZADD', retain.expiry, retain.now + retain.ms, id)
end

-- Acknowledges a delivery of the consumer whose list is inflightKey: the job is done, its id and
-- record leave together (its id stays taken when it keeps it). A delivery sent as '!<element>'
-- ended as cancelled (an operator cancelled its run; no job id may hold '!'), which is the
-- outcome its kept id records. Searched from the right, where the oldest deliveries are.
-- Returns 1, or 0 when fenced (no longer this consumer's: nothing changes), or -1 for '' (none asked).
local function acknowledge(inflightKey, jobsKey, delivery, retain)
  if delivery == '' then return -1 end
  local outcome = 'done'
  if string.byte(delivery, 1) == 33 then -- '!'
    outcome = 'cancelled'
    delivery = string.sub(delivery, 2)
  end
  local acked = redis.call('LREM', inflightKey, -1, delivery)
  if acked == 1 then
    local id = idOf(delivery)
    if retain.ms > 0 then rememberEnded(retain, id, redis.call('HGET', jobsKey, id), outcome) end
    redis.call('HDEL', jobsKey, id)
  end
  return acked
end
