"""The array module: raw double arrays, indexed reads and writes."""
import array
import sys

N = int(13_000 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)) + 1


def run(rounds):
    n = 10_000
    a = array.array("d", [i * 0.5 for i in range(n)])
    for r in range(rounds):
        for i in range(n):
            a[i] = a[i] * 0.999 + r
    return sum(a)


print("%.3f" % run(N))
