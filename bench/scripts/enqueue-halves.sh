#!/usr/bin/env bash
# Where the Redis time of each half of `bench enqueue` goes, command by command: for "batched"
# (enqueueAll) and then "single" (delay() from 50 threads), each in a fresh throw-away
# redis-server (stock settings), INFO commandstats over that half alone per enqueued job (the
# scripts' inner commands counted again under their own names), Redis CPU µs per job and the
# jobs a script call held. enqueue-profile.sh gives the two halves together, with perf.
# Usage: bench/scripts/enqueue-halves.sh [N] (default 100000). Env: TREE (the tree whose built
# jars to run; default this one).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
N="${1:-100000}"
TREE="${TREE:-$root}"
for mode in batched single; do
  (
    . "$root/bench/scripts/private-redis.sh"
    private_redis
    cli CONFIG RESETSTAT >/dev/null
    cpu0=$(cli INFO cpu | awk -F: '/used_cpu_(user|sys):/{s+=$2} END{print s}')
    java -cp "$TREE/bench/target/lib/*" "$root/bench/scripts/EnqueueHalves.java" "$port" "$mode" "$N"
    cpu1=$(cli INFO cpu | awk -F: '/used_cpu_(user|sys):/{s+=$2} END{print s}')
    cli INFO commandstats > "$work/commandstats"
    python3 - "$N" "$work" "$root/bench/scripts" "$cpu0" "$cpu1" <<'PY'
import sys
n, work = int(sys.argv[1]), sys.argv[2]
sys.path.insert(0, sys.argv[3])
import commandstats
cpu = (float(sys.argv[5]) - float(sys.argv[4])) * 1e6 / n
calls = [l for l in open(work + "/commandstats") if l.startswith("cmdstat_evalsha:")]
c = int(calls[0].split("calls=")[1].split(",")[0]) if calls else 0
print(f"Redis CPU {cpu:.2f} us/job (prepare included), {n / max(c, 1):.1f} jobs a script call")
commandstats.table(work + "/commandstats", n, top=14)
PY
  )
done
