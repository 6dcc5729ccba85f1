"""INFO commandstats as a table per job: calls, µs a call and µs a job of each command, the
costliest first (the scripts' inner commands counted again under their own names).
Imported by the profile scripts: commandstats.table(path, jobs), and slowlog(work, jobs, what)
for the slow log's calls by script (EVALSHA named from work/shas)."""
import collections
import json


def table(path, jobs, top=20):
    print(f"{'command':<24}{'calls/job':>11}{'us/call':>10}{'us/job':>9}")
    rows = []
    for line in open(path):
        if line.startswith("cmdstat_"):
            key, value = line.strip().split(":", 1)
            f = dict(p.split("=") for p in value.split(","))
            rows.append((key[8:], int(f["calls"]), int(f["usec"])))
    for name, calls, us in sorted(rows, key=lambda r: -r[2])[:top]:
        print(f"{name:<24}{calls / jobs:>11.3f}{us / calls:>10.2f}{us / jobs:>9.3f}")


def slowlog(work, jobs, what):
    """The slow log (work/slowlog.json, SLOWLOG GET -1 as JSON) per call, each EVALSHA named by
    its script (work/shas: "sha name" lines): calls, calls per job, µs a call and µs a job."""
    names = dict(line.split() for line in open(work + "/shas"))
    entries = json.load(open(work + "/slowlog.json"))
    per = collections.defaultdict(lambda: [0, 0])
    for e in entries:
        args = e[3]
        cmd = args[0].lower()
        name = names.get(args[1], args[1][:12]) if cmd == "evalsha" and len(args) > 1 else cmd
        per[name][0] += 1
        per[name][1] += e[2]
    print(f"slow log, {what}: {len(entries)} calls of at least the threshold, {jobs} jobs")
    print(f"{'call':<24}{'calls':>9}{'calls/job':>11}{'us/call':>10}{'us/job':>9}")
    for name, (calls, us) in sorted(per.items(), key=lambda kv: -kv[1][1])[:15]:
        print(f"{name:<24}{calls:>9}{calls / jobs:>11.3f}{us / calls:>10.2f}{us / jobs:>9.3f}")
