"""Data pipelines built from closures: composed mappers, filters and reducers."""
from _size import scaled


def compose(*funcs):
    def composed(x):
        for f in funcs:
            x = f(x)
        return x
    return composed


def scaler(k):
    return lambda x: x * k


def offset(c):
    def add(x):
        return x + c
    return add


def clamp(lo, hi):
    def f(x):
        return lo if x < lo else hi if x > hi else x
    return f


def make_counter():
    count = 0

    def tick(x):
        nonlocal count
        count += 1
        return x
    return tick, lambda: count


if __name__ == "__main__":
    tick, seen = make_counter()
    pipeline = compose(scaler(3), offset(-7), clamp(-1000, 100000), tick, scaler(0.5))
    total = 0.0
    for i in range(scaled(2_500_000)):
        total += pipeline(i % 50_000)
    print(seen(), total)
