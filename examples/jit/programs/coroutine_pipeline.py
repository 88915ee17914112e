"""Generator-based coroutines: a producer sends readings through filters into an averager."""
from _size import scaled


def coroutine(func):
    def start(*args):
        gen = func(*args)
        next(gen)
        return gen
    return start


@coroutine
def averager(results):
    total = count = 0
    while True:
        value = yield
        if value is None:
            results.append(total / max(count, 1))
            return
        total += value
        count += 1


@coroutine
def drop_outliers(target, limit):
    while True:
        value = yield
        if value is None:
            try:
                target.send(None)
            except StopIteration:
                pass
            return
        if abs(value) < limit:
            target.send(value)


@coroutine
def smooth(target, window):
    buf = []
    while True:
        value = yield
        if value is None:
            try:
                target.send(None)
            except StopIteration:
                pass
            return
        buf.append(value)
        if len(buf) > window:
            buf.pop(0)
        target.send(sum(buf) / len(buf))


if __name__ == "__main__":
    results = []
    for run in range(scaled(20)):
        sink = averager(results)
        pipe = drop_outliers(smooth(sink, 8), 900.0)
        for i in range(40_000):
            pipe.send(((i * 7919 + run) % 2000) - 1000.0)
        try:
            pipe.send(None)
        except StopIteration:
            pass
    print(len(results), "%.4f" % sum(results))
