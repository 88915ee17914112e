"""0/1 knapsack and longest common subsequence by dynamic programming over lists."""
from _size import scaled


def knapsack(weights, values, capacity):
    best = [0] * (capacity + 1)
    for w, v in zip(weights, values):
        for c in range(capacity, w - 1, -1):
            cand = best[c - w] + v
            if cand > best[c]:
                best[c] = cand
    return best[capacity]


def lcs(a, b):
    prev = [0] * (len(b) + 1)
    for ch in a:
        cur = [0]
        for j, other in enumerate(b):
            cur.append(prev[j] + 1 if ch == other else max(prev[j + 1], cur[j]))
        prev = cur
    return prev[-1]


if __name__ == "__main__":
    k = scaled(60)
    items = 100 * k
    weights = [1 + (i * 37) % 50 for i in range(items)]
    values = [1 + (i * 91) % 80 for i in range(items)]
    a = "".join("acgt"[(i * i) % 4] for i in range(300 * k))
    b = "".join("acgt"[(i * 7 + 1) % 4] for i in range(300))
    print(knapsack(weights, values, 2000), lcs(a, b))
