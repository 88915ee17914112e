"""Bytearray indexing: a byte-wise checksum and update."""
import sys

N = int(6_000 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)) + 1


def run(rounds):
    buf = bytearray(range(256)) * 64
    check = 0
    for r in range(rounds):
        for i in range(len(buf)):
            b = buf[i]
            check = (check * 31 + b) & 0xFFFFFFFF
            buf[i] = (b + r) & 0xFF
    return check


print(run(N))
