-- A delivery is one claim of a job by one consumer. Its element in the consumer's in-flight list
-- is '<token>|<id>', the token drawn from the queue's deliveries counter, so it is never reused:
-- an outcome sent for an old delivery matches no element, even when the same id has been claimed
-- again by the same consumer. A bare id (no '|', which no job id may contain) is a claim BLMOVE
-- made and claim.lua has not turned into a delivery yet: nothing ran it.
local function idOf(element)
  return string.match(element, '^%d+|(.+)$') or element
end

local function deliveryOf(token, id)
  return token .. '|' .. id
end

-- Acknowledges a delivery of the consumer whose list is inflightKey: the job is done, its id and
-- record leave together. Searched from the right, where the oldest deliveries are. Returns 1, or
-- 0 when fenced (no longer this consumer's: nothing changes), or -1 for '' (none asked).
local function acknowledge(inflightKey, jobsKey, delivery)
  if delivery == '' then return -1 end
  local acked = redis.call('LREM', inflightKey, -1, delivery)
  if acked == 1 then redis.call('HDEL', jobsKey, idOf(delivery)) end
  return acked
end
