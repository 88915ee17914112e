"""List of booleans: the sieve of Eratosthenes."""
import sys

N = int(66 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)) + 1


def run(rounds):
    n = 500_000
    count = 0
    for _ in range(rounds):
        flags = [True] * n
        flags[0] = flags[1] = False
        i = 2
        while i * i < n:
            if flags[i]:
                for j in range(i * i, n, i):
                    flags[j] = False
            i += 1
        count = sum(flags)
    return count


print(run(N))
