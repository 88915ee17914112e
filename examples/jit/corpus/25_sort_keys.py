"""Sorting with a key function (interpreter-level sort, JIT-compiled key calls)."""
import sys

N = int(13 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)) + 1


def run(rounds):
    data = [(i * 7919) % 100_003 for i in range(50_000)]
    total = 0
    for r in range(rounds):
        out = sorted(data, key=lambda x: (x ^ r) & 0xFFFF)
        total += out[0] + out[-1]
    return total


print(run(N))
