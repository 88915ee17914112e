"""Object attribute reads and writes on a long-lived instance."""
import sys

N = int(240_000_000 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0))


class Counter:
    def __init__(self):
        self.a = 0
        self.b = 1
        self.c = 2


def run(n):
    o = Counter()
    for i in range(n):
        o.a = o.b + o.c
        o.b = o.c + i
        o.c = o.a & 0xFFFF
    return o.a + o.b + o.c


print(run(N))
