"""List of floats: a 1-D three-point stencil."""
import sys

N = int(10_000 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)) + 1


def run(rounds):
    n = 10_000
    a = [float(i % 17) for i in range(n)]
    b = [0.0] * n
    for _ in range(rounds):
        for i in range(1, n - 1):
            b[i] = 0.25 * a[i - 1] + 0.5 * a[i] + 0.25 * a[i + 1]
        a, b = b, a
    return sum(a)


print("%.6f" % run(N))
