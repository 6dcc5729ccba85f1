--[[ findInList: looks for an id in one stretch of a list, for the read side (inspect: is a job in
  ready, or held, and where), so that a list of millions is searched in bounded calls, the caller
  going on from where a call stopped. It changes nothing.
  KEYS[1] list (LIST)  ready or held
  ARGV[1] the id
  ARGV[2] from: the index (from the left) the stretch starts at
  ARGV[3] count: how many elements the stretch holds at most
  Returns {the index (from the left) of the id's first place in the stretch, or -1; the list's
    length}
  Work: one LRANGE of count elements at most, compared here (LPOS walks from an end only).
  Invariant: none kept or broken: it reads.
]]
local listKey, id = KEYS[1], ARGV[1]
local from, count = tonumber(ARGV[2]), tonumber(ARGV[3])
local stretch = redis.call('LRANGE', listKey, from, from + count - 1)
for i = 1, #stretch do
  if stretch[i] == id then return { from + i - 1, redis.call('LLEN', listKey) } end
end
return { -1, redis.call('LLEN', listKey) }
