#!/usr/bin/env bash
# What a script call costs Redis before the script does anything: every EVALSHA runs the whole
# script text again, so each call defines all the local functions and tables of the includes it
# names (include/*.lua) before its own code runs. For each script named (default: the ones a job
# passes through at a steady rate), this loads two variants into a throw-away redis-server:
# "preamble", its text as the built client sends it cut where the script's own code starts, plus
# `return 0` (ScriptSource.java --preamble); and "empty", `return 0` alone. Both run with the same
# 12 keys and 12 arguments (redis-benchmark, 1 client, CALLS calls); the lines give Redis's
# execution time per call from INFO commandstats (no I/O), and the preamble's local functions.
# The difference of the two is what the includes cost each call; multiply by the script's calls
# per job (precision-profile.sh, drain-profile.sh) for its share of a job.
# Usage: bench/scripts/script-preamble.sh [SCRIPT...] (Script enum names). Env: CALLS (200000).
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
CALLS="${CALLS:-200000}"
scripts=("$@"); [ ${#scripts[@]} -gt 0 ] || scripts=(CLAIM_READY CLAIM ACK ENQUEUE MOVE_DUE_TO_READY)
[ -d "$root/bench/target/lib" ] || (cd "$root" && mvn -q -B -DskipTests package >&2) # as bin/delayq builds
source "$root/bench/scripts/private-redis.sh"
private_redis
args=(12 k1 k2 k3 k4 k5 k6 k7 k8 k9 k10 k11 k12 1 2 3 4 5 6 7 8 9 10 11 12)
per_call() { # SHA -> µs a call of that script, from commandstats over CALLS calls
  cli config resetstat >/dev/null
  redis-benchmark -p "$port" -c 1 -n "$CALLS" -q evalsha "$1" "${args[@]}" >/dev/null
  cli info commandstats | sed -n 's/^cmdstat_evalsha:.*usec_per_call=\([0-9.]*\).*/\1/p'
}
empty=$(per_call "$(cli script load 'return 0')")
printf '%-20s %10s %16s %14s %14s\n' script functions 'preamble us' 'empty us' 'includes us'
for s in "${scripts[@]}"; do
  preamble="$(java -cp "$root/bench/target/lib/*" "$root/bench/scripts/ScriptSource.java" --preamble "$s")"
  functions=$(grep -c '^local function' <<<"$preamble" || true)
  took=$(per_call "$(cli script load "$preamble")")
  printf '%-20s %10s %16s %14s %14s\n' "$s" "$functions" "$took" "$empty" \
    "$(python3 -c "print(round($took - $empty, 2))")"
done
