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

-- An acknowledgement as a script is sent it: the element, its outcome, and whether its record
-- keeps its id (nil: not known). A delivery sent as '!<element>' ended as cancelled (an operator
-- cancelled its run; no job id may hold '!'), which is the outcome its kept id records. After
-- that, '+' or '-' before the token says what the worker read in the record it claimed: it keeps
-- its id ("k":1), or not; the record is then not read again (a running job's record never
-- changes whether it keeps its id). Without either (an older worker, a delivery whose record the
-- worker did not pull) the record is read, as it always was. A bare id cannot pass for a hinted
-- delivery: it holds no '|'.
local function ackOf(sent)
  local outcome = 'done'
  if string.byte(sent, 1) == 33 then -- '!'
    outcome = 'cancelled'
    sent = string.sub(sent, 2)
  end
  local keeps
  local hint = string.byte(sent, 1)
  if (hint == 43 or hint == 45) and string.find(sent, '^.%d+|') then -- '+' or '-'
    keeps = hint == 43
    sent = string.sub(sent, 2)
  end
  return sent, outcome, keeps
end

-- What follows an acknowledgement once its element left the list: its id stays taken when its
-- record keeps it, and its record goes, at once or, when done is a table, by deleteRecords at
-- the end of the caller's call (one HDEL for many acknowledgements; nothing between reads them).
local function acknowledged(jobsKey, element, outcome, keeps, retain, done)
  local id = idOf(element)
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

-- Acknowledges a delivery (as ackOf reads it) of the consumer whose list is inflightKey: the job
-- is done, its id and record leave together (its id stays taken when it keeps it). Searched from
-- the right, where the oldest deliveries are.
-- Returns 1, or 0 when fenced (no longer this consumer's: nothing changes), or -1 for '' (none asked).
local function acknowledge(inflightKey, jobsKey, delivery, retain, done)
  if delivery == '' then return -1 end
  local element, outcome, keeps = ackOf(delivery)
  local acked = redis.call('LREM', inflightKey, -1, element)
  if acked == 1 then acknowledged(jobsKey, element, outcome, keeps, retain, done) end
  return acked
end

-- How ack.lua sends one finished delivery's outcome, a character of its hints: lower case done,
-- upper case cancelled; k/K its record keeps its id, f/F it does not, u/U not known (the record is
-- read). One character per delivery, not a prefix on each element, so that the common case
-- compares the elements as sent and needs no string work per job.
local HINT_OUTCOMES = { [107] = { 'done', true }, [102] = { 'done', false }, [117] = { 'done', nil },
  [75] = { 'cancelled', true }, [70] = { 'cancelled', false }, [85] = { 'cancelled', nil } }

-- Acknowledges the n deliveries one consumer finished, in the order it ran them, appending a code
-- for each to out as acknowledge() answers. args[at] holds their hints (HINT_OUTCOMES), then come
-- their n elements '<token>|<id>' and their n ids. A consumer runs its deliveries in claim order,
-- so those it finished are, as a rule, the oldest in its list, its rightmost elements: when one
-- LRANGE shows exactly them, one LTRIM removes them all; otherwise each is removed by itself
-- (LREM), so one fenced among them changes nothing for it.
local function acknowledgeOldest(inflightKey, jobsKey, args, at, n, retain, done, out)
  local hints, elements, ids = args[at], at, at + n
  local all = false
  if n > 1 then
    local oldest = redis.call('LRANGE', inflightKey, -n, -1)
    all = #oldest == n
    -- the oldest element is the rightmost one, the first the consumer ran
    for i = 1, n do
      if not all or oldest[n - i + 1] ~= args[elements + i] then all = false break end
    end
    if all then redis.call('LTRIM', inflightKey, 0, -n - 1) end
  end
  local gone, coded = #done, #out -- (running ends, not # on each append: # is a search in Lua 5.1)
  for i = 1, n do
    local acked = 1
    if not all then acked = redis.call('LREM', inflightKey, -1, args[elements + i]) end
    if acked == 1 then
      local id = args[ids + i]
      if retain.ms > 0 then
        local outcome = HINT_OUTCOMES[string.byte(hints, i)]
        if outcome[2] == nil then
          rememberEnded(retain, id, redis.call('HGET', jobsKey, id), outcome[1])
        elseif outcome[2] then
          rememberKept(retain, id, outcome[1])
        end
      end
      gone = gone + 1
      done[gone] = id
    end
    coded = coded + 1
    out[coded] = acked
  end
end

-- Deletes the records of the ids acknowledge() gathered, a thousand to an HDEL (unpack's limit).
local function deleteRecords(jobsKey, done)
  for from = 1, #done, 1000 do
    redis.call('HDEL', jobsKey, unpack(done, from, math.min(#done, from + 999)))
  end
end
