#!/usr/bin/env python3
"""The README's Performance table from one `bench/scripts/beside-anchors.sh` run.

Reads its figures (delayq.json, delayq-drain-2x8.json: medians of the runs, as `bench` reports
them; bullmq.jsonl: one line per BullMQ run, whose medians are taken here) and prints the table
in Markdown, delayq beside BullMQ with the ratio.

Usage: bench/scripts/beside-table.py [DIR] [--all]   (default target/bench-beside-anchors; --all adds
the rows only delayq has, as docs/performance.md shows them)
"""
import json, os, statistics, sys

args = [a for a in sys.argv[1:] if a != '--all']
out = args[0] if args else os.path.join(os.path.dirname(__file__), '..', '..', 'target', 'bench-beside-anchors')
d = json.load(open(os.path.join(out, 'delayq.json')))
d2 = json.load(open(os.path.join(out, 'delayq-drain-2x8.json')))['drain']
runs = [json.loads(l) for l in open(os.path.join(out, 'bullmq.jsonl')) if l.strip()]


def bull(test, key, **match):
    values = []
    for r in runs:
        if r.get('test') == test and all(r.get(k) == v for k, v in match.items()):
            v = r
            for part in key.split('.'):
                v = v[part]
            values.append(v)
    return statistics.median(values) if values else None


def n(v):
    return f'{v:,.0f}'


def ratio(a, b):
    return f'{a / b:.1f}×' if a and b else ''


e, dr, p, m = d['enqueue'], d['drain'], d['precision'], d['memory']
b_bulk, b_add = bull('enqueue', 'jobs_per_s', mode='addBulk'), bull('enqueue', 'jobs_per_s', mode='add')
b_d1, b_d2 = bull('drain', 'jobs_per_s', procs=1), bull('drain', 'jobs_per_s', procs=2)
b_cpu = bull('drain', 'redis_cpu_us_per_job', procs=1)
b_lat = {k: bull('precision', 'lateness_ms.' + k) for k in ('p50', 'p90', 'p99', 'max')}
b_mem = bull('memory', 'bytes_per_job')
s, t = p['spread']['lateness_ms'], p['sustained']['lateness_ms']
rows = [
    ('enqueue 100,000 delayed jobs, batched (`enqueueAll`; BullMQ `addBulk` of 1,000)',
     f"{n(e['batched_jobs_per_s'])} jobs/s", f'{n(b_bulk)} jobs/s', ratio(e['batched_jobs_per_s'], b_bulk)),
    ('enqueue one by one, 50 in flight',
     f"{n(e['one_by_one_jobs_per_s'])} jobs/s", f'{n(b_add)} jobs/s', ratio(e['one_by_one_jobs_per_s'], b_add)),
    ('one `delay()` call alone, 1,000 calls/s: p50 / p99',
     f"{e['single_call_p50_ms']} / {e['single_call_p99_ms']} ms", '–', ''),
    ('drain 100,000 due jobs, 1 worker × 8 threads (BullMQ 1 × 50)',
     f"{n(dr['jobs_per_s'])} jobs/s", f'{n(b_d1)} jobs/s', ratio(dr['jobs_per_s'], b_d1)),
    ('drain, 2 workers × 8 threads (BullMQ 2 × 50)',
     f"{n(d2['jobs_per_s'])} jobs/s", f'{n(b_d2)} jobs/s', ratio(d2['jobs_per_s'], b_d2)),
    ('Redis CPU per drained job', f"{dr['redis_cpu_us_per_job']} µs", f'{b_cpu} µs',
     f"{dr['redis_cpu_us_per_job'] / b_cpu:.2f}×" if b_cpu else ''),
    ('lateness, 2,000 jobs due over 10 s: p50 / p90 / p99 / max',
     f"{s['p50']} / {s['p90']} / {s['p99']} / {s['max']} ms, {p['spread']['early']} early",
     ' / '.join(f'{b_lat[k]:g}' for k in ('p50', 'p90', 'p99', 'max')) + ' ms', ''),
    ('lateness, sustained 5,000 jobs/s for 30 s: p50 / p90 / p99 / max',
     f"{t['p50']} / {t['p90']} / {t['p99']} / {t['max']} ms, {p['sustained']['early']} early", '–', ''),
    ('Redis memory per pending job', f"{m['bytes_per_job']} B", f'{b_mem:g} B', f"{m['bytes_per_job'] / b_mem:.2f}×" if b_mem else ''),
]
if '--all' in sys.argv:
    f, sv, q, rl, br = d['forward'], d['supervisor'], d['queues'], d['ratelimit'], d['browse']
    rows += [
        ('the same, all due within one second / all at one ms', f"{m['dense_bytes_per_job']} / {m['one_ms_bytes_per_job']} B", '–', ''),
        ('forward due jobs `delayed` → `ready` (100,000 due, batches of 1,000)',
         f"{n(f['jobs_per_s'])} jobs/s, longest call {f['longest_call_ms']:g} ms, Redis {f['redis_us_per_job']} µs a job", '–', ''),
        ('`kill -9` of a worker → its job running again', f"{sv['rerun_ms']} ms", '–', ''),
        ('`kill -9` of a worker → its replacement RUNNING', f"{sv['restart_ms'] / 1000:.1f} s (1 s backoff, JVM start, 1 s start grace)", '–', ''),
        (f"`reload --workers 8` from {sv['reload_workers'].split('->')[0]} → all RUNNING", f"{sv['reload_ms'] / 1000:.1f} s", '–', ''),
        ('`stop` with 8 workers × 8 threads busy on 3 s jobs',
         f"{sv['stop_ms'] / 1000:.1f} s, {sv['stop_busy_jobs'] - sv['stop_jobs_left']} of {sv['stop_busy_jobs']} acknowledged", '–', ''),
        ('worker JVM resident memory', f"{sv['rss_mb']:.0f} MB (median)", '–', ''),
        ('3 queues weighted 6/3/1: share of the starts',
         f"{q['share_pct_critical']} / {q['share_pct_default']} / {q['share_pct_low']} %", '–', ''),
        ('a rate limit of 500/s: starts achieved, busiest sliding second', f"{rl['achieved_per_s']}/s, {rl['busiest_1s_window']}", '–', ''),
        ('Redis memory per remembered id (`queue.idRetention`)', f"{m['bytes_per_remembered_id']} B", '–', ''),
        ('job browser over 100,000 pending jobs, one page: next hour / a rare type / half-way down',
         f"{br['next_hour_page_ms']['median']} / {br['next_hour_rare_type_page_ms']['median']} / {br['half_way_page_ms']['median']} ms (median)", '–', ''),
    ]
print('| measure | delayq | BullMQ 6.7 | ratio |')
print('|---|---|---|---|')
for r in rows:
    print('| ' + ' | '.join(r) + ' |')
