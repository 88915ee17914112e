"""Shortest paths on a weighted grid graph with heapq (Dijkstra), repeated from several sources."""
from _size import scaled
import heapq


def build_grid(w, h):
    graph = {}
    for y in range(h):
        for x in range(w):
            node = y * w + x
            edges = []
            if x + 1 < w:
                edges.append((node + 1, 1 + (x * 7 + y * 3) % 9))
            if y + 1 < h:
                edges.append((node + w, 1 + (x * 5 + y * 11) % 9))
            if x > 0:
                edges.append((node - 1, 1 + (x * 3 + y) % 9))
            if y > 0:
                edges.append((node - w, 1 + (x + y * 7) % 9))
            graph[node] = edges
    return graph


def dijkstra(graph, source):
    dist = {source: 0}
    heap = [(0, source)]
    while heap:
        d, node = heapq.heappop(heap)
        if d > dist[node]:
            continue
        for nxt, weight in graph[node]:
            nd = d + weight
            if nd < dist.get(nxt, 1 << 60):
                dist[nxt] = nd
                heapq.heappush(heap, (nd, nxt))
    return dist


if __name__ == "__main__":
    graph = build_grid(120, 120)
    total = 0
    for s in range(scaled(14)):
        total += max(dijkstra(graph, (s * 977) % len(graph)).values())
    print(total)
