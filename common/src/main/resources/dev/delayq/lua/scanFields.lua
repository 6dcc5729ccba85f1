--[[ scanFields: one HSCAN step over a hash, answering its fields only: delayq check lists the
  ids of jobs (and of ended) in bounded chunks without sending their records, which HSCAN itself
  would (HSCAN NOVALUES needs Redis 7.4).
  KEYS[1] the hash (HASH)
  ARGV[1] the HSCAN cursor ("0" to begin)
  ARGV[2] the COUNT hint
  Returns {next cursor ("0" when done), field1, field2, ...}.
  Invariant: reads only.
]]
local r = redis.call('HSCAN', KEYS[1], ARGV[1], 'COUNT', ARGV[2])
local out = { r[1] }
local pairsList = r[2]
for i = 1, #pairsList, 2 do
  out[#out + 1] = pairsList[i]
end
return out
