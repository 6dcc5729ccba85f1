#!/usr/bin/env bash
# The claim and acknowledgement scripts of two trees side by side on one throw-away Redis
# (DrainCostMix.java): each drains its own queue through its tree's RedisBroker, the two taking
# turns CHUNK jobs at a time, so both meet the same load. Steadier than drain-cost-ab.sh on a
# shared machine (whose runs, minutes apart, differ by half on the same tree): an A/A run of one
# tree against itself gives about 1.00.
# Usage: bench/scripts/drain-cost-mix.sh BEFORE_TREE AFTER_TREE (trees with built jars; their
# RedisBroker APIs as DrainCost.java calls them). Env: TURNS (3: runs, each on a fresh Redis),
# N (100000 each side), CHUNK (4000), PREFETCH (64), CONSUMERS (8), PER (4).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
before="$(cd "$1" && pwd)"; after="$(cd "$2" && pwd)"
TURNS="${TURNS:-3}"; N="${N:-100000}"; CHUNK="${CHUNK:-4000}"; PREFETCH="${PREFETCH:-64}"
CONSUMERS="${CONSUMERS:-8}"; PER="${PER:-4}"
classes="$(mktemp -d)"
javac -nowarn -d "$classes" -cp "$after/bench/target/lib/*" "$root/bench/scripts/DrainCost.java" \
  "$root/bench/scripts/DrainCostMix.java" 2>&1 | grep -v '^Note:' || true
. "$root/bench/scripts/private-redis.sh"
for turn in $(seq 1 "$TURNS"); do
  private_redis
  load="$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "turn $turn (load $load): $(java -cp "$classes:$after/bench/target/lib/*" DrainCostMix "$classes" "$port" \
    "$before" "$after" "$N" "$CHUNK" "$PREFETCH" "$CONSUMERS" "$PER")"
  kill "$(cat "$work/redis.pid")" 2>/dev/null || true; sleep 0.3
  rm -rf "$work"
done
trap - EXIT
rm -rf "$classes"
