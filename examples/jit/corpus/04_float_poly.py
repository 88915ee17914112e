"""Float arithmetic: Horner evaluation of a polynomial."""
import sys

N = int(320_000_000 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0))


def run(n):
    acc = 0.0
    x = 0.0
    step = 1.0 / max(n, 1)
    for _ in range(n):
        acc += ((((0.5 * x - 1.25) * x + 2.0) * x - 0.75) * x + 1.0)
        x += step
    return acc


print("%.6f" % run(N))
