"""Statistics over a table of rows with list, dict and set comprehensions."""
from _size import scaled


def table(n):
    return [(i, (i * 17) % 101, ((i * 31) % 997) / 7.0, "c%d" % (i % 13)) for i in range(n)]


def analyse(rows):
    evens = [r for r in rows if r[1] % 2 == 0]
    squares = [r[2] * r[2] for r in evens]
    by_cat = {c: [r[2] for r in rows if r[3] == c] for c in {r[3] for r in rows}}
    means = {c: sum(v) / len(v) for c, v in by_cat.items()}
    outliers = [r[0] for r in rows if r[2] > 2 * means[r[3]]]
    return len(evens), sum(squares), len(outliers)


if __name__ == "__main__":
    rows = table(20_000)
    total = 0.0
    for _ in range(scaled(40)):
        a, b, c = analyse(rows)
        total += a + b / 1e6 + c
    print("%.3f" % total)
