"""k-means, parMapChunk (001 Table 4, §5.2.1): a task classifies a chunk of TAU points to
the nearest of K centroids (the parallel part of one refinement step). The paper used
1,024,000 points of dimension 1024 and 5 clusters; this is scaled to dimension 64."""
from _taskcli import main

SKELETON = "parMapChunk"
COST_DERIVATIVE = "1"
K = 5
DIM = 64
POINTS = 40000
TAUS = [10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 40000]


def lcg(seed):
    x = seed
    while True:
        x = (x * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
        yield (x >> 11) / float(1 << 53)


def make():
    g = lcg(42)
    pts = [[next(g) for _ in range(DIM)] for _ in range(POINTS)]
    cents = [[next(g) for _ in range(DIM)] for _ in range(K)]
    return pts, cents


PTS, CENTS = make()


def classify(first, count):
    counts = [0] * K
    for p in PTS[first:first + count]:
        best, best_d = 0, 1e300
        for c in range(K):
            cent = CENTS[c]
            d = 0.0
            for j in range(DIM):
                t = p[j] - cent[j]
                d += t * t
            if d < best_d:
                best, best_d = c, d
        counts[best] += 1
    return counts


def task(tau):
    return classify(0, tau)


def warmup():
    for _ in range(3):
        classify(POINTS - 50, 50)


if __name__ == "__main__":
    main(task, warmup, TAUS)
