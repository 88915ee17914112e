"""Fibonacci, parDivconqThresh (001 Table 4): below the threshold TAU a task computes fib
sequentially by divide and conquer, so a task is fib(TAU) (the paper ran thresholds 15, 16,
17, 18, 21, 24, 27, 30 on fib 42)."""
from _taskcli import main

SKELETON = "parDivconqThresh"
COST_DERIVATIVE = "phi^x"  # work grows by the golden ratio per unit of TAU
TAUS = [10, 12, 15, 16, 17, 18, 21, 24, 27, 30, 32]


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def task(tau):
    return fib(tau)


def warmup():
    for _ in range(3):
        fib(18)


if __name__ == "__main__":
    main(task, warmup, TAUS)
