"""SumEuler, parMapChunk (001 Table 4): a task sums Euler's totient over TAU consecutive
numbers taken from the middle of [1, N] (the paper plots middle chunks: the work per number
grows with the number, so chunks are irregular). SUMEULER_CHUNK=first takes [1, TAU] instead
(the first chunk of parMapChunk, the cheapest) and SUMEULER_CHUNK=last [N-TAU+1, N] (the last,
the costliest), for the different-chunks irregularity experiment of 001 §5.2.2
(scripts/jit-chunks)."""
import os

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


CHUNK = os.environ.get("SUMEULER_CHUNK", "middle")


def first_number(tau):
    if CHUNK not in ("first", "middle", "last"):
        raise SystemExit("SUMEULER_CHUNK: expected first, middle or last, got %r" % CHUNK)
    return {"first": 1, "middle": N // 2 - tau // 2, "last": N - tau + 1}[CHUNK]


def task(tau):
    return chunk(first_number(tau), tau)


def warmup():
    for _ in range(3):
        chunk(100, 20)


if __name__ == "__main__":
    main(task, warmup, TAUS)
