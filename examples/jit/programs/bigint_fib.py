"""Big-integer arithmetic: Fibonacci numbers by iteration and their digit sums."""
from _size import scaled


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def digit_sum(x):
    total = 0
    while x:
        x, chunk = divmod(x, 10 ** 9)
        while chunk:
            chunk, d = divmod(chunk, 10)
            total += d
    return total


if __name__ == "__main__":
    total = 0
    for k in range(1, scaled(100) + 1):
        total += digit_sum(fib(1000 + 250 * k)) % 1000
    print(total)
