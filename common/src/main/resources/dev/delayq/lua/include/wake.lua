--@include wheel
-- wakeOnNewHead(): tells a sleeping scheduler that a job became the earliest due one. The lease
-- holder blocks on the wake list: at most one token waits in it, so an idle scheduler never
-- finds a backlog of wake-ups. The hot standbys (schedulers not holding the shard's lease) must
-- not take that token, so the same news goes out on the pub/sub channel named like the wake
-- key, with the job's due time (epoch ms), each time a job becomes the head: a dead holder's
-- unread token does not stop it.
local function wakeOnNewHead(wakeKey, dueAt)
  if redis.call('LLEN', wakeKey) == 0 then
    redis.call('RPUSH', wakeKey, '1')
  end
  redis.call('PUBLISH', wakeKey, dueAt)
end

-- wakeIfHead(): wakeOnNewHead() if the job just placed in delayed is the earliest due one.
local function wakeIfHead(delayedKey, wakeKey, id)
  local headId, headDue = wheelHead(delayedKey)
  if headId == id then
    wakeOnNewHead(wakeKey, headDue)
  end
end
