-- nowMs(): the Redis server's clock in epoch milliseconds. Every due time is taken from it,
-- so producers and workers on hosts with skewed clocks agree on when a job is due.
local function nowMs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
