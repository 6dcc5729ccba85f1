#!/usr/bin/env bash
# Interleaved before/after of `bin/delayq bench enqueue` and `bench memory`: TURNS turns of
# (before, after), each `bench enqueue` and `bench memory` `--n N --runs RUNS` (its own private Redis), then
# the medians over the turns of batched and one-by-one jobs/s, the Redis CPU µs per batched
# enqueued job and the bytes per pending job, with the load average before each run. The machine
# is shared: CPU µs per job is the steadier figure.
# Usage: bench/scripts/enqueue-ab.sh BEFORE_TREE AFTER_TREE (trees with built jars and bin/delayq)
# Env: TURNS (3), N (100000), RUNS (3), OUT (a new temp dir): each run's JSON lands there.
set -euo pipefail
before="$(cd "$1" && pwd)"; after="$(cd "$2" && pwd)"
TURNS="${TURNS:-3}"; N="${N:-100000}"; RUNS="${RUNS:-3}"
OUT="${OUT:-$(mktemp -d)}"; mkdir -p "$OUT"
for turn in $(seq 1 "$TURNS"); do
  for side in before after; do
    tree="$before"; [ "$side" = after ] && tree="$after"
    cut -d' ' -f1-3 /proc/loadavg > "$OUT/$side-$turn.load"
    for measure in enqueue memory; do
      "$tree/bin/delayq" bench "$measure" --n "$N" --runs "$RUNS" --json "$OUT/$side-$turn-$measure.json" \
        > "$OUT/$side-$turn-$measure.log" 2>&1
    done
    echo "turn $turn $side done (load $(cat "$OUT/$side-$turn.load"))" >&2
  done
done
python3 - "$OUT" "$TURNS" <<'PY'
import json, sys, statistics
out, turns = sys.argv[1], int(sys.argv[2])
med = {}
cols = ("batched_jobs_per_s", "one_by_one_jobs_per_s", "batched_redis_cpu_us_per_job")
print(f"{'run':<12}{'load':>16}{'batched/s':>11}{'single/s':>10}{'cpu us/job':>12}{'B/job':>8}")
for side in ("before", "after"):
    rows = []
    for t in range(1, turns + 1):
        e = json.load(open(f"{out}/{side}-{t}-enqueue.json"))["enqueue"]
        m = json.load(open(f"{out}/{side}-{t}-memory.json"))["memory"]
        b = m.get("bytes_per_pending_job", m.get("bytes_per_job"))
        load = open(f"{out}/{side}-{t}.load").read().strip()
        rows.append([e[c] for c in cols] + [b])
        print(f"{side + ' ' + str(t):<12}{load:>16}{e[cols[0]]:>11}{e[cols[1]]:>10}{e[cols[2]]:>12}{b:>8}")
    med[side] = [statistics.median(c) for c in zip(*rows)]
for side in ("before", "after"):
    a, s, c, b = med[side]
    print(f"median {side:<7}{'':>14}{a:>11.0f}{s:>10.0f}{c:>12.2f}{b:>8.1f}")
b, a = med["before"], med["after"]
print(f"after/before: batched {a[0] / b[0]:.2f}x, one by one {a[1] / b[1]:.2f}x, cpu us/job {a[2] / b[2]:.2f}x, bytes/job {a[3] / b[3]:.2f}x")
print(f"figures in {out}")
PY
