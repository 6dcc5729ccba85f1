#!/usr/bin/env bash
# Interleaved before/after of what the claim and acknowledgement scripts cost Redis per drained
# job (DrainCost.java: the tree's own RedisBroker on a throw-away Redis, no workers, no scheduler),
# TURNS turns of (before, after), each on a fresh Redis; prints each run, the medians and the ratio.
# Usage: bench/scripts/drain-cost-ab.sh BEFORE_TREE AFTER_TREE (trees with built jars).
# Env: TURNS (5), N (100000), PREFETCH (32; AFTER_PREFETCH for the after side, default the same),
# CONSUMERS (8), PER (4: jobs each consumer finishes between two ack calls; AFTER_PER for the after side).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
before="$(cd "$1" && pwd)"; after="$(cd "$2" && pwd)"
TURNS="${TURNS:-5}"; N="${N:-100000}"; PREFETCH="${PREFETCH:-32}"; AFTER_PREFETCH="${AFTER_PREFETCH:-$PREFETCH}"
CONSUMERS="${CONSUMERS:-8}"; PER="${PER:-4}"; AFTER_PER="${AFTER_PER:-$PER}"
. "$root/bench/scripts/private-redis.sh"
out="$(mktemp -d)"
for turn in $(seq 1 "$TURNS"); do
  for side in before after; do
    tree="$before"; prefetch="$PREFETCH"; per="$PER"
    if [ "$side" = after ]; then tree="$after"; prefetch="$AFTER_PREFETCH"; per="$AFTER_PER"; fi
    private_redis
    load="$(cut -d' ' -f1 /proc/loadavg)"
    java -cp "$tree/bench/target/lib/*" "$root/bench/scripts/DrainCost.java" "$port" "$N" "$prefetch" \
      "$CONSUMERS" "$per" > "$out/$side-$turn.txt"
    kill "$(cat "$work/redis.pid")" 2>/dev/null || true; sleep 0.3
    rm -rf "$work"
    echo "$side $turn (load $load): $(head -1 "$out/$side-$turn.txt")"
  done
done
trap - EXIT
python3 - "$out" "$TURNS" <<'PY'
import re, sys, statistics
out, turns = sys.argv[1], int(sys.argv[2])
med = {}
for side in ("before", "after"):
    us = [float(re.search(r"redis_cpu_us_per_job ([0-9.]+)", open(f"{out}/{side}-{t}.txt").readline()).group(1))
          for t in range(1, turns + 1)]
    med[side] = statistics.median(us)
    print(f"median {side}: {med[side]:.3f} us of Redis CPU per job")
print(f"after/before: {med['after'] / med['before']:.3f}x")
print(f"figures (with the per-command tables) in {out}")
PY
