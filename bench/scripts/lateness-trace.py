#!/usr/bin/env python3
"""Splits the lateness of a traced `bench precision` or `bench ticks` run (see lateness-trace.sh)
job by job.

For every job of the spread part (2,000 over 10 s), or of the sustained part (5,000/s) when
PART is 'sustained', or every tick's job of `bench ticks`, it takes from the MONITOR:
  due      the score of enqueue.lua's (or tickSchedule.lua's) ZADD on the delayed set, and when
           that ZADD ran (how far ahead of its due time the job was created),
  forward  when moveDueToReady.lua's LPUSH put the id on ready (Redis clock),
  claim    when a claim script's LPUSH put the delivery "<token>|<id>" on an in-flight list,
and from the probe's own RPUSH ("<late ms>,<id>") the handler's start (due + late). Then
  scheduler part = forward - due, claim part = claim - forward, start part = start - claim,
and, for the late jobs, which safepoint pauses (GC or other) of the worker and scheduler JVMs
overlap the window from due to start. It ends with the CPU pressure of the machine meanwhile.
Usage: lateness-trace.py OUT_DIR [PART]
"""
import datetime
import glob
import json
import os
import re
import statistics
import sys

LINE = re.compile(r'^(\d+\.\d+) \[\d+ ([^\]]+)\] (.*)$')
ARG = re.compile(r'"((?:[^"\\]|\\.)*)"')
SAFEPOINT = re.compile(r'^\[([^\]]+)\]\[[^\]]+\] Safepoint "([^"]+)".*Reaching safepoint: (\d+) ns.*Total: (\d+) ns')


def parse_monitor(path, part):
    due, created, forward, claim, start, late = {}, {}, {}, {}, {}, {}
    calls = {}  # the part's top-level commands by name (EVALSHA by its first key's suffix)
    spread_log = None
    spread_done = False
    want_sustained = part == 'sustained'
    with open(path, errors='replace') as f:
        for raw in f:
            m = LINE.match(raw.rstrip('\n'))
            if not m:
                continue
            t_ms = float(m.group(1)) * 1000
            args = ARG.findall(m.group(3))
            if not args:
                continue
            cmd = args[0].upper()
            lua = m.group(2) == 'lua'
            if not lua and spread_log is not None and spread_done == want_sustained and cmd != 'MONITOR':
                name = cmd
                if cmd in ('EVALSHA', 'EVAL') and len(args) > 3 and args[2] != '0':
                    name = f"{cmd} {args[1][:7]} ({args[3].rsplit(':', 1)[-1]} ...)"
                elif cmd not in ('EVALSHA', 'EVAL') and len(args) > 1:
                    name = f"{cmd} {args[1].rsplit(':', 1)[-1]}"
                calls[name] = calls.get(name, 0) + 1
            if lua and cmd == 'ZADD' and (args[1].endswith(':delayed') or ':delayed:' in args[1]) \
                    and not args[1].endswith(':delayed:index'):
                # the old ZSET or a time-wheel bucket; a batch's adds to a bucket are one ZADD
                for score, job in zip(args[2::2], args[3::2]):
                    due.setdefault(job, float(score))
                    created.setdefault(job, t_ms)
            elif lua and cmd == 'LPUSH' and args[1].endswith(':ready'):
                for i in args[2:]:
                    forward.setdefault(i, t_ms)
            elif lua and cmd == 'LPUSH' and ':inflight:' in args[1]:
                for d in args[2:]:
                    claim.setdefault(d.split('|', 1)[-1], t_ms)
            elif not lua and cmd == 'RPUSH' and args[1].startswith(('bench:lateness:', 'bench:ticks:')):
                spread_log = spread_log or args[1]
                if spread_done != want_sustained:
                    continue
                for entry in args[2:]:
                    ms, _, job = entry.partition(',')
                    late.setdefault(job, int(ms))
                    start.setdefault(job, t_ms)
            elif not lua and cmd == 'DEL' and spread_log and spread_log in args[1:]:
                spread_done = True  # the sustained part follows on the same list name
    return due, created, forward, claim, late, calls


def parse_pauses(out):
    pauses = []
    for path in glob.glob(os.path.join(out, 'gc-*.log')):
        role = 'worker' if '-worker-' in path else 'scheduler'
        with open(path) as f:
            for line in f:
                m = SAFEPOINT.match(line)
                if m:
                    end = datetime.datetime.strptime(m.group(1), '%Y-%m-%dT%H:%M:%S.%f%z').timestamp() * 1000
                    total = int(m.group(4)) / 1e6
                    pauses.append((role, m.group(2), end - total, end, total, int(m.group(3)) / 1e6))
    return pauses


