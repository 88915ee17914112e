"""Integer division and modulo: Euclid's gcd over many pairs."""
import sys

N = int(33_000 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0))


def gcd(a, b):
    while b:
        a, b = b, a % b
    return a


def run(n):
    total = 0
    for a in range(1, n):
        for b in range(1, 200):
            total += gcd(a, b)
    return total


print(run(N))
