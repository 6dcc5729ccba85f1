#!/usr/bin/env bash
# Where the Redis time of an enqueue goes, command by command.
# Starts a throw-away redis-server (stock settings, no persistence), runs
# `bin/delayq bench enqueue --runs 1` against it (N jobs in batches of 1000 per enqueue.lua call,
# then N one by one), and prints INFO commandstats over the whole run per enqueued job (2N: both
# halves; the scripts' inner commands counted again under their own names) and the bench's own
# figures (batched_redis_cpu_us_per_job: used_cpu_user+sys over the batched half only), and
# with perf, the instructions redis-server ran per enqueued job (both halves, and the set-up).
# Usage: bench/scripts/enqueue-profile.sh [N] (default 100000). Env: DELAYQ (bin/delayq of this
# tree; point it at another tree's to profile that one).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
N="${1:-100000}"
DELAYQ="${DELAYQ:-$root/bin/delayq}"
. "$root/bench/scripts/private-redis.sh"
private_redis
cli CONFIG RESETSTAT >/dev/null
# instructions the redis-server retires over the run: a load-independent figure for A/B on a
# shared machine (CPU µs per job moves with the load)
perf stat -e instructions:u -x, -o "$work/perfstat" -p "$(cat "$work/redis.pid")" &
perf_pid=$!
"$DELAYQ" bench enqueue --n "$N" --runs 1 --redis "redis://127.0.0.1:$port" --json "$work/enqueue.json" >/dev/null
cli INFO commandstats > "$work/commandstats"
kill -INT "$perf_pid"; wait "$perf_pid" || true

python3 - "$N" "$work" "$root/bench/scripts" <<'PY'
import json, sys
n, work = int(sys.argv[1]), sys.argv[2]
sys.path.insert(0, sys.argv[3])
import commandstats
jobs = 2 * n
print(f"INFO commandstats, the whole run ({jobs} jobs enqueued; inner commands of scripts counted again)")
commandstats.table(work + "/commandstats", jobs)
d = json.load(open(work + "/enqueue.json"))["enqueue"]
print()
ins = [l for l in open(work + "/perfstat") if "instructions" in l]
if ins and ins[0].split(",")[0].isdigit():
    print(f"redis-server instructions (user) per enqueued job: {int(ins[0].split(',')[0]) / jobs:.0f}")
print("bench enqueue:", {k: d[k] for k in ("batched_jobs_per_s", "one_by_one_jobs_per_s", "batched_redis_cpu_us_per_job") if k in d})
PY
