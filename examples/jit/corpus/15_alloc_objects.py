"""Allocation: objects stored into a ring buffer, so they escape and must be built."""
import sys

N = int(130_000_000 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0))


class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y


def run(n):
    ring = [None] * 64
    total = 0
    for i in range(n):
        p = Point(i, -i)
        ring[i & 63] = p
        total += ring[(i + 1) & 63].x if ring[(i + 1) & 63] is not None else 0
    return total


print(run(N))
