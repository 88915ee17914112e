"""Memoised recursion with functools.lru_cache: partition numbers and edit distance."""
from _size import scaled
from functools import lru_cache


def partitions(n):
    @lru_cache(maxsize=None)
    def p(n, k):
        if n == 0:
            return 1
        if n < 0 or k == 0:
            return 0
        return p(n - k, k) + p(n, k - 1)
    return p(n, n)


def edit_distance(a, b):
    @lru_cache(maxsize=None)
    def d(i, j):
        if i == 0:
            return j
        if j == 0:
            return i
        cost = 0 if a[i - 1] == b[j - 1] else 1
        return min(d(i - 1, j) + 1, d(i, j - 1) + 1, d(i - 1, j - 1) + cost)
    return d(len(a), len(b))


if __name__ == "__main__":
    total = 0
    for r in range(scaled(6)):
        total += partitions(250 + r) % 1000
        a = "".join("abcde"[(i * 3 + r) % 5] for i in range(200))
        b = "".join("abcde"[(i * 7) % 5] for i in range(180))
        total += edit_distance(a, b)
    print(total)
