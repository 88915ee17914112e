"""An LRU cache built on OrderedDict, driven by a skewed stream of keys; hit-rate report."""
from _size import scaled
from collections import OrderedDict


class LRUCache:
    def __init__(self, capacity):
        self.capacity = capacity
        self.data = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key, compute):
        try:
            value = self.data[key]
        except KeyError:
            self.misses += 1
            value = compute(key)
            self.data[key] = value
            if len(self.data) > self.capacity:
                self.data.popitem(last=False)
            return value
        self.hits += 1
        self.data.move_to_end(key)
        return value


if __name__ == "__main__":
    cache = LRUCache(1000)
    seed = 99
    total = 0
    for _ in range(scaled(5_000_000)):
        seed = (seed * 1664525 + 1013904223) & 0xFFFFFFFF
        key = (seed >> 10) % 5000 if seed & 1 else (seed >> 10) % 300
        total += cache.get(key, lambda k: k * k % 977)
    print(cache.hits, cache.misses, total)
