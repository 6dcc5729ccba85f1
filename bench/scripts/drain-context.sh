#!/usr/bin/env bash
# Why `bench all`'s drain figure differs from `bench drain`'s: the same `bench drain --n N
# --runs 1` against three throw-away Redis servers (stock settings, no persistence), TURNS times:
#   fresh     a server that has run nothing else (what `bench drain` gets: its private Redis)
#   after     a server that first ran `bench enqueue` and `bench forward` (--runs 3 each), as the
#             drain of `bench all` does
#   keys      a fresh server holding KEYS other keys (DEBUG POPULATE; a Redis "that also holds
#             BullMQ's runs")
# For each: jobs/s, Redis CPU µs per job, evalsha µs per job, and the Lua heap before the drain.
# Usage: bench/scripts/drain-context.sh. Env: N (100000), TURNS (2), KEYS (2000000), DELAYQ.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
N="${N:-100000}"; TURNS="${TURNS:-2}"; KEYS="${KEYS:-2000000}"
DELAYQ="${DELAYQ:-$root/bin/delayq}"
out="$(mktemp -d)"
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
start() { # port dir
  redis-server --port "$1" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
    --dir "$2" --pidfile "$2/redis.pid" --enable-debug-command local >/dev/null
  sleep 0.5
}
stop() { kill "$(cat "$1/redis.pid")" 2>/dev/null || true; sleep 0.5; }
drain() { # label port turn
  local lua; lua="$(redis-cli -p "$2" INFO memory | tr -d '\r' | sed -n 's/^used_memory_lua://p')"
  cut -d' ' -f1-3 /proc/loadavg > "$out/$1-$3.load"
  echo "$lua" > "$out/$1-$3.lua"
  "$DELAYQ" bench drain --n "$N" --runs 1 --redis "redis://127.0.0.1:$2" --json "$out/$1-$3.json" >/dev/null 2>&1
  echo "turn $3 $1 done" >&2
}
for turn in $(seq 1 "$TURNS"); do
  for label in fresh after keys; do
    dir="$out/redis-$label-$turn"; mkdir -p "$dir"; port="$(free_port)"
    start "$port" "$dir"
    if [ "$label" = after ]; then
      "$DELAYQ" bench enqueue --n "$N" --runs 3 --redis "redis://127.0.0.1:$port" >/dev/null 2>&1
      "$DELAYQ" bench forward --n "$N" --runs 3 --redis "redis://127.0.0.1:$port" >/dev/null 2>&1
    elif [ "$label" = keys ]; then
      redis-cli -p "$port" DEBUG POPULATE "$KEYS" other 100 >/dev/null
    fi
    drain "$label" "$port" "$turn"
    stop "$dir"
  done
done
python3 - "$out" "$TURNS" <<'EOF'
import json, sys, statistics
out, turns = sys.argv[1], int(sys.argv[2])
print(f"{'server':<10}{'turn':>5}  {'load':>16}{'lua heap B':>12}{'jobs/s':>9}{'cpu us/job':>12}{'evalsha us/job':>16}")
for label in ("fresh", "after", "keys"):
    cpu = []
    for t in range(1, turns + 1):
        d = json.load(open(f"{out}/{label}-{t}.json"))["drain"]
        ev = d["redis_usec_per_job_by_command"].get("evalsha", 0)
        cpu.append(d["redis_cpu_us_per_job"])
        print(f"{label:<10}{t:>5}  {open(f'{out}/{label}-{t}.load').read().strip():>16}"
              f"{open(f'{out}/{label}-{t}.lua').read().strip():>12}{d['jobs_per_s']:>9}"
              f"{d['redis_cpu_us_per_job']:>12}{ev:>16}")
    print(f"{label:<10} median cpu us/job {statistics.median(cpu):.2f}")
print(f"figures in {out}")
EOF
