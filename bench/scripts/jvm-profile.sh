#!/usr/bin/env bash
# Where the child JVMs' CPU per job goes: runs `bench precision` (or MEASURE=drain: `bench drain`)
# on a throw-away Redis with a JFR recording (profile settings) in the worker and the scheduler
# JVM, then prints each one's hottest frames (top of stack and, with their callers, the frames of
# delayq's own code), its allocation by class, its GC pauses and its threads' context switches.
# Usage: bench/scripts/jvm-profile.sh [OUT_DIR]   Env: MEASURE (precision|drain), SUSTAIN (10),
#        N (2000; 100000 for a drain), TOP (25), SHARDS (1: queue.shards of the bench queue),
#        JFR (1; 0: no recording, only the threads' context switches and CPU, without JFR's own cost),
#        CLUSTER (0; 1: on the bench's private 3-master cluster, --cluster local, instead of one Redis;
#        then the children of any run on the machine are counted, so run nothing beside it).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="$(mkdir -p "${1:-$root/target/jvm-profile}" && cd "${1:-$root/target/jvm-profile}" && pwd)"
MEASURE="${MEASURE:-precision}"; SUSTAIN="${SUSTAIN:-10}"; TOP="${TOP:-25}"; SHARDS="${SHARDS:-1}"
N="${N:-$([ "$MEASURE" = drain ] && echo 100000 || echo 2000)}"
source "$root/bench/scripts/private-redis.sh"
source "$root/bench/scripts/jvm-defaults.sh"
[ "${CLUSTER:-0}" = 1 ] || private_redis # (the cluster is the bench's own)
rm -f "$out"/*.jfr "$out"/ctx-*.txt
jfr="-XX:StartFlightRecording=settings=profile,dumponexit=true,filename=$out/%r.jfr"
[ "${JFR:-1}" = 0 ] && jfr=""
# the context switches of each child's threads, sampled at the end (its /proc/<pid>/task/*/status)
( while sleep 1; do
    for p in $(pgrep -f 'dev.delayq.(worker.WorkerMain|schedulerproc.SchedulerMain)' || true); do
      kind=$(tr '\0' ' ' < /proc/$p/cmdline 2>/dev/null | grep -o 'WorkerMain\|SchedulerMain' || true)
      [ -n "$kind" ] || continue
      [ "${CLUSTER:-0}" = 1 ] || grep -qa "127.0.0.1:$port" /proc/$p/environ 2>/dev/null \
        || continue # this run's children only
      for t in /proc/$p/task/*; do
        printf '%s %s %s\n' "$(cat $t/comm 2>/dev/null)" \
          "$(awk '/^voluntary_ctxt/{v=$2} /^nonvoluntary_ctxt/{n=$2} END{print v, n}' $t/status 2>/dev/null)" \
          "$(awk '{print $14+$15}' $t/stat 2>/dev/null)"
      done > "$out/ctx-$kind-$p.txt.tmp" && mv "$out/ctx-$kind-$p.txt.tmp" "$out/ctx-$kind-$p.txt"
    done
  done ) &
sampler=$!
trap 'kill $sampler 2>/dev/null || true; [ -z "${work:-}" ] || { kill "$(cat "$work/redis.pid")" 2>/dev/null || true; rm -rf "$work"; }' EXIT
args=(--n "$N" --shards "$SHARDS"); [ "$MEASURE" = precision ] && args+=(--sustain-seconds "$SUSTAIN")
if [ "${CLUSTER:-0}" = 1 ]; then where=(--cluster local); else where=(--redis "redis://127.0.0.1:$port"); fi
DELAYQ_JVM_WORKER="${JVM_WORKER:-$(jvm_default worker)} ${jfr/\%r/worker}" \
DELAYQ_JVM_SCHEDULER="${JVM_SCHEDULER:-$(jvm_default scheduler)} ${jfr/\%r/scheduler}" \
  "$root/bin/delayq" bench "$MEASURE" "${args[@]}" "${where[@]}" --json "$out/$MEASURE.json" \
  > "$out/bench.txt"
kill $sampler 2>/dev/null || true
sleep 2
cat /proc/loadavg > "$out/load.txt"
grep -i "cpu us per job\|lateness\|jobs/s" "$out/bench.txt" || true
for f in "$out"/*.jfr; do
  [ -s "$f" ] || continue
  echo "== $(basename "$f")"
  jfr print --events jdk.ExecutionSample "$f" > "${f%.jfr}.samples.txt"
  jfr print --events jdk.ObjectAllocationSample "$f" > "${f%.jfr}.alloc.txt"
  jfr print --events jdk.GarbageCollection "$f" > "${f%.jfr}.gc.txt"
  python3 "$root/bench/scripts/jfr-top.py" "${f%.jfr}" "$TOP"
done
for f in "$out"/ctx-*.txt; do
  [ -s "$f" ] || continue
  echo "== $(basename "$f") (thread, voluntary, involuntary switches, cpu ticks)"
  sort -k4 -n -r "$f" | head -15
done
echo "load $(cat "$out/load.txt")"
