"""Connected components by union-find with path compression, on random edges."""
from _size import scaled


class DisjointSet:
    def __init__(self, n):
        self.parent = list(range(n))
        self.rank = [0] * n

    def find(self, x):
        root = x
        while self.parent[root] != root:
            root = self.parent[root]
        while self.parent[x] != root:
            self.parent[x], x = root, self.parent[x]
        return root

    def union(self, a, b):
        ra, rb = self.find(a), self.find(b)
        if ra == rb:
            return False
        if self.rank[ra] < self.rank[rb]:
            ra, rb = rb, ra
        self.parent[rb] = ra
        if self.rank[ra] == self.rank[rb]:
            self.rank[ra] += 1
        return True


if __name__ == "__main__":
    n = 200_000
    ds = DisjointSet(n)
    components = n
    seed = 42
    for _ in range(scaled(1_500_000)):
        seed = (seed * 6364136223846793005 + 1442695040888963407) & (2 ** 64 - 1)
        if ds.union((seed >> 20) % n, (seed >> 40) % n):
            components -= 1
    print(components)
