"""INFO commandstats as a table per job: calls, µs a call and µs a job of each command, the
costliest first (the scripts' inner commands counted again under their own names).
Imported by the profile scripts: commandstats.table(path, jobs)."""


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
