"""Matrix multiplication, parMapChunk (001 Table 4): a task computes TAU rows of C = A B."""
from _taskcli import main

SKELETON = "parMapChunk"
COST_DERIVATIVE = "1"
N = 300
TAUS = [1, 2, 4, 8, 16, 32, 64, 128, 300]


def make(n):
    a = [[float((i * n + j) % 7) for j in range(n)] for i in range(n)]
    b = [[float((i + 2 * j) % 5) for j in range(n)] for i in range(n)]
    return a, b


A, B = make(N)


def rows(first, count):
    n = N
    out = 0.0
    for i in range(first, first + count):
        ai = A[i % n]
        ci = [0.0] * n
        for k in range(n):
            aik = ai[k]
            bk = B[k]
            for j in range(n):
                ci[j] += aik * bk[j]
        out += sum(ci)
    return out


def task(tau):
    return rows(0, tau)


def warmup():
    for _ in range(3):
        rows(N // 2, 2)


if __name__ == "__main__":
    main(task, warmup, TAUS)
