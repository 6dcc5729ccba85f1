#!/usr/bin/env bash
# Interleaved before/after of `bin/delayq bench drain` (bench/scripts/ab.sh): jobs/s, Redis CPU µs
# per job and the scripts' (evalsha) µs per job, medians over the turns.
# Usage: bench/scripts/drain-ab.sh BEFORE_TREE AFTER_TREE. Env: TURNS (3), N (100000), RUNS (3), OUT.
exec "$(dirname "$0")/ab.sh" "$1" "$2" drain:jobs_per_s,redis_cpu_us_per_job,redis_usec_per_job_by_command.evalsha
