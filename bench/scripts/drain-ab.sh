#!/usr/bin/env bash
# Interleaved before/after of `bin/delayq bench drain`: TURNS turns of (before, after), each
# `bench drain --n N --runs RUNS` (its own private Redis), then the medians over the turns of
# jobs/s, Redis CPU µs per job and the scripts' (evalsha) µs per job, with the load average
# before each run. The machine is shared: CPU µs per job is the steadier figure.
# Usage: bench/scripts/drain-ab.sh BEFORE_TREE AFTER_TREE (trees with built jars and bin/delayq)
# Env: TURNS (3), N (100000), RUNS (3), OUT (a new temp dir): each run's JSON lands there.
set -euo pipefail
before="$(cd "$1" && pwd)"; after="$(cd "$2" && pwd)"
TURNS="${TURNS:-3}"; N="${N:-100000}"; RUNS="${RUNS:-3}"
OUT="${OUT:-$(mktemp -d)}"; mkdir -p "$OUT"
for turn in $(seq 1 "$TURNS"); do
  for side in before after; do
    tree="$before"; [ "$side" = after ] && tree="$after"
    cut -d' ' -f1-3 /proc/loadavg > "$OUT/$side-$turn.load"
    # a run that fails (on a loaded machine the seeding can outlast the jobs' delay) is tried again
    for try in 1 2 3; do
      if "$tree/bin/delayq" bench drain --n "$N" --runs "$RUNS" --json "$OUT/$side-$turn.json" \
          > "$OUT/$side-$turn.log" 2>&1; then break; fi
      echo "turn $turn $side failed (try $try): $(grep -m1 -i 'exception\|error' "$OUT/$side-$turn.log")" >&2
      [ "$try" = 3 ] && exit 1
    done
    echo "turn $turn $side done (load $(cat "$OUT/$side-$turn.load"))" >&2
  done
done
python3 - "$OUT" "$TURNS" <<'EOF'
import json, sys, statistics
out, turns = sys.argv[1], int(sys.argv[2])
med = {}
print(f"{'run':<12}{'load':>16}{'jobs/s':>10}{'cpu us/job':>12}{'evalsha us/job':>16}")
for side in ("before", "after"):
    rows = []
    for t in range(1, turns + 1):
        d = json.load(open(f"{out}/{side}-{t}.json"))["drain"]
        load = open(f"{out}/{side}-{t}.load").read().strip()
        ev = d["redis_usec_per_job_by_command"].get("evalsha", 0)
        rows.append((d["jobs_per_s"], d["redis_cpu_us_per_job"], ev))
        print(f"{side + ' ' + str(t):<12}{load:>16}{d['jobs_per_s']:>10}{d['redis_cpu_us_per_job']:>12}{ev:>16}")
    med[side] = [statistics.median(c) for c in zip(*rows)]
for side in ("before", "after"):
    j, c, e = med[side]
    print(f"median {side:<7}{'':>14}{j:>10.0f}{c:>12.2f}{e:>16.2f}")
b, a = med["before"], med["after"]
print(f"after/before: jobs/s {a[0] / b[0]:.2f}x, cpu us/job {a[1] / b[1]:.2f}x, evalsha us/job {a[2] / b[2]:.2f}x")
print(f"figures in {out}")
EOF
