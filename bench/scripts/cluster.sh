#!/usr/bin/env bash
# The figures of README "Running on a Redis Cluster": enqueue, drain and precision of a queue of
# one shard and of three shards on a private Redis Cluster of three masters on loopback (which
# `bench --cluster local` makes with redis-cli --cluster create and tears down), each with the
# Redis CPU split over the masters, and the same drain on one plain Redis for the cost per job.
# Usage: bench/scripts/cluster.sh   Env: N (50000), RUNS (3), SUSTAIN (10 seconds at 5,000 jobs/s).
# Writes target/bench-cluster/*.json. For shards 1 against shards 3 run round by round (the
# precision comparison on a shared machine), see shards-precision.sh.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
N="${N:-50000}"; RUNS="${RUNS:-3}"; SUSTAIN="${SUSTAIN:-10}"
out="$root/target/bench-cluster"; mkdir -p "$out"

for shards in 1 3; do
  for measure in enqueue drain; do
    "$root/bin/delayq" bench "$measure" --n "$N" --runs "$RUNS" --cluster local --shards "$shards" \
      --json "$out/cluster-$measure-shards$shards.json"
  done
  "$root/bin/delayq" bench precision --n 2000 --sustain-seconds "$SUSTAIN" --cluster local \
    --shards "$shards" --json "$out/cluster-precision-shards$shards.json"
done
"$root/bin/delayq" bench drain --n "$N" --runs "$RUNS" --json "$out/plain-drain.json"
echo "figures in $out"
