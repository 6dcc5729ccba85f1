#!/usr/bin/env python3
"""What the `jobs` HASH costs per pending job as the record grows, on stock Redis settings.

A record longer than hash-max-listpack-value (64 bytes) makes `jobs` a hashtable, where each entry
costs a dict entry, the id's sds, the record's sds (rounded up to a jemalloc size class) and its share
of the bucket table. This fills a HASH with N 12-character ids (the generated length) and records of
each length given, on a throw-away redis-server, and prints used_memory's growth per entry: where the
size classes step, and so how much shorter a record must get before a pending job costs less.

Usage: bench/scripts/record-memory.py [N] [LENGTH ...]   (default 100000; 153 140 125 124 109 108)
"""
import importlib.util, os, random, string, subprocess, sys, tempfile, time

spec = importlib.util.spec_from_file_location('wheel_memory', os.path.join(os.path.dirname(__file__), 'wheel-memory.py'))
wm = importlib.util.module_from_spec(spec)
spec.loader.exec_module(wm)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    lengths = [int(a) for a in sys.argv[2:]] or [153, 140, 125, 124, 109, 108]
    work = tempfile.mkdtemp()
    port = wm.free_port()
    server = subprocess.Popen(['redis-server', '--port', str(port), '--bind', '127.0.0.1', '--save', '',
                               '--appendonly', 'no', '--dir', work], stdout=subprocess.DEVNULL)
    try:
        for _ in range(50):
            try:
                r = wm.Redis(port)
                r.call('PING')
                break
            except OSError:
                time.sleep(0.1)
        print('%14s %16s' % ('record length', 'B per entry'))
        for length in lengths:
            r.call('FLUSHALL')
            r.call('HSET', 'jobs', 'warm', 'x' * length)  # the key's own header is not an entry's cost
            before = wm.used(r)
            record = 'x' * length
            for start in range(0, n, 1000):
                args = []
                for _ in range(min(1000, n - start)):
                    args += [''.join(random.choices(string.ascii_letters + string.digits, k=12)), record]
                r.call('HSET', 'jobs', *args)
            print('%14d %16.1f' % (length, (wm.used(r) - before) / n))
    finally:
        server.terminate()
        server.wait()


if __name__ == '__main__':
    main()
