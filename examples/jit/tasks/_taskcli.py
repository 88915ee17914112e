"""Shared command line of the task functions (001 §5.2.2, two-run differencing).

    pypy3 TASK.py --tau T                 warm-up, then one task of size T
    pypy3 TASK.py --tau T --warmup-only   the warm-up alone
    pypy3 TASK.py --tau T --repeat R      warm-up, then the task R times, each timed

The counter difference between the first two runs is the task's (001 §5.2.2). The warm-up runs
the task function on small inputs often enough for the JIT to compile its loops, so that the
task itself runs compiled code. Each module declares SKELETON, COST_DERIVATIVE ("1" for
chunking, "1/x" for striding, 001 §5.1) and TAUS, the tuning-parameter values of the
experiment.

Task times are taken inside the process around the task call alone: the smallest tasks last
microseconds, far below the start-up of pypy3 itself, so a process's wall time cannot resolve
them. Each repetition gives its wall time (time.perf_counter) and its CPU time
(time.thread_time), which waiting for a core on a shared machine does not inflate. With
METRON_TASK_TIMES=FILE in the environment the lines `WALL CPU` (seconds) are appended to FILE;
otherwise they go to stderr as `task_seconds WALL CPU`.
--repeat stops early once --budget seconds of task time have been spent (after at least 3).
"""
import argparse
import os
import sys
import time


def main(task, warmup, default_taus):
    p = argparse.ArgumentParser()
    p.add_argument("--tau", type=int, required=True)
    p.add_argument("--warmup-only", action="store_true")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--budget", type=float, default=float("inf"))
    args = p.parse_args()
    warmup()
    if args.warmup_only:
        print("warmup")
        return
    times = []
    spent = 0.0
    result = None
    for i in range(max(1, args.repeat)):
        c0 = time.thread_time()
        t0 = time.perf_counter()
        result = task(args.tau)
        t1 = time.perf_counter()
        c1 = time.thread_time()
        times.append((t1 - t0, c1 - c0))
        spent += t1 - t0
        if i >= 2 and spent >= args.budget:
            break
    # stdout: the result (for checking)
    print(result)
    path = os.environ.get("METRON_TASK_TIMES")
    if path:
        with open(path, "a") as f:
            for wall, cpu in times:
                f.write("%.9f %.9f\n" % (wall, cpu))
    else:
        for wall, cpu in times:
            sys.stderr.write("task_seconds %.9f %.9f\n" % (wall, cpu))
