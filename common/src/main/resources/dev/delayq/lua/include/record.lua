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

local function joinRecord(head, tail)
  local encoded = cjson.encode(head)
  return string.sub(encoded, 1, -2) .. tail
end

-- Replaces an unreadable record by one that keeps the original text, so the dead entry can
-- still be inspected.
local function wrapMalformed(raw, err, now)
  return cjson.encode({ type = '?', malformed = raw, lastError = err, deadAt = now })
end
