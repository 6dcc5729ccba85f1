-- nowMs(): the Redis server's clock in epoch milliseconds. Every due time is taken from it,
-- so producers and workers on hosts with skewed clocks agree on when a job is due.
-- nowUs(): the same clock in epoch microseconds (about 2^51, exact in a Lua number), for a
-- caller that times a wait from it: a clock cut to the ms would end the wait up to 1 ms late.
local function nowUs()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000000 + tonumber(t[2])
end

local function nowMs()
  return math.floor(nowUs() / 1000)
end
