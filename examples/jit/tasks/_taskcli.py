"""Shared command line of the task functions (001 §5.2.2, two-run differencing).

    pypy3 TASK.py --tau T                 warm-up, then one task of size T
    pypy3 TASK.py --tau T --warmup-only   the warm-up alone

The counter difference between the two runs is the task's (001 §5.2.2). The warm-up runs the
task function on small inputs often enough for the JIT to compile its loops, so that the task
itself runs compiled code. Each module declares SKELETON, COST_DERIVATIVE ("1" for chunking,
"1/x" for striding, 001 §5.1) and TAUS, the tuning-parameter values of the experiment.
"""
import argparse
import time


def main(task, warmup, default_taus):
    p = argparse.ArgumentParser()
    p.add_argument("--tau", type=int, required=True)
    p.add_argument("--warmup-only", action="store_true")
    p.add_argument("--taus", action="store_true", help="print the experiment's tau values")
    args = p.parse_args()
    warmup()
    if args.warmup_only:
        print("warmup")
        return
    t0 = time.perf_counter()
    result = task(args.tau)
    t1 = time.perf_counter()
    # stdout: the result (for checking); stderr: the task's own wall time in seconds
    print(result)
    import sys

    sys.stderr.write("task_seconds %.9f\n" % (t1 - t0))
