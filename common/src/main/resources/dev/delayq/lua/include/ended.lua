-- Id retention: a caller-chosen id stays taken for queue.idRetention after its job ended (done,
-- cancelled, dead and purged), so a producer that enqueues it again (a retry after a timeout)
-- does not run the job twice. Only records whose head carries "k":1 ("keepId":true in the old
-- format; the producer sets it for a caller-chosen id) leave an entry: a generated id is never enqueued twice, and costs
-- nothing. Needs the now include before it.
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

-- How every acknowledging script (ack, claimReady, start, releaseClaimed) is sent an
-- acknowledgement: its delivery's element '<token>|<id>' and its id, as they are, and one hint
-- character: lower case done, upper case cancelled (an operator cancelled its run), which is the
-- outcome a kept id records; k/K the record the worker claimed keeps its id ("k":1), f/F it does
-- not, so the record is not read again (a running job's record never changes that); u/U the
-- worker did not know (it did not pull the record), and the record is read. The hints of a
-- consumer's deliveries come in one string, one character each, so the script compares the
-- elements and deletes the ids as sent, with no string work per job.
local HINT_OUTCOMES = { [107] = { 'done', true }, [102] = { 'done', false }, [117] = { 'done', nil },
  [75] = { 'cancelled', true }, [70] = { 'cancelled', false }, [85] = { 'cancelled', nil } }

-- Acknowledges the deliveries one consumer finished, in the order it ran them: args[at] holds
-- their hints (HINT_OUTCOMES; '' for none), one per delivery, then come their n elements and their
-- n ids. Appends a code for each to out (1 acknowledged; 0 fenced: no longer this consumer's,
-- nothing changes for it, and its job's record is still there, so the job lives on elsewhere;
-- 2 fenced too, and its job's record is gone: the job ended, by an earlier call of this same
-- acknowledgement or after a take-back by another delivery's; the worker tells which from what
-- it knows of its earlier calls) and the ids acknowledged to done, whose records deleteRecords deletes
-- at the end of the call (one HDEL for many; nothing in between reads them); a kept id is
-- remembered as ended. A consumer runs its deliveries in claim order, so those it finished are,
-- as a rule, the oldest in its list, its rightmost elements: when one LRANGE shows exactly them,
-- one LTRIM removes them all; otherwise each is removed by itself (LREM, searched from the right,
-- where the oldest are), so one fenced among them changes nothing for it. The delivery the
-- consumer started since (started, nil for none) is as a rule the oldest one left, just left of
-- those: the same LRANGE reads one element more and tells it is still in the list, which spares
-- the caller an LPOS per consumer.
-- Returns the index after its arguments (at + 1 + 2n), and true when started was seen in the list
-- after the acknowledgement (nil: not looked for, the caller searches the list).
local function acknowledgeOldest(inflightKey, jobsKey, args, at, retain, done, out, started)
  local hints = args[at]
  local n = #hints
  local elements, ids = at, at + n
  local all, seen = false, nil
  if n > 1 then
    local extra = started and 1 or 0
    -- (numbers as text: redis.call writes a number argument with %.17g, ~0.3 µs each)
    local oldest = redis.call('LRANGE', inflightKey, numberText(-n - extra), '-1')
    local m = #oldest
    all = m >= n
    -- the oldest element is the rightmost one, the first the consumer ran
    for i = 1, n do
      if not all or oldest[m - i + 1] ~= args[elements + i] then all = false break end
    end
    if all then
      redis.call('LTRIM', inflightKey, '0', numberText(-n - 1))
      if m > n and oldest[1] == started then seen = true end
    end
  end
  local gone, coded = #done, #out -- (running ends, not # on each append: # is a search in Lua 5.1)
  for i = 1, n do
    local acked = 1
    if not all then acked = redis.call('LREM', inflightKey, '-1', args[elements + i]) end
    local id = args[ids + i]
    if acked == 1 then
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
    elseif redis.call('HEXISTS', jobsKey, id) == 0 then
      acked = 2 -- (fenced acknowledgements are rare: only they pay this look)
    end
    coded = coded + 1
    out[coded] = acked
  end
  return at + 1 + 2 * n, seen
end

-- Deletes the records of the ids acknowledgeOldest gathered, a thousand to an HDEL (unpack's limit).
local function deleteRecords(jobsKey, done)
  for from = 1, #done, 1000 do
    redis.call('HDEL', jobsKey, unpack(done, from, math.min(#done, from + 999)))
  end
end

-- Acknowledges at most one delivery, sent as acknowledgeOldest reads it (args[at] its hint, ''
-- for none, then its element and its id, '' when none), its record deleted at once.
-- Returns 1, or 0 or 2 when fenced (no longer this consumer's: nothing changes; 2 when its job's
-- record is gone, as acknowledgeOldest says), or -1 when none was asked.
local function acknowledge(inflightKey, jobsKey, args, at, retain)
  if args[at] == '' then return -1 end
  local done, out = {}, {}
  acknowledgeOldest(inflightKey, jobsKey, args, at, retain, done, out)
  deleteRecords(jobsKey, done)
  return out[1]
end
