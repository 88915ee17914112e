"""Set membership tests and insertions."""
import sys

N = int(36_000_000 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0))


def run(n):
    seen = set()
    hits = 0
    for i in range(n):
        k = (i * 40503) & 0x3FFF
        if k in seen:
            hits += 1
        else:
            seen.add(k)
    return hits


print(run(N))
