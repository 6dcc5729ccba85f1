-- wakeIfHead(): tells a sleeping scheduler that a job became the earliest due one. At most one
-- token waits in the list, so an idle scheduler never finds a backlog of wake-ups.
local function wakeIfHead(delayedKey, wakeKey, id)
  local head = redis.call('ZRANGE', delayedKey, 0, 0)
  if head[1] == id and redis.call('LLEN', wakeKey) == 0 then
    redis.call('RPUSH', wakeKey, '1')
  end
end
