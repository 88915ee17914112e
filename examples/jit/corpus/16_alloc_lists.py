"""Allocation: building and discarding small lists."""
import sys

N = int(160_000_000 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0))


def run(n):
    total = 0
    for i in range(n):
        xs = [i, i + 1, i + 2, i + 3]
        xs.append(i * 2)
        total += len(xs) + xs[-1]
    return total


print(run(N))
