#!/usr/bin/env python3
"""metron pep record against `perf stat -I` (interval mode, Debian's linux-perf) on the
bundled three-phase program, with the same software events.

Every tool runs `sh -c 'three_phase; times >FILE'`, so the program's own CPU time (rusage, as
the shell's `times` reports it) is measured the same way under each tool. For each tool: the
program's CPU time against the plain run (the observer effect), the tool's own CPU time
(perf does not fold its workload into its rusage, so its own is all it reports; metron's
includes the program, which is subtracted), the event totals, and what the time series shows
(rows, and the compute phase found as the longest run of rows without page faults).

Usage: scripts/bench-pep-perf-stat.py [--reps 10] [--metron target/release/metron]
"""
import argparse
import json
import os
import re
import resource
import shutil
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


def program_cpu(stderr):
    """The children line of the shell's `times`: user and system time of the program."""
    lines = [l for l in stderr.splitlines() if re.fullmatch(r"\d+m[\d.]+s \d+m[\d.]+s", l.strip())]
    if len(lines) < 2:
        raise SystemExit("no `times` output in:\n" + stderr)
    total = 0.0
    for part in lines[1].split():
        m, sec = part[:-1].split("m")
        total += 60 * float(m) + float(sec)
    return total


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
    for tool, package in (("perf", "linux-perf"), ("cc", "build-essential")):
        if shutil.which(tool) is None:
            raise SystemExit(f"`{tool}` is not installed; install it with: apt-get install -y {package}")
    if not os.path.exists(args.metron):
        raise SystemExit(f"{args.metron} is missing: cargo build --release -p metron")
    d = tempfile.mkdtemp()
    exe = os.path.join(d, "three_phase")
    subprocess.check_call(["cc", "-O2", "-o", exe, os.path.join(ROOT, "examples", "pep", "three_phase.c")])
    trace = os.path.join(d, "t.trace")
    times_file = os.path.join(d, "times")
    prog = ["sh", "-c", f"{exe} >/dev/null; times >{times_file}"]
    record = [args.metron, "--json", "pep", "record", "--no-observer-check", "--show-output", "--sample"]
    members = ["-e", "page-faults,task-clock", "-o", trace, "--"]
    tools = {
        "plain": prog,
        "perf stat -I 10": ["perf", "stat", "-I", "10", "-x,", "-e", EVENTS, "--"] + prog,
        "perf stat -I 1": ["perf", "stat", "-I", "1", "-x,", "-e", EVENTS, "--"] + prog,
        "metron pep 10ms": record + ["cpu-clock:10000000"] + members + prog,
        "metron pep 1ms": record + ["cpu-clock:1000000"] + members + prog,
    }
    print(f"three-phase program, {args.reps} runs per tool (alternating), medians")
    results = {k: [] for k in tools}
    for _ in range(args.reps):
        for name, argv in tools.items():
            wall, cpu, p = timed(argv)
            with open(times_file) as f:
                results[name].append((wall, cpu, p, program_cpu(f.read())))
    base_prog = statistics.median(r[3] for r in results["plain"])
    print(f"{'tool':18} {'program CPU s':>13} {'vs plain':>9} {'tool CPU s':>10} {'wall s':>7} {'rows':>6} "
          f"{'page-faults':>12} {'cpu-clock ms':>13} {'compute phase rows':>20}")
    for name, runs in results.items():
        wall = statistics.median(r[0] for r in runs)
        prog_cpu = statistics.median(r[3] for r in runs)
        own = [r[1] - r[3] if name.startswith("metron") else r[1] for r in runs]
        tool_cpu = statistics.median(own) if name != "plain" else 0.0
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
            rec = json.loads(last.stdout[last.stdout.index("{"):])
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
        print(f"{name:18} {prog_cpu:13.3f} {100 * (prog_cpu / base_prog - 1):+8.1f}% {tool_cpu:10.3f} {wall:7.3f} "
              f"{rows!s:>6} {faults!s:>12} {clock_s:>13} {phase:>20}")


if __name__ == "__main__":
    main()
