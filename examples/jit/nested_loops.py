"""The doubly nested counting loop of 001 Figure 1, in Python.

The inner loop runs N times for each of M outer iterations, so the loop body executes
exactly M * N times; metron-jit's tests check the JIT counters against that number.
"""
import sys


def inner(n, acc):
    i = 0
    while i < n:
        acc += 1
        i += 1
    return acc


def outer(m, n):
    acc = 0
    j = 0
    while j < m:
        acc = inner(n, acc)
        j += 1
    return acc


if __name__ == "__main__":
    m = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    print(outer(m, n))
