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

-- Remembers that the job of id ended with outcome; its record is known to keep its id.
local function rememberKept(retain, id, outcome)
  if retain.ms <= 0 then return end
  if not retain.now then retain.now = nowMs() end
  redis.call('HSET', retain.ended, id, outcome .. ':' .. retain.now)
  redis.call('ZADD', retain.expiry, retain.now + retain.ms, id)
end

-- Remembers that the job of id (its record raw, read before it is deleted) ended with outcome.
local function rememberEnded(retain, id, raw, outcome)
  if retain.ms <= 0 or not raw or not recordKeepsId(raw) then return end
  rememberKept(retain, id, outcome)
end

-- Acknowledges a delivery of the consumer whose list is inflightKey: the job is done, its id and
-- record leave together (its id stays taken when it keeps it). A delivery sent as '!<element>'
-- ended as cancelled (an operator cancelled its run; no job id may hold '!'), which is the
-- outcome its kept id records. After that, '+' or '-' before the token says what the worker read
-- in the record it claimed: it keeps its id ("k":1), or not; the record is then not read here
-- (a running job's record never changes whether it keeps its id). Without either (an older
-- worker, a delivery whose record the worker did not pull) the record is read, as it always was.
-- A bare id cannot pass for a hinted delivery: it holds no '|'. Searched from the right, where
-- the oldest deliveries are. The record is deleted at once, or, when done is a table, its id is
-- added to it and the caller deletes the records of the whole call with deleteRecords (one HDEL
-- for many acknowledgements; nothing between reads them).
-- Returns 1, or 0 when fenced (no longer this consumer's: nothing changes), or -1 for '' (none asked).
local function acknowledge(inflightKey, jobsKey, delivery, retain, done)
  if delivery == '' then return -1 end
  local outcome = 'done'
  if string.byte(delivery, 1) == 33 then -- '!'
    outcome = 'cancelled'
    delivery = string.sub(delivery, 2)
  end
  local keeps -- nil: not known, read the record
  local hint = string.byte(delivery, 1)
  if (hint == 43 or hint == 45) and string.find(delivery, '^.%d+|') then -- '+' or '-'
    keeps = hint == 43
    delivery = string.sub(delivery, 2)
  end
  local acked = redis.call('LREM', inflightKey, -1, delivery)
  if acked == 1 then
    local id = idOf(delivery)
    if retain.ms > 0 then
      if keeps == nil then
        rememberEnded(retain, id, redis.call('HGET', jobsKey, id), outcome)
      elseif keeps then
        rememberKept(retain, id, outcome)
      end
    end
    if done then
      done[#done + 1] = id
    else
      redis.call('HDEL', jobsKey, id)
    end
  end
  return acked
end

-- Deletes the records of the ids acknowledge() gathered, a thousand to an HDEL (unpack's limit).
local function deleteRecords(jobsKey, done)
  for from = 1, #done, 1000 do
    redis.call('HDEL', jobsKey, unpack(done, from, math.min(#done, from + 999)))
  end
end
