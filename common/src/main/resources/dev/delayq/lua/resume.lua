--[[ resume: lifts a pause of the whole queue ('*') or of one job type, and gives back to ready
  the jobs flow control held while it lasted (include/flow.lua) onto ready's right end, where
  the oldest ends rightmost: they were due long ago and run next. Bounded: call again while it answers ARGV[3].
  KEYS[1] paused (HASH) '*' or a type -> paused since, epoch ms
  KEYS[2] held   (SET)  types whose held:<type> list holds jobs
  KEYS[3] ready  (LIST) due ids
  ARGV[1] '*' (the queue) or the type
  ARGV[2] the queue's key base '<prefix>:{<queue>}:' (held:<type> as Keys.held builds it)
  ARGV[3] most ids to give back in this call
  Returns {was paused (1 or 0), ids given back}. A type still paused by itself keeps its jobs
  when the queue resumes; a type's jobs stay held while the whole queue is paused. Jobs held for
  a concurrency cap come back too: the next claims hold again those the cap has no room for.
  Invariant: each id leaves held:<type> and enters ready in the same step.
]]
local pausedKey, heldIndexKey, readyKey = KEYS[1], KEYS[2], KEYS[3]
local scope, base, most = ARGV[1], ARGV[2], tonumber(ARGV[3])

local was = redis.call('HDEL', pausedKey, scope)
if redis.call('HEXISTS', pausedKey, '*') == 1 then return {was, 0} end
local types = { scope }
if scope == '*' then types = redis.call('SMEMBERS', heldIndexKey) end
local given = 0
for _, t in ipairs(types) do
  if given >= most then break end
  if redis.call('HEXISTS', pausedKey, t) == 0 then
    local heldKey = base .. 'held:' .. t
    while given < most do
      -- newest first: each lands on ready's right end, so the oldest ends rightmost, next to run
      local id = redis.call('LPOP', heldKey)
      if not id then break end
      redis.call('RPUSH', readyKey, id)
      given = given + 1
    end
    if redis.call('LLEN', heldKey) == 0 then redis.call('SREM', heldIndexKey, t) end
  end
end
return {was, given}
