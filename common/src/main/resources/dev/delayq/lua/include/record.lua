--@include recordFormat
-- Editing a job record without touching its payload. The head before the payload is decoded
-- with cjson into a table with the full names (type, maxAttempts, attempt, createdAt, dueAt,
-- keepId, headers as a flat array {name, value, ...}), whichever format it was stored in, and
-- written back compact; the payload is carried over byte for byte (cjson would round large
-- numbers in it).

-- The compact names of the members every record has, in the order they are written.
local COMPACT_NAMES = { type = 't', maxAttempts = 'm', attempt = 'a', createdAt = 'c', dueAt = 'd',
  keepId = 'k', headers = 'h' }
local COMPACT_ORDER = { 'type', 'maxAttempts', 'attempt', 'createdAt', 'dueAt', 'keepId', 'headers' }

-- A decoded compact head under the full names; a full-names head's headers object as the array.
local function fullNames(head)
  if head.t ~= nil then
    for full, short in pairs(COMPACT_NAMES) do
      if short ~= 'd' and head[short] ~= nil then
        head[full] = head[short]
        head[short] = nil
      end
    end
    if head.keepId ~= nil then head.keepId = true end
    local created, due = tonumber(head.createdAt), tonumber(head.d)
    if created and due then head.dueAt = created + due end
    head.d = nil
  elseif type(head.headers) == 'table' then
    local names, flat = {}, {}
    for name in pairs(head.headers) do names[#names + 1] = name end
    table.sort(names)
    for _, name in ipairs(names) do
      flat[#flat + 1] = name
      flat[#flat + 1] = head.headers[name]
    end
    head.headers = #flat > 0 and flat or nil
  end
  return head
end

-- The compact text of a head, without its closing brace: the members every record has first,
-- then the others by name (so a record reads the same each time it is written). The due time
-- is kept as ms after createdAt (d); a head without createdAt keeps it absolute, as dueAt.
local function compactHead(head)
  local parts = {}
  local function put(name, value) parts[#parts + 1] = '"' .. name .. '":' .. cjson.encode(value) end
  local created = tonumber(head.createdAt)
  for _, full in ipairs(COMPACT_ORDER) do
    local value = head[full]
    -- t always comes first, null when there is none, so the text always reads as compact
    if full == 'type' and value == nil then value = cjson.null end
    if full == 'attempt' and tonumber(value) == 1 then value = nil end
    if full == 'keepId' and value then value = 1 end
    if full == 'dueAt' and value ~= nil and not (created and tonumber(value)) then
      put('dueAt', value)
    elseif full == 'dueAt' and value ~= nil then
      put('d', tonumber(value) - created)
    elseif value ~= nil then
      put(COMPACT_NAMES[full], value)
    end
  end
  local others = {}
  for name in pairs(head) do
    if not COMPACT_NAMES[name] then others[#others + 1] = name end
  end
  table.sort(others)
  for _, name in ipairs(others) do put(name, head[name]) end
  return '{' .. table.concat(parts, ',')
end

-- The head (full names) and the payload text of a record, or nil, nil when it is not one.
local function splitRecord(raw)
  local at = payloadAt(raw)
  if not at then return nil, nil end
  local ok, head = pcall(cjson.decode, string.sub(raw, 1, at - 1) .. '}')
  if not ok or type(head) ~= 'table' then return nil, nil end
  return fullNames(head), payloadOf(raw)
end

-- The edited record, compact, or nil and why when cjson cannot encode the head (a number it
-- decoded as inf, such as "maxAttempts":1e999). Scripts build what they will write before their
-- first removal, so a record they cannot write goes to dead in the same step and its id never
-- ends in no place (Redis does not undo a script that fails half-way).
local function joinRecord(head, payload)
  local ok, encoded = pcall(compactHead, head)
  -- (the message without the script position a nested error carries)
  if not ok then return nil, 'the record cannot be written back: ' .. string.gsub(tostring(encoded), '^user_script:%d+: ', '') end
  return encoded .. ',"p":' .. payload .. '}', nil
end

-- Replaces an unreadable record by one that keeps the original text, so the dead entry can
-- still be inspected. It holds only strings and a number, so cjson always encodes it.
local function wrapMalformed(raw, err, now)
  return compactHead({ type = '?', malformed = raw, lastError = err, deadAt = now }) .. '}'
end

-- The record as it goes to dead: the head with lastError and deadAt when it can be written back,
-- else the original text wrapped (with why it could not be).
local function deadRecord(raw, head, payload, err, now)
  if head then
    head.lastError = err
    head.deadAt = now
    local record, why = joinRecord(head, payload)
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
