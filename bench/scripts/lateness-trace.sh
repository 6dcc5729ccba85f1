#!/usr/bin/env bash
# Where the tail of `bench precision` (2,000 jobs over 10 s), or of `bench ticks` (MEASURE=ticks:
# an every-1s schedule for TICKS s), comes from. Runs it on a throw-away
# Redis under MONITOR, with GC and safepoint logs of the worker and scheduler JVMs and the
# machine's CPU pressure (/proc/pressure/cpu) around it, then lateness-trace.py follows every
# job through the MONITOR (due in enqueue's ZADD, forwarded in moveDueToReady's LPUSH, claimed
# by BLMOVE+claim.lua or claimReady.lua, started as the probe's RPUSH says) and splits each
# late job's lateness into scheduler, claim and worker parts, next to the pauses that overlap.
# MONITOR itself costs Redis some time per command; compare runs made the same way only.
# Usage: bench/scripts/lateness-trace.sh [OUT_DIR]
# Env: JVM_WORKER, JVM_SCHEDULER (the child JVMs' options; the defaults are conf/delayq.yml's),
#      N (2000), MONITOR (1; 0: no MONITOR and no per-job split, for before/after figures),
#      SHARDS (1: queue.shards of the bench queue, on the same one Redis), SUSTAIN (3: seconds of
#      the sustained 5,000/s part), PART (spread: which part the trace splits; or sustained),
#      MEASURE (precision; or ticks), TICKS (60).
# Writes OUT_DIR/{monitor.txt,<MEASURE>.json,gc-*.log,pressure-*.txt,trace.txt}.
set -euo pipefail
# the trace finds each start in the probe's own RPUSH: one per job, not the batched stamps (a run
# without MONITOR, for before/after figures, keeps the batched probe that bench precision runs)
[ "${MONITOR:-1}" = 1 ] && export DELAYQ_BENCH_PROBE_PUSH=each
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$(mkdir -p "${1:-$root/target/lateness-trace}" && cd "${1:-$root/target/lateness-trace}" && pwd)"
N="${N:-2000}"; SHARDS="${SHARDS:-1}"; SUSTAIN="${SUSTAIN:-3}"; PART="${PART:-spread}"
source "$root/bench/scripts/jvm-defaults.sh"
JVM_WORKER="${JVM_WORKER:-$(jvm_default worker)}"
JVM_SCHEDULER="${JVM_SCHEDULER:-$(jvm_default scheduler)}"
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
work="$(mktemp -d)"
rm -f "$out"/gc-*.log

redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
  --dir "$work" --pidfile "$work/redis.pid" >/dev/null
monitor_pid=""
trap 'kill $monitor_pid 2>/dev/null || true; kill "$(cat "$work/redis.pid")" 2>/dev/null || true' EXIT
sleep 0.5
if [ "${MONITOR:-1}" = 1 ]; then
  redis-cli -p "$port" monitor > "$out/monitor.txt" &
  monitor_pid=$!
fi

log="-Xlog:gc,safepoint:file=$out/gc-%r-%p.log:time,uptime"
{ cat /proc/loadavg; cat /proc/pressure/cpu 2>/dev/null || true; } > "$out/pressure-before.txt"
DELAYQ_JVM_WORKER="$JVM_WORKER ${log/\%r/worker}" DELAYQ_JVM_SCHEDULER="$JVM_SCHEDULER ${log/\%r/scheduler}" \
  "$root/bin/delayq" bench ${MEASURE:-precision} $(if [ "${MEASURE:-precision}" = ticks ]; then
    echo --seconds "${TICKS:-60}"; else echo --n "$N" --sustain-seconds "$SUSTAIN" --shards "$SHARDS"; fi) \
  --redis "redis://127.0.0.1:$port" --json "$out/${MEASURE:-precision}.json" > "$out/bench.txt"
{ cat /proc/loadavg; cat /proc/pressure/cpu 2>/dev/null || true; } > "$out/pressure-after.txt"
if [ -n "$monitor_pid" ]; then
  kill "$monitor_pid"; wait "$monitor_pid" 2>/dev/null || true
  python3 "$root/bench/scripts/lateness-trace.py" "$out" "$PART" | tee "$out/trace.txt"
else
  grep -i "lateness" "$out/bench.txt"; cat "$out/pressure-after.txt" | head -1
fi
