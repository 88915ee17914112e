"""Integer arithmetic: a sum of mixed integer operations."""
import sys

N = int(270_000_000 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0))


def run(n):
    s = 0
    for i in range(n):
        s += (i * 7 + 3) ^ (i >> 2)
    return s & 0xFFFFFFFF


print(run(N))
