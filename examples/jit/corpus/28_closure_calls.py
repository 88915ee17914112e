"""Closures and small function calls in a loop."""
import sys

N = int(110_000_000 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0))


def make_adder(k):
    def add(x):
        return x + k
    return add


def run(n):
    f = make_adder(3)
    g = make_adder(5)
    total = 0
    for i in range(n):
        total = f(total) if i & 1 else g(total)
    return total


print(run(N))
