"""Allocation: short-lived tuples that escape into a list."""
import sys

N = int(160_000_000 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0))


def run(n):
    keep = []
    total = 0
    for i in range(n):
        t = (i, i + 1, i + 2)
        if i % 1000 == 0:
            keep.append(t)
        total += t[0] + t[2]
    return total + len(keep)


print(run(N))
