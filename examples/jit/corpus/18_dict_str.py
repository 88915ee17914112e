"""Dict work: lookups with string keys."""
import sys

N = int(32_000_000 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0))


def run(n):
    keys = ["key%d" % i for i in range(512)]
    table = {k: i for i, k in enumerate(keys)}
    total = 0
    for i in range(n):
        total += table[keys[i & 511]]
    return total


print(run(N))
