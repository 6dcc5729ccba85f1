#!/usr/bin/env bash
# Where the Redis time of a drain goes, script by script and command by command.
# Starts a throw-away redis-server (stock settings, no persistence) whose slow log takes every call
# of at least SLOWER_THAN µs (default 10), runs `bin/delayq bench drain` against it, then prints:
#  - per script (EVALSHA named by its SHA, as the built client computes it): calls, µs per call,
#    µs per drained job, and calls per job, from the slow log (execution time only, as
#    commandstats: no I/O). Redis 7 logs the commands a script runs too, and logging them costs
#    time inside the script's own: with SLOWER_THAN 0 every script looks far dearer than it is;
#    at 10 µs few inner commands are logged, and the calls below it are missed (compare the
#    scripts' sum with evalsha's in commandstats);
#  - INFO commandstats over the whole run: µs and calls per drained job of every command (the
#    scripts' inner commands counted again under their own names);
#  - the bench's own figures (redis_cpu_us_per_job: used_cpu_user+sys over its window).
# The slow log holds every top-level call of the run, the seeding and clean-up too (they show as
# enqueue.lua, DEL and the like, apart from the drain's scripts).
# With PERF=1, also `perf record` of the redis-server over the drain (from the seeded records
# to none), and its top symbols (self time), so the time outside the commands (Lua, I/O,
# allocation) shows too.
# Usage: bench/scripts/drain-profile.sh [N] (default 20000). Env: SLOWER_THAN (10), PERF, THREADS (8), WORKERS (1),
# DELAYQ (bin/delayq of this tree; point it at another tree's to profile that one).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
N="${1:-20000}"; SLOWER_THAN="${SLOWER_THAN:-10}"; THREADS="${THREADS:-8}"; WORKERS="${WORKERS:-1}"
DELAYQ="${DELAYQ:-$root/bin/delayq}"
tree="$(cd "$(dirname "$DELAYQ")/.." && pwd)"
. "$root/bench/scripts/private-redis.sh"
private_redis --slowlog-log-slower-than "$SLOWER_THAN" --slowlog-max-len $((N * 4 + 100000))

java -cp "$(ls "$tree"/bench/target/lib/delayq-common-*.jar | head -1)" "$root/bench/scripts/ScriptShas.java" > "$work/shas"
cli CONFIG RESETSTAT >/dev/null
cli SLOWLOG RESET >/dev/null
"$DELAYQ" bench drain --n "$N" --runs 1 --workers "$WORKERS" --threads "$THREADS" \
  --redis "redis://127.0.0.1:$port" --json "$work/drain.json" >/dev/null &
bench_pid=$!
if [ -n "${PERF:-}" ]; then
  # the drain only: from when all N records are written (the jobs wait for their due time) to
  # when the records are gone
  jobs=""
  until [ -n "$jobs" ] && [ "$(cli HLEN "$jobs")" -ge "$N" ]; do
    kill -0 "$bench_pid" 2>/dev/null || { echo "bench drain ended before its jobs were seeded" >&2; exit 1; }
    sleep 0.05; jobs="$(cli --scan --pattern '*}:jobs' | head -1)"
  done
  perf record -F 4000 -g -p "$(cat "$work/redis.pid")" -o "$work/perf.data" >/dev/null 2>&1 &
  perf_pid=$!
  while [ "$(cli HLEN "$jobs")" -gt 0 ] && kill -0 "$bench_pid" 2>/dev/null; do sleep 0.05; done
  kill -INT "$perf_pid"; wait "$perf_pid" || true
fi
wait "$bench_pid"
if [ -n "${PERF:-}" ]; then
  perf report -i "$work/perf.data" --stdio --no-children --sort symbol --percent-limit 0.7 2>/dev/null \
    | grep -E '^ +[0-9]' | head -30 > "$work/perf.txt"
  # inclusive shares of where a call's time goes: reading and parsing requests, the scripts, the
  # commands inside them, the Lua glue, writing replies, the event loop
  perf report -i "$work/perf.data" --stdio --children --sort symbol 2>/dev/null | grep -E '^ +[0-9]' \
    | grep -wE 'aeProcessEvents|readQueryFromClient|processInputBuffer|processMultibulkBuffer|call|evalShaCommand|luaCallFunction|luaRedisGenericCommand|luaRedisCallCommand|redisProtocolToLuaType|luaReplyToRedisReply|scriptCall|writeToClient|_writeToClient|handleClientsWithPendingWrites|beforeSleep|serverCron|hmgetCommand|hdelCommand|lrangeCommand|ltrimCommand|lremCommand|rpopCommand|lpushCommand|zremCommand|genericZrangebyscoreCommand|hlenCommand|hsetCommand|blmoveCommand|zaddCommand|lookupKeyRead|lookupKeyWrite|dictFind|zmalloc|zfree|sdsfree|sdsnewlen|createStringObject|decrRefCount|freeClientArgv' \
    > "$work/perf-children.txt"
fi
cli INFO commandstats > "$work/commandstats"
cli --json SLOWLOG GET -1 > "$work/slowlog.json"

python3 - "$N" "$work" "$root/bench/scripts" <<'EOF'
import json, sys
n, work = int(sys.argv[1]), sys.argv[2]
sys.path.insert(0, sys.argv[3])
import commandstats
commandstats.slowlog(work, n, "the drain")
print()
print("INFO commandstats, the whole run (inner commands of scripts counted again)")
commandstats.table(work + "/commandstats", n)
d = json.load(open(work + "/drain.json"))["drain"]
print()
print("bench drain:", {k: d[k] for k in ("jobs_per_s", "redis_cpu_us_per_job", "redis_usec_per_job_by_command") if k in d})
EOF
if [ -n "${PERF:-}" ]; then
  echo; echo "perf, redis-server self time by symbol, from the due time to the last record gone"; cat "$work/perf.txt"
  echo; echo "perf, inclusive (children) share of chosen functions, same window"; cat "$work/perf-children.txt"
fi
