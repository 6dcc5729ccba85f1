-- A delivery is one claim of a job by one consumer. Its element in the consumer's in-flight list
-- is '<token>|<id>', the token drawn from the queue's deliveries counter, so it is never reused:
-- an outcome sent for an old delivery matches no element, even when the same id has been claimed
-- again by the same consumer. A bare id (no '|', which no job id may contain) is a claim BLMOVE
-- made and claim.lua has not turned into a delivery yet: nothing ran it.
local function idOf(element)
  return string.match(element, '^%d+|(.+)$') or element
end

-- (string.format's %d, not token .. '|' .. id: a number concatenated is first made a string of its
-- own, with %.14g, so every claimed job would cost a float format and a string more)
local function deliveryOf(token, id)
  return string.format('%d|%s', token, id)
end
