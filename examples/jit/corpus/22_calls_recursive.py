"""Function calls: recursive Fibonacci."""
import math
import sys

SCALE = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
# the work grows by the golden ratio per step of n
N = max(10, 35 + int(round(math.log(SCALE) / math.log(1.618))))


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


print(fib(N))
