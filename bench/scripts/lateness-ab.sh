#!/usr/bin/env bash
# Before/after figures for a change of the child JVMs' options on a shared, noisy machine:
# RUNS pairs of `bench precision` (2,000 jobs over 10 s, then 5,000/s for 3 s), A and B
# interleaved so both see the same load, without MONITOR; prints each run and the medians,
# with the load average at each run's end. A_HOME and B_HOME (default: this checkout) compare two
# builds instead, each an install with its own bench/scripts (e.g. a `git archive` of the commit
# before, built with mvn -o -DskipTests package). MONITOR=1 traces each run (lateness-trace.sh)
# and prints its split into scheduler, claim and start parts too (MONITOR slows Redis: compare
# traced runs with traced runs only).
# Usage: bench/scripts/lateness-ab.sh RUNS "A worker options" "B worker options" [A scheduler] [B scheduler]
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
runs="$1"; a="$2"; b="$3"
source "$root/bench/scripts/jvm-defaults.sh"
a_s="${4:-$(jvm_default scheduler)}"; b_s="${5:-$a_s}"
out="$root/target/lateness-ab"; rm -rf "$out"; mkdir -p "$out"
for i in $(seq 1 "$runs"); do
  JVM_WORKER="$a" JVM_SCHEDULER="$a_s" MONITOR="${MONITOR:-0}" "${A_HOME:-$root}/bench/scripts/lateness-trace.sh" "$out/A-$i" >/dev/null
  JVM_WORKER="$b" JVM_SCHEDULER="$b_s" MONITOR="${MONITOR:-0}" "${B_HOME:-$root}/bench/scripts/lateness-trace.sh" "$out/B-$i" >/dev/null
done
python3 - "$out" "$a | $a_s" "$b | $b_s" <<'PY'
import glob, json, os, statistics, sys
out = sys.argv[1]
for v, opts in (('A', sys.argv[2]), ('B', sys.argv[3])):
    rows = []
    for d in sorted(glob.glob(os.path.join(out, v + '-*'))):
        p = json.load(open(os.path.join(d, 'precision.json')))['precision']
        s, t = p['spread']['lateness_ms'], p['sustained']['lateness_ms']
        load = open(os.path.join(d, 'pressure-after.txt')).readline().split()[0]
        rows.append((s['p50'], s['p90'], s['p99'], s['max'], t['p99'], t['max'], float(load)))
        print(f"{v} {os.path.basename(d)}: spread p50/p90/p99/max {s['p50']}/{s['p90']}/{s['p99']}/{s['max']} ms, "
              f"sustained p99/max {t['p99']}/{t['max']} ms, load {load}")
        trace = os.path.join(d, 'trace.txt')
        if os.path.exists(trace):
            for line in open(trace):
                if ' part p50/p99/max' in line or line.startswith(('first 100 due', 'jobs >= 10 ms late')):
                    print('    ' + line.strip())
    med = [statistics.median(c) for c in zip(*rows)]
    print(f"{v} median of {len(rows)} ({opts}): spread p50/p90/p99/max {med[0]:g}/{med[1]:g}/{med[2]:g}/{med[3]:g} ms, "
          f"sustained p99/max {med[4]:g}/{med[5]:g} ms, load {med[6]:.1f}")
PY
