"""Nested lists: dense matrix multiplication."""
import sys

N = int(560 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0) ** (1 / 3)) + 2


def run(n):
    a = [[float(i * n + j) % 7.0 for j in range(n)] for i in range(n)]
    b = [[float(i + j) % 5.0 for j in range(n)] for i in range(n)]
    c = [[0.0] * n for _ in range(n)]
    for i in range(n):
        ai = a[i]
        ci = c[i]
        for k in range(n):
            aik = ai[k]
            bk = b[k]
            for j in range(n):
                ci[j] += aik * bk[j]
    return sum(sum(row) for row in c)


print("%.3f" % run(N))
