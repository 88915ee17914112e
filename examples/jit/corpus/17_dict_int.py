"""Dict work: counting with integer keys."""
import sys

N = int(25_000_000 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0))


def run(n):
    counts = {}
    for i in range(n):
        k = (i * 2654435761) % 4093
        counts[k] = counts.get(k, 0) + 1
    return max(counts.values())


print(run(N))