def pressure(path):
    with open(path) as f:
        text = f.read()
    m = re.search(r'some .* total=(\d+)', text)
    return (text.split('\n')[0], int(m.group(1)) if m else None)


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p / 100))] if values else None


def main(out):
    part = sys.argv[2] if len(sys.argv) > 2 else 'spread'
    due, created, forward, claim, late, calls = parse_monitor(os.path.join(out, 'monitor.txt'), part)
    pauses = parse_pauses(out)
    jobs = []
    for job, l in late.items():
        if job in due and job in forward and job in claim:
            d = due[job]
            jobs.append(dict(id=job, due=d, late=l, sched=forward[job] - d, claim=claim[job] - forward[job],
                             start=d + l - claim[job], ahead=d - created[job]))
    jobs.sort(key=lambda j: j['due'])
    for rank, j in enumerate(jobs):
        j['rank'] = rank
    print(f"jobs traced: {len(jobs)} of {len(late)} started ({part} part)")
    lates = [j['late'] for j in jobs]
    print(f"lateness p50/p90/p99/max: {pct(lates, 50)}/{pct(lates, 90)}/{pct(lates, 99)}/{max(lates)} ms")
    for part in ('sched', 'claim', 'start'):
        v = [j[part] for j in jobs]
        print(f"  {part:6} part p50/p99/max: {pct(v, 50):.1f}/{pct(v, 99):.1f}/{max(v):.1f} ms")
    ahead = [j['ahead'] for j in jobs]
    print(f"  created ahead of its due time min/p50: {min(ahead):.1f}/{pct(ahead, 50):.1f} ms")
    first = [j['late'] for j in jobs if j['rank'] < 100]
    rest = [j['late'] for j in jobs if j['rank'] >= 100]
    if rest:
        print(f"first 100 due (cold code): p99 {pct(first, 99)} max {max(first)} ms; the rest: p99 {pct(rest, 99)} max {max(rest)} ms")
    worst = sorted(jobs, key=lambda j: -j['late'])[:12]
    print(f"\n{'rank':>5} {'late':>5} {'sched':>7} {'claim':>7} {'start':>7}  overlapping safepoints (role name total/reach ms)")
    for j in worst:
        window = (j['due'], j['due'] + j['late'])
        hits = [p for p in pauses if p[3] >= window[0] and p[2] <= window[1]]
        desc = '; '.join(f"{p[0]} {p[1]} {p[4]:.1f}/{p[5]:.1f}" for p in hits) or '-'
        print(f"{j['rank']:>5} {j['late']:>5} {j['sched']:>7.1f} {j['claim']:>7.1f} {j['start']:>7.1f}  {desc}")
    late_jobs = [j for j in jobs if j['late'] >= 10]
    if late_jobs:
        with_pause = [j for j in late_jobs if any(p[3] >= j['due'] and p[2] <= j['due'] + j['late'] for p in pauses)]
        side = {}
        for j in late_jobs:
            biggest = max(('sched', 'claim', 'start'), key=lambda k: j[k])
            side[biggest] = side.get(biggest, 0) + 1
        print(f"\njobs >= 10 ms late: {len(late_jobs)}; overlapping a safepoint: {len(with_pause)}; "
              f"largest part: {json.dumps(side)}")
    for role in ('worker', 'scheduler'):
        mine = [p for p in pauses if p[0] == role]
        if mine:
            gcs = [p for p in mine if 'GC' in p[1] or 'Collect' in p[1]]
            print(f"{role} safepoints: {len(mine)}, longest {max(p[4] for p in mine):.1f} ms "
                  f"(longest reach {max(p[5] for p in mine):.1f} ms); GC ones: {len(gcs)}"
                  + (f", longest {max(p[4] for p in gcs):.1f} ms" if gcs else ''))
    if late:
        print(f"\nRedis calls per started job in this part (from its first start on; {len(late)} jobs):")
        for name, count in sorted(calls.items(), key=lambda kv: -kv[1])[:14]:
            print(f"  {count / len(late):7.3f}  {name}")
        print(f"  {sum(calls.values()) / len(late):7.3f}  in all")
    before, after = pressure(os.path.join(out, 'pressure-before.txt')), pressure(os.path.join(out, 'pressure-after.txt'))
    print(f"load average before: {before[0]}; after: {after[0]}")
    if before[1] is not None and jobs:
        span_ms = (os.path.getmtime(os.path.join(out, 'pressure-after.txt'))
                   - os.path.getmtime(os.path.join(out, 'pressure-before.txt'))) * 1000
        print(f"CPU pressure (some): a task was waiting for a CPU {100 * (after[1] - before[1]) / 1000 / span_ms:.0f} % of the run")


if __name__ == '__main__':
    main(sys.argv[1])
