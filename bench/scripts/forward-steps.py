#!/usr/bin/env python3
"""The scheduler's forward step (moveDueToReady.lua) in a MONITOR of a traced run (lateness-trace.sh
writes OUT_DIR/monitor.txt): per call, the Redis commands the script ran and the time from the
call to its last command (Redis clock, so the script's own cost plus any stall of Redis meanwhile),
medians apart for calls that moved ids and calls that moved none. A script runs atomically, so
the [lua] lines after its EVALSHA up to the next client command are its own.
Usage: forward-steps.py OUT_DIR
"""
import os
import re
import statistics
import sys

LINE = re.compile(r'^(\d+\.\d+) \[\d+ ([^\]]+)\] (.*)$')
ARG = re.compile(r'"((?:[^"\\]|\\.)*)"')


def steps(path):
    out, current = [], None
    with open(path, errors='replace') as f:
        for raw in f:
            m = LINE.match(raw)
            if not m:
                continue
            args = ARG.findall(m.group(3)) + [''] * 5
            t, source, cmd = float(m.group(1)) * 1e6, m.group(2), args[0].upper()
            if source == 'lua':
                if current is not None:
                    current['calls'] += 1
                    current['last'] = t
                    current['moved'] |= cmd == 'LPUSH' and args[1].endswith(':ready')
                continue
            if current is not None:
                out.append(current)
                current = None
            # EVALSHA sha 2 <delayed> <ready> ...: the forward step (no other script has those two keys)
            if cmd == 'EVALSHA' and args[2] == '2' and args[3].endswith(':delayed') and args[4].endswith(':ready'):
                current = {'start': t, 'last': t, 'calls': 0, 'moved': False}
    if current is not None:
        out.append(current)
    return out


def main():
    all_steps = steps(os.path.join(sys.argv[1], 'monitor.txt'))
    for label, moved in (('moving ids', True), ('moving none', False)):
        chosen = [s for s in all_steps if s['moved'] == moved]
        if not chosen:
            continue
        calls = statistics.median(s['calls'] for s in chosen)
        us = sorted(s['last'] - s['start'] for s in chosen)
        print(f"forward steps {label}: {len(chosen)}, Redis commands per step median {calls:g}, "
              f"call to last command p50/p99 {us[len(us) // 2]:.0f}/{us[int(len(us) * 0.99)]:.0f} us")


if __name__ == '__main__':
    main()
