-- The text of a job record, in its two formats (docs/redis-layout.md), read without decoding it.
-- Compact (written by every script since issue 15): it begins with {"t": and its payload member
-- is ,"p": (its last). Full names (written before; still read, and rewritten compact when a
-- script changes the record): ,"payload": is its last member. Inside a JSON string every quote
-- is escaped and the compact head holds no object (headers are a flat array of strings), so
-- the first payload key in the text starts the payload member, whatever the payload holds.

-- A number's text, for a record or a command: an integer (a time in ms) by '%d', which costs a
-- tenth of what Lua's own conversion (%.14g, which redis.call and '..' use) costs; another number
-- as Lua writes it.
local function numberText(x)
  if x == math.floor(x) and x > -2^53 and x < 2^53 then return string.format('%d', x) end
  return tostring(x)
end

-- Where the payload member starts (its ',') and the length of its key with the colon, or nil.
local function payloadAt(raw)
  if string.sub(raw, 1, 5) == '{"t":' then
    return string.find(raw, ',"p":', 1, true), 5
  end
  return string.find(raw, ',"payload":', 1, true), 11
end

-- The payload's JSON text as stored, or nil when the record has no payload member.
local function payloadOf(raw)
  local at, keyLength = payloadAt(raw)
  if not at then return nil end
  return string.sub(raw, at + keyLength, -2)
end

-- The record's text before its payload (all of it when there is none): searched for the head's
-- members, since the payload may hold any text.
local function headText(raw)
  local at = payloadAt(raw)
  if at then return string.sub(raw, 1, at) end
  return raw
end

-- The job type from a record (or a record head without its payload), or '?'.
local function recordType(raw)
  local compact = string.match(raw, '^{"t":"([^"]*)"')
  if compact then return compact end
  return string.match(headText(raw), '"type":"([^"]*)"') or '?'
end

-- True when the record keeps its id after its end ("k":1, or "keepId":true in the old format).
local function recordKeepsId(raw)
  local head = headText(raw)
  if string.sub(head, 1, 5) == '{"t":' then return string.find(head, ',"k":1', 1, true) ~= nil end
  return string.find(head, '"keepId":true', 1, true) ~= nil
end

-- A new record: the producer's head (compact, {"t":...,"m":N[,"k":1][,"h":[...]] and the like,
-- or one with full names from an older producer), when it was created, when it is due, and the
-- payload, in the head's format. The attempt (1) is left out: absent means 1. createdText, when
-- given, is numberText(createdAt) (a caller writing many records at one time makes it once).
local function newRecord(head, createdAt, dueAt, payload, createdText)
  if string.sub(head, 1, 5) == '{"t":' then
    return head .. ',"c":' .. (createdText or numberText(createdAt)) .. ',"d":' .. numberText(dueAt - createdAt)
      .. ',"p":' .. payload .. '}'
  end
  return head .. ',"attempt":1,"createdAt":' .. numberText(createdAt) .. ',"dueAt":' .. numberText(dueAt)
    .. ',"payload":' .. payload .. '}'
end
