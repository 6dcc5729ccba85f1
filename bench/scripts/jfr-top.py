"""Summarises `jfr print` text of one JVM (jvm-profile.sh): the hottest top frames, the hottest
frames of dev.delayq code (anywhere in the stack: inclusive), allocation by class (weighted) and
GC pauses. Usage: jfr-top.py PREFIX TOP (reads PREFIX.samples.txt, .alloc.txt, .gc.txt)."""
import collections, re, sys

prefix, top = sys.argv[1], int(sys.argv[2])

def events(path):
    cur = []
    for line in open(path):
        if line.startswith('jdk.'):
            if cur:
                yield cur
            cur = []
        cur.append(line.rstrip('\n'))
    if cur:
        yield cur

frame = re.compile(r'^\s+([\w$.<>/]+)\(.*line:')
self_c, incl, threads = collections.Counter(), collections.Counter(), collections.Counter()
n = 0
for ev in events(prefix + '.samples.txt'):
    frames = [m.group(1) for l in ev if (m := frame.match(l))]
    th = next((l.split('=', 1)[1].strip() for l in ev if l.strip().startswith('sampledThread')), '?')
    if not frames:
        continue
    n += 1
    threads[re.sub(r'\(javaThreadId.*', '', th).strip().strip('"')] += 1
    self_c[frames[0]] += 1
    seen = set()
    for f in frames:
        if f not in seen:
            seen.add(f)
            incl[f] += 1
print(f'  {n} execution samples; by thread:', ', '.join(f'{t} {c}' for t, c in threads.most_common(10)))
print('  top frames (self):')
for f, c in self_c.most_common(top):
    print(f'    {100 * c / max(n, 1):5.1f}%  {f}')
print('  inclusive (delayq, jedis, logging, jdk.internal.misc.Unsafe.park):')
for f, c in incl.most_common():
    if any(k in f for k in ('dev.delayq', 'redis.clients', 'slf4j', 'logback', 'Unsafe.park')):
        print(f'    {100 * c / max(n, 1):5.1f}%  {f}')
        top -= 1
        if top <= 0:
            break

alloc = collections.Counter()
size = re.compile(r'weight = ([\d.]+) (bytes|kB|MB|GB)')
mult = {'bytes': 1, 'kB': 1024, 'MB': 1 << 20, 'GB': 1 << 30}
stack_top = collections.Counter()
for ev in events(prefix + '.alloc.txt'):
    cls = next((l.split('=', 1)[1].strip() for l in ev if l.strip().startswith('objectClass')), '?')
    w = next((float(m.group(1)) * mult[m.group(2)] for l in ev if (m := size.search(l))), 0)
    alloc[re.sub(r' \(classLoader.*', '', cls)] += w
    frames = [m.group(1) for l in ev if (m := frame.match(l))]
    site = next((f for f in frames if f.startswith('dev.delayq')), frames[0] if frames else '?')
    stack_top[site] += w
tot = sum(alloc.values())
print(f'  allocation (sampled weight) {tot / (1 << 20):.1f} MB; by class:')
for c, w in alloc.most_common(12):
    print(f'    {100 * w / max(tot, 1):5.1f}%  {c}')
print('  by first delayq frame:')
for c, w in stack_top.most_common(15):
    print(f'    {100 * w / max(tot, 1):5.1f}%  {c}')
pauses = [float(m.group(1)) for l in open(prefix + '.gc.txt') if (m := re.search(r'longestPause = ([\d.]+) ms', l))]
print(f'  GCs {len(pauses)}, longest pauses ms: {sorted(pauses)[-5:]}')
