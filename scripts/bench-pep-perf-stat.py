#!/usr/bin/env python3
"""metron pep record against `perf stat -I` (interval mode, Debian's linux-perf) on the
bundled three-phase program, with the same software events.

For each tool: the event totals, the cost (wall and CPU time of tool + program, median of
REPS runs, against the plain program), and what the time series shows (rows, and the
compute phase found as the rows without page faults).

Usage: scripts/bench-pep-perf-stat.py [--reps 10] [--metron target/release/metron]
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EVENTS = "cpu-clock,page-faults,task-clock"


def timed(argv):
    """Wall and CPU time (self + all reaped descendants) of one run."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, p


def perf_intervals(stderr):
    """perf stat -I -x, rows: time,value,unit,event,... -> {time: {event: value}}."""
    rows = {}
    for line in stderr.splitlines():
        f = line.split(",")
        if len(f) < 4 or not f[0].strip().replace(".", "").isdigit():
            continue
        try:
            value = float(f[1])
        except ValueError:
            continue
        rows.setdefault(float(f[0]), {})[f[3].split(":")[0]] = value
    return rows


def compute_phase(flags):
    """The longest run of True: (first, last) row index."""
    best, start = None, None
    for i, z in enumerate(flags + [False]):
        if z and start is None:
            start = i
        elif not z and start is not None:
            if best is None or i - start > best[1] - best[0] + 1:
                best = (start, i - 1)
            start = None
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=10)
    ap.add_argument("--metron", default=os.path.join(ROOT, "target", "release", "metron"))
    args = ap.parse_args()
    d = tempfile.mkdtemp()
    exe = os.path.join(d, "three_phase")
    subprocess.check_call(["cc", "-O2", "-o", exe, os.path.join(ROOT, "examples", "pep", "three_phase.c")])
    trace = os.path.join(d, "t.trace")
    tools = {
        "plain": [exe],
        "perf stat -I 10": ["perf", "stat", "-I", "10", "-x,", "-e", EVENTS, "--", exe],
        "perf stat -I 1": ["perf", "stat", "-I", "1", "-x,", "-e", EVENTS, "--", exe],
        "metron pep 10ms": [args.metron, "--json", "pep", "record", "--no-observer-check", "--sample",
                            "cpu-clock:10000000", "-e", "page-faults,task-clock", "-o", trace, "--", exe],
        "metron pep 1ms": [args.metron, "--json", "pep", "record", "--no-observer-check", "--sample",
                           "cpu-clock:1000000", "-e", "page-faults,task-clock", "-o", trace, "--", exe],
    }
    print(f"three-phase program, {args.reps} runs per tool (alternating), medians")
    results = {k: [] for k in tools}
    for _ in range(args.reps):
        for name, argv in tools.items():
            results[name].append(timed(argv))
    base_wall = statistics.median(r[0] for r in results["plain"])
    base_cpu = statistics.median(r[1] for r in results["plain"])
    print(f"{'tool':18} {'wall s':>8} {'CPU s':>8} {'wall +%':>8} {'CPU +%':>8} {'rows':>6} "
          f"{'page-faults':>12} {'cpu-clock ms':>13} {'compute phase rows':>20}")
    for name, runs in results.items():
        wall = statistics.median(r[0] for r in runs)
        cpu = statistics.median(r[1] for r in runs)
        last = runs[-1][2]
        rows, faults, clock, phase = "-", "-", "-", "-"
        if name.startswith("perf"):
            iv = perf_intervals(last.stderr)
            times = sorted(iv)
            rows = len(times)
            faults = int(sum(iv[t].get("page-faults", 0) for t in times))
            clock = sum(iv[t].get("cpu-clock", 0) for t in times)
            p = compute_phase([iv[t].get("page-faults", 0) == 0 for t in times])
            phase = f"{p[0]}..{p[1]} ({p[1] - p[0] + 1})" if p else "none"
        elif name.startswith("metron"):
            rec = json.loads(last.stdout)
            t = rec["traces"][0]["rows"]
            rows = len(t)
            faults = rec["totals"][1]["sampled_run"]
            clock = rec["totals"][0]["sampled_run"] / 1e6
            prev = 0
            flags = []
            for r in t:
                flags.append(r[1] - prev == 0)
                prev = r[1]
            p = compute_phase(flags)
            phase = f"{p[0]}..{p[1]} ({p[1] - p[0] + 1})" if p else "none"
        clock_s = f"{clock:.1f}" if clock != "-" else "-"
        print(f"{name:18} {wall:8.3f} {cpu:8.3f} {100 * (wall / base_wall - 1):8.1f} {100 * (cpu / base_cpu - 1):8.1f} "
              f"{rows!s:>6} {faults!s:>12} {clock_s:>13} {phase:>20}")


if __name__ == "__main__":
    main()
