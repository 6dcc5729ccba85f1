#!/usr/bin/env python3
"""What a pending job costs in Redis with the time wheel, by id length and density (issue 15).

Runs the queue's own enqueue.lua (its includes expanded as Script.java does) on a throw-away
redis-server (stock settings) on a free loopback port, 100-byte payloads, and prints used_memory's
growth per job and each structure's MEMORY USAGE per job. Id lengths: 20 (the generated ids before
issue 15), 12 (generated now), 64 (the longest an id of a listpack ZSET may be, zset-max-listpack-value)
and 72 (past it: that id's bucket is a skiplist, the one way a bucket leaves the listpack encoding).

Usage: bench/scripts/wheel-memory.py [N]   (default 100000)
"""
import base64, os, random, re, socket, subprocess, sys, tempfile, time

LUA = os.path.join(os.path.dirname(__file__), '..', '..', 'common', 'src', 'main', 'resources', 'dev', 'delayq', 'lua')


def expand(text, included):
    def one(m):
        name = m.group(1)
        if name in included:
            return ''
        included.add(name)
        return expand(open(os.path.join(LUA, 'include', name + '.lua')).read(), included)
    return re.sub(r'(?m)^--@include (\w+)$', one, text)


class Redis:
    def __init__(self, port):
        self.sock = socket.create_connection(('127.0.0.1', port))
        self.f = self.sock.makefile('rb')

    def call(self, *args):
        out = [b'*%d\r\n' % len(args)]
        for a in args:
            a = a if isinstance(a, bytes) else str(a).encode()
            out.append(b'$%d\r\n%s\r\n' % (len(a), a))
        self.sock.sendall(b''.join(out))
        return self.read()

    def read(self):
        line = self.f.readline()
        kind, rest = line[:1], line[1:-2]
        if kind == b'+':
            return rest.decode()
        if kind == b'-':
            raise RuntimeError(rest.decode())
        if kind == b':':
            return int(rest)
        if kind == b'$':
            n = int(rest)
            return None if n < 0 else self.f.read(n + 2)[:-2].decode()
        n = int(rest)
        return None if n < 0 else [self.read() for _ in range(n)]


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def used(r):
    info = r.call('INFO', 'memory')
    return int(next(l for l in info.split('\r\n') if l.startswith('used_memory:')).split(':')[1])


def usage(r, key):
    return r.call('MEMORY', 'USAGE', key, 'SAMPLES', 0) or 0


def measure(r, sha, n, id_length, density):
    r.call('FLUSHALL')
    q = 'delayq:{m}:'
    keys = [q + k for k in ['jobs', 'delayed', 'ready', 'wake', 'stats', 'ended', 'ended:expiry', 'dead']]
    payload = '{"order_id":1001,"note":"' + 'x' * 73 + '"}'  # 100 bytes
    head = '{"t":"noop","m":5'
    # a warm-up job: the keys' own headers are not a job's cost
    r.call('EVALSHA', sha, 8, *keys, 1048576, 'warm', head, '{}', 7200000, 'delay')
    before = used(r)
    t = r.call('TIME')
    at = int(t[0]) * 1000 + int(t[1]) // 1000 + 3600000
    rnd = random.Random(15)
    for i in range(0, n, 100):
        args = []
        for k in range(i, min(n, i + 100)):
            job_id = base64.urlsafe_b64encode(rnd.randbytes(id_length)).decode()[:id_length]
            mode = 'delay'
            if density == 'due 1 ms apart':
                when = 3600000 + k
            elif density == 'spread over 1 h, random order':
                when = 3600000 + rnd.randint(0, 3600000)
            elif density == 'all due within 1 s':
                when = 3600000 + k % 1000
            else:
                when, mode = at, 'at'  # one instant, an hour from now (so its record is as long)
            args += [job_id, head, payload, when, mode]
        r.call('EVALSHA', sha, 8, *keys, 1048576, *args)
    after = used(r)
    positions = r.call('ZRANGE', keys[1] + ':index', 0, -1)
    buckets = sum(usage(r, keys[1] + ':' + p) for p in positions)
    skiplists = sum(1 for p in positions if r.call('OBJECT', 'ENCODING', keys[1] + ':' + p) == 'skiplist')
    index = usage(r, keys[1] + ':index') + usage(r, keys[1] + ':count')
    jobs = usage(r, keys[0])
    print('%9d %-30s %10.0f %9.1f %9.1f %9.1f %8d %9d' % (id_length, density, (after - before) / n,
          buckets / n, index / n, jobs / n, len(positions), skiplists))


def measure_one_zset(r, n, id_length):
    """The layout before the wheel, for comparison: every id in one ZSET (a skiplist past 128)."""
    r.call('FLUSHALL')
    r.call('ZADD', 'one', 1, 'warm')
    before = used(r)
    rnd = random.Random(15)
    for i in range(0, n, 1000):
        args = []
        for k in range(i, min(n, i + 1000)):
            args += [1796143498801 + rnd.randint(0, 3600000), base64.urlsafe_b64encode(rnd.randbytes(id_length)).decode()[:id_length]]
        r.call('ZADD', 'one', *args)
    print('%9d %-30s %10s %9.1f   (the ids alone, in one ZSET as before the wheel)' % (id_length, 'spread over 1 h, one ZSET', '',
          (used(r) - before) / n))


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100000
    work = tempfile.mkdtemp()
    port = free_port()
    server = subprocess.Popen(['redis-server', '--port', str(port), '--bind', '127.0.0.1', '--save', '',
                               '--appendonly', 'no', '--dir', work], stdout=subprocess.DEVNULL)
    try:
        for _ in range(50):
            try:
                r = Redis(port)
                r.call('PING')
                break
            except OSError:
                time.sleep(0.1)
        sha = r.call('SCRIPT', 'LOAD', expand(open(os.path.join(LUA, 'enqueue.lua')).read(), set()))
        print('%9s %-30s %10s %9s %9s %9s %8s %9s' % ('id length', 'due times', 'B/job', 'buckets', 'index',
              'jobs hash', 'buckets', 'skiplists'))
        for id_length in (20, 12):
            for density in ('due 1 ms apart', 'spread over 1 h, random order', 'all due within 1 s', 'all at one ms'):
                measure(r, sha, n, id_length, density)
        for id_length in (64, 72):
            measure(r, sha, n, id_length, 'spread over 1 h, random order')
        for id_length in (20, 72):
            measure_one_zset(r, n, id_length)
    finally:
        server.terminate()
        server.wait()


if __name__ == '__main__':
    main()
