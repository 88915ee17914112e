#!/usr/bin/env python3
"""metron pep's change-point regions against the `ruptures` package (PELT, Truong et al.).

1. Synthetic traces with planted regions (piecewise-constant rates of two events, jittered
   sampling time, Gaussian count noise): both methods run PELT with the L2 cost on the same
   standardised rates, penalty and minimum segment size; the script scores how many planted
   boundaries each finds within +-TOL samples, and how often the two agree exactly.
2. A real trace (the three-phase example recorded with `metron pep record`): both segment it.

Usage: scripts/bench-pep-ruptures.py [--traces 1000] [--seed 1] [--metron target/release/metron]
ruptures is installed from PyPI into a private virtualenv (.bench-venv) on first use.
"""
import argparse
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(ROOT, ".bench-venv")


def ensure_ruptures():
    try:
        import ruptures  # noqa: F401
        return
    except ImportError:
        pass
    py = os.path.join(VENV, "bin", "python")
    if os.environ.get("METRON_BENCH_VENV") != "1":
        if not os.path.exists(py):
            subprocess.check_call([sys.executable, "-m", "venv", VENV])
            subprocess.check_call([py, "-m", "pip", "install", "-q", "ruptures"])
        env = dict(os.environ, METRON_BENCH_VENV="1")
        os.execve(py, [py] + sys.argv, env)
    sys.exit("ruptures is not importable in " + VENV)


def planted_trace(rng, n, k):
    """n samples, k planted boundaries (sample indices >= 1), two member events."""
    bounds = sorted(rng.sample(range(8, n - 8), k))
    # keep segments at least 6 samples long
    while any(b - a < 6 for a, b in zip([0] + bounds, bounds + [n])):
        bounds = sorted(rng.sample(range(8, n - 8), k))
    levels = [(rng.uniform(0, 1e-3), rng.uniform(0, 5e-4)) for _ in range(k + 1)]
    for i in range(1, k + 1):  # every boundary changes at least one rate by 30% of its range
        while max(abs(levels[i][0] - levels[i - 1][0]) / 1e-3, abs(levels[i][1] - levels[i - 1][1]) / 5e-4) < 0.3:
            levels[i] = (rng.uniform(0, 1e-3), rng.uniform(0, 5e-4))
    t = m1 = m2 = 0
    rows = []
    for i in range(n):
        seg = sum(1 for b in bounds if b <= i)
        dt = int(1_000_000 + rng.gauss(0, 10_000))
        r1, r2 = levels[seg]
        d1 = max(0, int(r1 * dt + rng.gauss(0, 0.15 * 1e-3 * dt)))
        d2 = max(0, int(r2 * dt + rng.gauss(0, 0.15 * 5e-4 * dt)))
        t, m1, m2 = t + dt, m1 + d1, m2 + d2
        rows.append((t, m1, m2))
    return bounds, rows


def write_traces(path, traces):
    with open(path, "w") as f:
        for i, (_, rows) in enumerate(traces):
            f.write(f"@trace_start:synthetic:1:1:planted:v:{len(rows)}:{i + 1}\n")
            f.write("@perf_events:cpu-clock,ev-a,ev-b\n")
            for r in rows:
                f.write(",".join(map(str, r)) + "\n")
            f.write("@trace_end\n")


def rates(rows):
    out, prev = [], (0, 0, 0)
    for r in rows:
        dt = r[0] - prev[0]
        out.append([(r[j] - prev[j]) / dt for j in range(1, len(r))])
        prev = r
    return out


def ruptures_segment(rows, min_size=3):
    """The same signal and penalty as metron's segment(): rates after the first sample,
    each divided by its standard deviation; penalty 3*d*ln(n)."""
    import numpy as np
    import ruptures as rpt
    x = np.array(rates(rows)[1:])
    sd = x.std(axis=0)
    sd[sd == 0] = 1.0
    x = x / sd
    n, d = x.shape
    pen = 3.0 * d * math.log(max(n, 2))
    bkps = rpt.Pelt(model="l2", min_size=min_size, jump=1).fit(x).predict(pen=pen)
    return [b + 1 for b in bkps[:-1]]


def metron_segments(metron, path):
    out = subprocess.run([metron, "pep", "regions", path, "--json"], check=True, capture_output=True, text=True).stdout
    return [[r["first_sample"] for r in t["regions"][1:]] for t in json.loads(out)]


def score(planted, found, tol):
    hit = sum(1 for b in planted if any(abs(b - f) <= tol for f in found))
    good = sum(1 for f in found if any(abs(b - f) <= tol for b in planted))
    return hit, good


def synthetic(args):
    rng = random.Random(args.seed)
    traces = [planted_trace(rng, rng.randint(60, 400), rng.randint(1, 6)) for _ in range(args.traces)]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "planted.trace")
        write_traces(path, traces)
        t0 = time.perf_counter()
        ours = metron_segments(args.metron, path)
        t_metron = time.perf_counter() - t0
    t0 = time.perf_counter()
    theirs = [ruptures_segment(rows) for _, rows in traces]
    t_rpt = time.perf_counter() - t0
    planted_total = sum(len(b) for b, _ in traces)
    res = {}
    for name, found in (("metron", ours), ("ruptures", theirs)):
        hit = good = det = exact = 0
        for (b, _), f in zip(traces, found):
            h, g = score(b, f, args.tol)
            hit, good, det = hit + h, good + g, det + len(f)
            exact += f == b
        res[name] = dict(recall=hit / planted_total, precision=good / max(det, 1), exact_traces=exact)
    same = sum(1 for a, b in zip(ours, theirs) if a == b)
    print(f"synthetic: {len(traces)} traces, {planted_total} planted boundaries, tolerance +-{args.tol} samples")
    for name in ("metron", "ruptures"):
        r = res[name]
        print(f"  {name:9} recall {r['recall']:.4f}  precision {r['precision']:.4f}  all boundaries exact in {r['exact_traces']}/{len(traces)} traces")
    print(f"  identical change points: {same}/{len(traces)} traces")
    print(f"  time: metron {t_metron:.2f} s (one process, all traces, incl. start-up); ruptures {t_rpt:.2f} s")


def real(args):
    src = os.path.join(ROOT, "examples", "pep", "three_phase.c")
    with tempfile.TemporaryDirectory() as d:
        exe = os.path.join(d, "three_phase")
        subprocess.check_call(["cc", "-O2", "-o", exe, src])
        trace = os.path.join(d, "three_phase.trace")
        subprocess.run([args.metron, "-q", "pep", "record", "--no-observer-check", "--sample", "cpu-clock:1000000",
                        "-e", "page-faults,task-clock", "-o", trace, "--", exe], check=True, capture_output=True)
        ours = metron_segments(args.metron, trace)[0]
        rows = []
        with open(trace) as f:
            for line in f:
                if line[0].isdigit():
                    rows.append(tuple(int(x) for x in line.split(",")))
    theirs = ruptures_segment(rows)
    print(f"three-phase program ({len(rows)} samples of cpu-clock every 1 ms): change points")
    print(f"  metron   {ours}")
    print(f"  ruptures {theirs}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--traces", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--tol", type=int, default=2)
    ap.add_argument("--metron", default=os.path.join(ROOT, "target", "release", "metron"))
    args = ap.parse_args()
    ensure_ruptures()
    synthetic(args)
    real(args)


if __name__ == "__main__":
    main()
