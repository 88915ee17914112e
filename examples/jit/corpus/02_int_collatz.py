"""Integer arithmetic with data-dependent branches: Collatz sequence lengths."""
import sys

N = int(1_500_000 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0))


def run(n):
    longest = 0
    for start in range(1, n):
        x, steps = start, 0
        while x != 1:
            x = x // 2 if x % 2 == 0 else 3 * x + 1
            steps += 1
        if steps > longest:
            longest = steps
    return longest


print(run(N))
