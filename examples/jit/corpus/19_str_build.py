"""String work: building strings by join and formatting."""
import sys

N = int(12_000_000 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0))


def run(n):
    total = 0
    for i in range(n):
        s = "-".join([str(i), str(i * 3), "x"])
        total += len(s)
    return total


print(run(N))
