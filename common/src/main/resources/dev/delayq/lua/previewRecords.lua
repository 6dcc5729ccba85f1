--[[ previewRecords: what a list of jobs shows of each (the job browser, the dashboard's dead
  list), read from the records here, each payload cut to a preview: a page of jobs with large
  payloads costs its reader the previews, never the whole records (a page of 1,000 jobs of 1 MB
  payloads would be 1 GB in the reader's heap).
  KEYS[1] jobs (HASH) id -> record
  ARGV[1] most bytes of each payload sent (cut back to the start of a UTF-8 character)
  ARGV[2] most bytes of each job's type and last error sent (a record Redis holds may name anything)
  ARGV[3] most bytes of records one call reads (HSTRLEN, before it reads one): a call stops after
    the record that reaches it, so one call blocks Redis for what it copies of that much at most
    (each record is copied whole into Lua to be cut: Redis has no GETRANGE for a hash field)
  ARGV[4...] the ids
  Returns, for the first ids up to that budget (one at least), in order, 8 values per id: shape
    ("ok"; "missing": no record; "malformed": a record that is not a JSON object with a type and
    a payload), type, attempt, maxAttempts, due time (epoch ms; 0 when the record names none),
    last error (or nil), the payload's preview (of a malformed record: its own text, or the text
    a dead-letter kept of it), and the size in bytes of what the preview was cut from.
  Invariant: none kept or broken: it reads.
]]
--@include record
local previewBytes, textBytes, budget = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])

-- The first most bytes of text, without a UTF-8 character's first bytes at the end.
local function cut(text, most)
  if #text <= most then return text end
  local n = most
  while n > 0 do
    local b = string.byte(text, n + 1)
    if b < 0x80 or b >= 0xC0 then break end
    n = n - 1
  end
  return string.sub(text, 1, n)
end

local function textOrNil(value)
  if type(value) == 'string' then return cut(value, textBytes) end
  if type(value) == 'number' then return tostring(value) end
  return false
end

local function malformed(raw)
  -- a dead-letter of an unreadable record wraps it: {"t":"?",...,"malformed":"<text>",...}
  local ok, wrapped = pcall(cjson.decode, raw)
  if ok and type(wrapped) == 'table' and type(wrapped.malformed) == 'string' then
    return { 'malformed', '?', 0, 0, 0, textOrNil(wrapped.lastError), cut(wrapped.malformed, previewBytes),
      #wrapped.malformed }
  end
  return { 'malformed', '?', 0, 0, 0, false, cut(raw, previewBytes), #raw }
end

local function preview(raw)
  if not raw then return { 'missing', false, 0, 0, 0, false, false, 0 } end
  local at, keyLength = payloadAt(raw)
  if string.sub(raw, 1, 1) ~= '{' or string.sub(raw, -1) ~= '}' or not at or at + keyLength >= #raw then
    return malformed(raw)
  end
  local ok, head = pcall(cjson.decode, string.sub(raw, 1, at - 1) .. '}')
  if not ok or type(head) ~= 'table' then return malformed(raw) end
  head = fullNames(head)
  if type(head.type) ~= 'string' then return malformed(raw) end
  local first, last = at + keyLength, #raw - 1
  return { 'ok', cut(head.type, textBytes), tonumber(head.attempt) or 1, tonumber(head.maxAttempts) or 1,
    tonumber(head.dueAt) or 0, textOrNil(head.lastError),
    -- one byte past the preview, for cut to see whether a character goes on there
    cut(string.sub(raw, first, math.min(last, first + previewBytes)), previewBytes), last - first + 1 }
end

local out, read = {}, 0
for i = 4, #ARGV do
  if read >= budget then break end
  read = read + redis.call('HSTRLEN', KEYS[1], ARGV[i])
  local raw = redis.call('HGET', KEYS[1], ARGV[i])
  for _, v in ipairs(preview(raw)) do out[#out + 1] = v end
end
return out
