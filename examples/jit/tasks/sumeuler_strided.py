"""SumEuler, parMapStride (001 Table 4): with stride TAU the numbers 1..N are dealt to TAU
tasks round-robin; a task sums the totients of k = s, s + TAU, s + 2 TAU, ... <= N. Doubling
TAU halves a task's work: the cost derivative is 1/x (001 §5.1)."""
from _taskcli import main

SKELETON = "parMapStride"
COST_DERIVATIVE = "1/x"
N = 14000
TAUS = [8, 16, 32, 64, 128, 256, 512, 1024, 2048]


def gcd(a, b):
    while b:
        a, b = b, a % b
    return a


def phi(n):
    return sum(1 for k in range(1, n + 1) if gcd(n, k) == 1)


def strided(start, stride, limit):
    return sum(phi(k) for k in range(start, limit + 1, stride))


def task(tau):
    # the middle task of the TAU tasks, as for the chunked version
    return strided(max(1, tau // 2), tau, N)


def warmup():
    for _ in range(3):
        strided(7, 97, 1500)


if __name__ == "__main__":
    main(task, warmup, TAUS)
