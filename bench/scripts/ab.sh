#!/usr/bin/env bash
# Interleaved before/after of `bin/delayq bench` measures: TURNS turns of (before, after), each
# running every MEASURE with `--n N --runs RUNS` (its own private Redis), then each FIELD per run
# with the load average before it, the medians over the turns and the after/before ratios. The
# machine is shared: CPU µs per job is the steadier figure.
# Usage: bench/scripts/ab.sh BEFORE_TREE AFTER_TREE MEASURE:FIELD[,FIELD...] [MEASURE:FIELD...]
#   (trees with built jars and bin/delayq; a FIELD is a key of the measure's JSON, a.b for a
#   nested one, a|b for the first of them that is there)
# Env: TURNS (3), N (100000), RUNS (3), OUT (a new temp dir): each run's JSON lands there.
set -euo pipefail
before="$(cd "$1" && pwd)"; after="$(cd "$2" && pwd)"; shift 2
TURNS="${TURNS:-3}"; N="${N:-100000}"; RUNS="${RUNS:-3}"
OUT="${OUT:-$(mktemp -d)}"; mkdir -p "$OUT"
for turn in $(seq 1 "$TURNS"); do
  for side in before after; do
    tree="$before"; [ "$side" = after ] && tree="$after"
    cut -d' ' -f1-3 /proc/loadavg > "$OUT/$side-$turn.load"
    for spec in "$@"; do
      measure="${spec%%:*}"
      # a run that fails (on a loaded machine the seeding can outlast the jobs' delay) is tried again
      for try in 1 2 3; do
        if "$tree/bin/delayq" bench "$measure" --n "$N" --runs "$RUNS" --json "$OUT/$side-$turn-$measure.json" \
            > "$OUT/$side-$turn-$measure.log" 2>&1; then break; fi
        echo "turn $turn $side $measure failed (try $try): $(grep -m1 -i 'exception\|error' "$OUT/$side-$turn-$measure.log")" >&2
        [ "$try" = 3 ] && exit 1
      done
    done
    echo "turn $turn $side done (load $(cat "$OUT/$side-$turn.load"))" >&2
  done
done
python3 - "$OUT" "$TURNS" "$@" <<'EOF'
import json, sys, statistics
out, turns, specs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
columns = [(s.split(":", 1)[0], f) for s in specs for f in s.split(":", 1)[1].split(",")]

def value(d, field):
    for alternative in field.split("|"):
        v = d
        for part in alternative.split("."):
            v = v.get(part) if isinstance(v, dict) else None
        if v is not None:
            return v
    return 0

names = [f.split("|")[0].rsplit(".", 1)[-1] for _, f in columns]
widths = [max(10, len(n) + 2) for n in names]
print(f"{'run':<12}{'load':>16}" + "".join(f"{n:>{w}}" for n, w in zip(names, widths)))
med = {}
for side in ("before", "after"):
    rows = []
    for t in range(1, turns + 1):
        load = open(f"{out}/{side}-{t}.load").read().strip()
        row = [value(json.load(open(f"{out}/{side}-{t}-{m}.json"))[m], f) for m, f in columns]
        rows.append(row)
        print(f"{side + ' ' + str(t):<12}{load:>16}" + "".join(f"{v:>{w}}" for v, w in zip(row, widths)))
    med[side] = [statistics.median(c) for c in zip(*rows)]
for side in ("before", "after"):
    print(f"median {side:<7}{'':>14}" + "".join(f"{v:>{w}.2f}" for v, w in zip(med[side], widths)))
print("after/before: " + ", ".join(f"{n} {a / b:.2f}x" for n, b, a in zip(names, med["before"], med["after"]) if b))
print(f"figures in {out}")
EOF
