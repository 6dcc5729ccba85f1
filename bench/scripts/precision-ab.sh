#!/usr/bin/env bash
# Before/after cost of a job at a steady rate, two built trees on a shared, noisy machine: TURNS
# pairs of each tree's `bin/delayq bench precision --n 2000 --sustain-seconds SUSTAIN` (default
# 10), each run on its own fresh throw-away redis-server (private-redis.sh), BEFORE and AFTER
# taking turns so both see the same load. Prints each run (sustained CPU µs per job of Redis and
# of delayq's JVMs, sustained lateness p50/p90/p99/max, the 1-minute load average at its end),
# then each tree's medians and the ratios AFTER/BEFORE.
# Usage: bench/scripts/precision-ab.sh BEFORE_TREE AFTER_TREE. Env: TURNS (3), SUSTAIN (10),
# OUT (directory for each run's JSON; default a temporary one), BEFORE_THREADS and AFTER_THREADS
# (the bench's consumer threads per worker on each side, default 8: `AFTER_THREADS=2
# bench/scripts/precision-ab.sh . .` compares one tree with 8 and with 2 consumers).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
before="$(cd "$1" && pwd)"; after="$(cd "$2" && pwd)"
TURNS="${TURNS:-3}"; SUSTAIN="${SUSTAIN:-10}"
BEFORE_THREADS="${BEFORE_THREADS:-8}"; AFTER_THREADS="${AFTER_THREADS:-8}"
out="${OUT:-$(mktemp -d)}"; mkdir -p "$out"

run() { # tree label threads: one run on a fresh private Redis, in a subshell (its trap stops that Redis)
  (
    . "$root/bench/scripts/private-redis.sh"
    private_redis
    "$1/bin/delayq" bench precision --n 2000 --sustain-seconds "$SUSTAIN" --threads "$3" \
      --redis "redis://127.0.0.1:$port" --json "$out/$2.json" > "$out/$2.out" 2>&1
    cut -d' ' -f1 /proc/loadavg > "$out/$2.load"
  )
}
for i in $(seq 1 "$TURNS"); do
  run "$before" "before-$i" "$BEFORE_THREADS"
  run "$after" "after-$i" "$AFTER_THREADS"
done
python3 - "$out" "$TURNS" <<'PY'
import json, statistics, sys
out, turns = sys.argv[1], int(sys.argv[2])
med = {}
for v in ('before', 'after'):
    rows = []
    for i in range(1, turns + 1):
        p = json.load(open(f"{out}/{v}-{i}.json"))['precision']
        t = p['sustained']['lateness_ms']
        load = float(open(f"{out}/{v}-{i}.load").read())
        r = (p['sustained_redis_cpu_us_per_job'], p['sustained_delayq_cpu_us_per_job'], t['p50'], t['p90'], t['p99'], t['max'], load)
        rows.append(r)
        print(f"{v} {i}: sustained cpu us/job redis/jvms {r[0]}/{r[1]}, lateness p50/p90/p99/max {r[2]}/{r[3]}/{r[4]}/{r[5]} ms, load {load}")
    med[v] = [statistics.median(c) for c in zip(*rows)]
    m = med[v]
    print(f"{v} median of {turns}: cpu us/job redis/jvms {m[0]:g}/{m[1]:g}, lateness p50/p90/p99/max "
          f"{m[2]:g}/{m[3]:g}/{m[4]:g}/{m[5]:g} ms, load {m[6]:.2f}")
b, a = med['before'], med['after']
ratio = lambda x, y: f"{y / x:.2f}" if x else "n/a"
print(f"ratio after/before: redis cpu {ratio(b[0], a[0])}, jvms cpu {ratio(b[1], a[1])}, "
      f"p99 {ratio(b[4], a[4])}, max {ratio(b[5], a[5])}")
PY
