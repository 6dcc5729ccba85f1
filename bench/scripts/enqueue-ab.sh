#!/usr/bin/env bash
# Interleaved before/after of `bin/delayq bench enqueue` and `bench memory` (bench/scripts/ab.sh):
# batched and one-by-one jobs/s, the Redis CPU µs per batched enqueued job and the bytes per
# pending job, medians over the turns.
# Usage: bench/scripts/enqueue-ab.sh BEFORE_TREE AFTER_TREE. Env: TURNS (3), N (100000), RUNS (3), OUT.
exec "$(dirname "$0")/ab.sh" "$1" "$2" \
  enqueue:batched_jobs_per_s,one_by_one_jobs_per_s,batched_redis_cpu_us_per_job \
  'memory:bytes_per_pending_job|bytes_per_job'
