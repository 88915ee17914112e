"""Generators and iteration protocols."""
import sys

N = int(28_000_000 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0))


def evens(n):
    for i in range(n):
        if i & 1 == 0:
            yield i


def run(n):
    return sum(x * 3 for x in evens(n))


print(run(N))
