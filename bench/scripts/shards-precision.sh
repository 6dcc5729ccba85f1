#!/usr/bin/env bash
# Is a queue of three shards as precise as one of one shard? `bench precision` (2,000 jobs over
# 10 s, then RATE jobs/s for SUSTAIN s) on shards 1 and shards 3, interleaved round by round so that
# each pair sees the same load, on each LAYOUT: 'cluster' (a private 3-master Redis Cluster, the
# shards on separate masters) and 'plain' (the same shards on one Redis: the layout's own cost,
# without the cluster's three servers sharing the cores). Prints every run with the load average
# at its start, the medians per layout and shard count (with the CPU a sustained job cost Redis and
# delayq's JVMs), and the ratio of shards 3 to shards 1.
# With BASE (the root of another built checkout) every run is made with that build too, right
# after this one's: before/after figures for a change.
# Usage: bench/scripts/shards-precision.sh
# Env: ROUNDS (3), SUSTAIN (10), RATE (5000: jobs/s of the sustained part), LAYOUTS ("cluster plain"),
# SHARDS ("1 3"), BASE (unset).
# Writes target/shards-precision/<build>-<layout>-shards<K>-<round>.json.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
ROUNDS="${ROUNDS:-3}"; SUSTAIN="${SUSTAIN:-10}"; RATE="${RATE:-5000}"; LAYOUTS="${LAYOUTS:-cluster plain}"; SHARDS="${SHARDS:-1 3}"
out="$root/target/shards-precision"; rm -rf "$out"; mkdir -p "$out"
builds="this"; [ -n "${BASE:-}" ] && builds="this base"

for round in $(seq 1 "$ROUNDS"); do
  for layout in $LAYOUTS; do
    for shards in $SHARDS; do
      for build in $builds; do
        home="$root"; [ "$build" = base ] && home="$BASE"
        where=(); [ "$layout" = cluster ] && where=(--cluster local)
        name="$build-$layout-shards$shards-$round"
        cut -d' ' -f1 /proc/loadavg > "$out/$name.load"
        "$home/bin/delayq" bench precision --n 2000 --sustain-seconds "$SUSTAIN" --rate "$RATE" "${where[@]}" \
          --shards "$shards" --json "$out/$name.json" > "$out/$name.txt" 2>&1 \
          || { echo "run $name failed: see $out/$name.txt" >&2; continue; }
        grep -i "lateness" "$out/$name.txt" | sed "s/^/$name (load $(cat "$out/$name.load")): /"
      done
    done
  done
done

python3 - "$out" "$RATE" <<'PY'
import glob, json, os, re, statistics, sys
out, rate = sys.argv[1], int(sys.argv[2])
runs = {}
for path in glob.glob(os.path.join(out, '*.json')):
    m = re.match(r'(\w+)-(\w+)-shards(\d+)-(\d+)\.json$', os.path.basename(path))
    p = json.load(open(path))['precision']
    load = float(open(path[:-5] + '.load').read())
    s, t = p['spread']['lateness_ms'], p['sustained']['lateness_ms']
    if p.get('sustained_rate', 5000) != rate: # a BASE built before precision took --rate runs 5,000/s
        print(f"warning: {os.path.basename(path)} ran its sustained part at {p.get('sustained_rate', 5000)}/s, not {rate}/s")
    runs.setdefault((m.group(1), m.group(2), int(m.group(3))), []).append(
        [s['p50'], s['p90'], s['p99'], s['max'], t['p50'], t['p90'], t['p99'], t['max'], load,
         p.get('sustained_redis_cpu_us_per_job', 0), p.get('sustained_delayq_cpu_us_per_job', 0)])
med = {k: [statistics.median(c) for c in zip(*v)] for k, v in runs.items()}
fmt = lambda v: '/'.join(f'{x:g}' for x in v)
print('\nmedians, p50/p90/p99/max ms: spread (2,000 over 10 s) | sustained (RATE/s) | load at start'
      ' | sustained CPU us per job, Redis + delayq JVMs')
for k in sorted(med):
    v = med[k]
    print(f'  {k[0]:5} {k[1]:8} shards {k[2]}: {fmt(v[0:4]):>16} | {fmt(v[4:8]):>18} | {v[8]:.1f} | {v[9]:g} + {v[10]:g}  ({len(runs[k])} runs)')
print('shards 3 over shards 1 (medians): spread p99, sustained p50, p99, CPU per job')
for (build, layout, shards), v in sorted(med.items()):
    one = med.get((build, layout, 1))
    if shards != 1 and one:
        r = lambda a, b: f'{a / b:.2f}' if b else f'{a:g}/0'
        print(f'  {build:5} {layout:8}: {r(v[2], one[2])}, {r(v[4], one[4])}, {r(v[6], one[6])}, '
              f'{r(v[9] + v[10], one[9] + one[10])}')
PY
