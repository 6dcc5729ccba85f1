#!/usr/bin/env bash
# Prototype measure for issue 15 goal 1 (not the queue's code): what the ids of pending jobs cost
# in one ZSET (today's `delayed`) against a time wheel of small ZSETs, and what forwarding them
# costs. Ids are 20 characters, as generated ones. A throw-away redis-server on a free loopback
# port, stock settings (zset-max-listpack-entries 128). Usage: bench/scripts/wheel-prototype.sh [N]
set -euo pipefail
N="${1:-100000}"
work="$(mktemp -d)"
PORT="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
  --dir "$work" --pidfile "$work/redis.pid" >/dev/null
trap 'kill "$(cat "$work/redis.pid")" 2>/dev/null || true; rm -rf "$work"' EXIT
sleep 0.5
cli() { redis-cli -p "$PORT" "$@"; }

# ARGV: layout (flat | width:<ms> | split), n, spread ms, base epoch ms, ties (1: all due at base)
cat > "$work/add.lua" <<'LUA'
local layout, n, spread, base, ties = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), ARGV[5] == '1'
local p, LIMIT = KEYS[1], 128
local index, seq = p .. ':wheel', p .. ':wheel:seq'
local width = tonumber(string.match(layout, '^width:(%d+)$'))
local function addSplit(due, id)
  -- the bucket whose lowest due time is the greatest not after due (else the first), split in
  -- halves once it holds LIMIT ids, so it stays a listpack whatever the density
  local b = redis.call('ZREVRANGEBYSCORE', index, due, '-inf', 'LIMIT', 0, 1)[1]
  if not b then
    b = redis.call('ZRANGE', index, 0, 0)[1] or tostring(redis.call('INCR', seq))
    redis.call('ZADD', index, due, b)
  end
  local bk = p .. ':w:' .. b
  redis.call('ZADD', bk, due, id)
  if redis.call('ZCARD', bk) >= LIMIT then
    local upper = redis.call('ZRANGE', bk, LIMIT / 2, -1, 'WITHSCORES')
    local nb, args = tostring(redis.call('INCR', seq)), {}
    for i = 1, #upper, 2 do args[#args + 1] = upper[i + 1]; args[#args + 1] = upper[i] end
    redis.call('ZADD', p .. ':w:' .. nb, unpack(args))
    redis.call('ZREMRANGEBYRANK', bk, LIMIT / 2, -1)
    redis.call('ZADD', index, upper[2], nb)
  end
end
for i = 1, n do
  local due = base
  if not ties then due = base + math.floor(((i * 7919) % n) * spread / n) end -- arrival order shuffled
  local id = string.format('%020d', i)
  if layout == 'flat' then
    redis.call('ZADD', p .. ':delayed', due, id)
  elseif width then
    local b = math.floor(due / width)
    redis.call('ZADD', p .. ':w:' .. b, due, id)
    redis.call('ZADD', index, b * width, b)
  else
    addSplit(due, id)
  end
end
return redis.call('ZCARD', index)
LUA

# Forwards everything due by `now` (ARGV[2]) in batches of 1,000, as moveDueToReady does: from the
# first bucket of the index on, never looking at a bucket that is not due. Returns the ids moved.
cat > "$work/forward.lua" <<'LUA'
local layout, now, p = ARGV[1], ARGV[2], KEYS[1]
local index, moved = p .. ':wheel', 0
while true do
  local batch = 0
  if layout == 'flat' then
    local ids = redis.call('ZRANGEBYSCORE', p .. ':delayed', '-inf', now, 'LIMIT', 0, 1000)
    if #ids == 0 then break end
    redis.call('ZREM', p .. ':delayed', unpack(ids))
    redis.call('LPUSH', p .. ':ready', unpack(ids))
    batch = #ids
  else
    while batch < 1000 do
      local first = redis.call('ZRANGE', index, 0, 0, 'WITHSCORES')
      if #first == 0 or tonumber(first[2]) > tonumber(now) then break end
      local bk = p .. ':w:' .. first[1]
      local ids = redis.call('ZRANGEBYSCORE', bk, '-inf', now, 'LIMIT', 0, 1000 - batch)
      if #ids > 0 then
        redis.call('ZREM', bk, unpack(ids))
        redis.call('LPUSH', p .. ':ready', unpack(ids))
        batch = batch + #ids
      end
      if redis.call('EXISTS', bk) == 0 then redis.call('ZREM', index, first[1]) else break end
    end
    if batch == 0 then break end
  end
  moved = moved + batch
end
return moved
LUA

used() { cli info memory | awk -F: '/^used_memory:/ {print $2+0}'; }
usec() { cli info commandstats | awk -F'[=,]' '/^cmdstat_eval:/ {print $4+0}'; }
base=1796143498801
printf '%-12s %-34s %10s %9s %14s %14s\n' layout "due times" "B/job" buckets "add µs/job" "fwd µs/job"
run() { # layout, label, spread ms, ties
  cli flushall >/dev/null; cli config resetstat >/dev/null
  local before; before=$(used)
  local buckets; buckets=$(cli --eval "$work/add.lua" "{q}" , "$1" "$N" "$3" "$base" "$4")
  local after; after=$(used); local addUs; addUs=$(usec)
  local moved; moved=$(cli --eval "$work/forward.lua" "{q}" , "$1" $((base + $3 + 1)))
  local fwdUs; fwdUs=$(( $(usec) - addUs ))
  [ "$moved" -eq "$N" ] || { echo "forwarded $moved of $N" >&2; exit 1; }
  printf '%-12s %-34s %10d %9s %14.2f %14.2f\n' "$1" "$2" $(( (after - before) / N )) "$buckets" \
    "$(echo "$addUs / $N" | bc -l)" "$(echo "$fwdUs / $N" | bc -l)"
}
for layout in flat width:100 width:1000 split; do
  run "$layout" "$N over 100 s (1,000/s)" 100000 0
  run "$layout" "$N over 1 h" 3600000 0
  run "$layout" "$N within 1 s (dense)" 1000 0
  run "$layout" "$N at the same ms" 0 1
done
