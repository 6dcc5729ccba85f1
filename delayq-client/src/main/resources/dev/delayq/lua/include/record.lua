-- Editing a job record without touching its payload.
-- A record is a JSON object whose last member is "payload". Inside a JSON string every quote is
-- escaped, so the first ',"payload":' in the text starts that member: the head before it is
-- decoded and re-encoded with cjson, the payload is carried over byte for byte (cjson would
-- round large numbers in it).
local function splitRecord(raw)
  local at = string.find(raw, ',"payload":', 1, true)
  if not at then return nil, nil end
  local ok, head = pcall(cjson.decode, string.sub(raw, 1, at - 1) .. '}')
  if not ok or type(head) ~= 'table' then return nil, nil end
  return head, string.sub(raw, at)
end

-- The edited record, or nil and why when cjson cannot encode the head (a number it decoded as
-- inf, such as "maxAttempts":1e999). Scripts build what they will write before their first
-- removal, so a record they cannot write goes to dead in the same step and its id never ends in
-- no place (Redis does not undo a script that fails half-way).
local function joinRecord(head, tail)
  local ok, encoded = pcall(cjson.encode, head)
  if not ok then return nil, 'the record cannot be written back: ' .. tostring(encoded) end
  return string.sub(encoded, 1, -2) .. tail, nil
end

-- Replaces an unreadable record by one that keeps the original text, so the dead entry can
-- still be inspected. It holds only strings and a number, so cjson always encodes it.
local function wrapMalformed(raw, err, now)
  return cjson.encode({ type = '?', malformed = raw, lastError = err, deadAt = now })
end

-- The record as it goes to dead: the head with lastError and deadAt when it can be written back,
-- else the original text wrapped (with why it could not be).
local function deadRecord(raw, head, tail, err, now)
  if head then
    head.lastError = err
    head.deadAt = now
    local record, why = joinRecord(head, tail)
    if record then return record end
    return wrapMalformed(raw, err .. ' (' .. why .. ')', now)
  end
  return wrapMalformed(raw, err, now)
end

-- splitRecord for a record that must parse as a whole: a readable head in front of a broken
-- payload is still unreadable.
local function readWholeRecord(raw)
  if not pcall(cjson.decode, raw) then return nil, nil end
  return splitRecord(raw)
end
