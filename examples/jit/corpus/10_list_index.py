"""List indexing: reads and writes of a list of ints by index."""
import sys

N = int(9_000 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)) + 1


def run(rounds):
    data = list(range(10_000))
    for r in range(rounds):
        for i in range(1, len(data)):
            data[i] = (data[i - 1] + data[i] + r) & 0xFFFF
    return sum(data)


print(run(N))
