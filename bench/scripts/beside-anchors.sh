#!/usr/bin/env bash
# Runs `delayq bench all` and then the BullMQ anchor harness against the same throw-away Redis,
# one after the other, so the ratios in the README are side by side and not across days.
# Usage: bench/scripts/beside-anchors.sh [ANCHORS_DIR] (default ../shared/anchors)
# Env: N (100000), RUNS (3), PORT (6390). Writes target/bench-beside-anchors/{delayq.json,bullmq.jsonl}
# and prints the README's table from them (bench/scripts/beside-table.py).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
anchors="$(cd "${1:-$root/../shared/anchors}" && pwd)"
N="${N:-100000}"; RUNS="${RUNS:-3}"; PORT="${PORT:-6390}"
out="$root/target/bench-beside-anchors"; mkdir -p "$out"
work="$(mktemp -d)"

redis-server --port "$PORT" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
  --dir "$work" --pidfile "$work/redis.pid" >/dev/null
trap 'kill "$(cat "$work/redis.pid")" 2>/dev/null || true' EXIT
sleep 0.5

"$root/bin/delayq" bench all --n "$N" --runs "$RUNS" --redis "redis://127.0.0.1:$PORT" --json "$out/delayq.json"
"$root/bin/delayq" bench drain --n "$N" --runs "$RUNS" --workers 2 --redis "redis://127.0.0.1:$PORT" --json "$out/delayq-drain-2x8.json"

# The BullMQ harness, copied so its node_modules never land in the shared folder. Its scripts
# FLUSHALL this Redis, which is why they run after delayq's.
cp -r "$anchors/bullmq" "$work/bullmq"
(cd "$work/bullmq" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
rm -f "$work/bullmq/results/bullmq.jsonl"
(cd "$work/bullmq" && REDIS_PORT="$PORT" RUNS="$RUNS" N="$N" PREC_N=2000 ./run-all.sh)
cp "$work/bullmq/results/bullmq.jsonl" "$out/bullmq.jsonl"
echo "figures in $out"
python3 "$root/bench/scripts/beside-table.py" "$out"
