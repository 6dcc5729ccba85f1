#!/usr/bin/env bash
# Where the Redis time of a job goes at a steady arrival rate: drain-profile.sh's tables for the
# sustained phase of `bin/delayq bench precision` (5,000 jobs/s, every job 500 ms out).
# Starts a throw-away redis-server (stock settings, no persistence) whose slow log takes every call
# of at least SLOWER_THAN µs (default 10), runs the precision bench against it, and watches its
# lateness log (bench:lateness:<queue>): once the spread phase's N stamps are in and the log is
# deleted (the sustained phase starts), it resets INFO commandstats and the slow log; once the
# sustained phase's stamps are all in, it reads both. Then prints:
#  - per script (EVALSHA named by its SHA, as the built client computes it, ScriptShas.java):
#    calls, calls per job, µs per call and µs per job, from the slow log (execution time only, as
#    commandstats: no I/O). Redis 7 logs a script's inner commands too, and logging them costs
#    time inside the script's own: at SLOWER_THAN 0 every script looks far dearer than it is;
#    at 10 µs few inner commands are logged, but calls below it are missed (compare the scripts'
#    sum with evalsha's in commandstats);
#  - INFO commandstats over the sustained phase: calls, µs a call and µs a job of every command
#    (the scripts' inner commands counted again under their own names);
#  - the bench's own sustained figures (CPU µs per job of Redis and of delayq's JVMs, lateness).
# The window opens and closes within ~20 ms of the phase's edges (a poll), and includes the
# drain of the last jobs (500 ms after the last enqueue).
# With PERF=1, also `perf record` of the redis-server over the same window, and its top symbols
# (self time, and inclusive shares), so the time outside the commands (Lua, I/O) shows too.
# Usage: bench/scripts/precision-profile.sh [SUSTAIN_SECONDS] (default 10). Env: SLOWER_THAN (10), PERF,
# THREADS (the bench's consumer threads per worker, default 8),
# N (2000, the spread phase), DELAYQ (bin/delayq of this tree; point it at another tree's to
# profile that one).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
SUSTAIN="${1:-10}"; SLOWER_THAN="${SLOWER_THAN:-10}"; N="${N:-2000}"
DELAYQ="${DELAYQ:-$root/bin/delayq}"
tree="$(cd "$(dirname "$DELAYQ")/.." && pwd)"
total=$((5000 * SUSTAIN))
. "$root/bench/scripts/private-redis.sh"
private_redis --slowlog-log-slower-than "$SLOWER_THAN" --slowlog-max-len $((total * 12 + 100000))

java -cp "$(ls "$tree"/bench/target/lib/delayq-common-*.jar | head -1)" "$root/bench/scripts/ScriptShas.java" > "$work/shas"
"$DELAYQ" bench precision --n "$N" --sustain-seconds "$SUSTAIN" --threads "${THREADS:-8}" \
  --redis "redis://127.0.0.1:$port" --json "$work/precision.json" > "$work/bench.out" &
bench_pid=$!
log=""
until [ -n "$log" ]; do
  kill -0 "$bench_pid" 2>/dev/null || { echo "bench precision ended before its lateness log showed" >&2; cat "$work/bench.out" >&2; exit 1; }
  sleep 0.05; log="$(cli --scan --pattern 'bench:lateness:*' | head -1)"
done
# the spread phase: its N stamps in, then the log deleted as the sustained phase starts
# (the log is read and deleted within ms of its last stamp, so the count of N is not waited
# for: the sustained phase's first stamps come 500 ms after the deletion, which a 5 ms poll sees)
until [ "$(cli LLEN "$log")" -gt 0 ]; do sleep 0.02; done
until [ "$(cli LLEN "$log")" -eq 0 ]; do
  kill -0 "$bench_pid" 2>/dev/null || { echo "bench precision ended in its spread phase" >&2; exit 1; }
  sleep 0.005
done
cli CONFIG RESETSTAT >/dev/null
cli SLOWLOG RESET >/dev/null
if [ -n "${PERF:-}" ]; then
  perf record -F 2000 -g -p "$(cat "$work/redis.pid")" -o "$work/perf.data" >/dev/null 2>&1 &
  perf_pid=$!
fi
until [ "$(cli LLEN "$log")" -ge "$total" ]; do
  kill -0 "$bench_pid" 2>/dev/null || { echo "bench precision ended before the sustained stamps were in" >&2; exit 1; }
  sleep 0.02
done
cli INFO commandstats > "$work/commandstats"
cli --json SLOWLOG GET -1 > "$work/slowlog.json"
if [ -n "${PERF:-}" ]; then
  kill -INT "$perf_pid"; wait "$perf_pid" || true
  perf report -i "$work/perf.data" --stdio --no-children --sort symbol --percent-limit 0.7 2>/dev/null \
    | grep -E '^ +[0-9]' | head -30 > "$work/perf.txt" || true
  perf report -i "$work/perf.data" --stdio --children --sort symbol --percent-limit 2 2>/dev/null \
    | grep -E '^ +[0-9]' | head -40 > "$work/perf-children.txt" || true
fi
wait "$bench_pid"

python3 - "$total" "$work" "$root/bench/scripts" <<'EOF'
import json, sys
n, work = int(sys.argv[1]), sys.argv[2]
sys.path.insert(0, sys.argv[3])
import commandstats
commandstats.slowlog(work, n, "sustained phase")
print()
print("INFO commandstats, sustained phase (inner commands of scripts counted again)")
commandstats.table(work + "/commandstats", n, top=25)
p = json.load(open(work + "/precision.json"))["precision"]
s = p["sustained"]
print()
print("bench precision, sustained: redis/jvms cpu us per job", p["sustained_redis_cpu_us_per_job"], "/",
      p["sustained_delayq_cpu_us_per_job"], " lateness", s.get("lateness_ms", s))
EOF
if [ -n "${PERF:-}" ]; then
  echo; echo "perf, redis-server self time by symbol, sustained phase"; cat "$work/perf.txt"
  echo; echo "perf, inclusive (children) share, sustained phase"; cat "$work/perf-children.txt"
fi
