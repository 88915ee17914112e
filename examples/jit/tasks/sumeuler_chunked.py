"""SumEuler, parMapChunk (001 Table 4): a task sums Euler's totient over TAU consecutive
numbers taken from the middle of [1, N] (the paper plots middle chunks: the work per number
grows with the number, so chunks are irregular)."""
from _taskcli import main

SKELETON = "parMapChunk"
COST_DERIVATIVE = "1"
N = 14000
TAUS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000]


def gcd(a, b):
    while b:
        a, b = b, a % b
    return a


def phi(n):
    return sum(1 for k in range(1, n + 1) if gcd(n, k) == 1)


def chunk(first, count):
    return sum(phi(k) for k in range(first, first + count))


def task(tau):
    return chunk(N // 2 - tau // 2, tau)


def warmup():
    for _ in range(3):
        chunk(100, 20)


if __name__ == "__main__":
    main(task, warmup, TAUS)
