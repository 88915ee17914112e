"""Breadth-first search through generated mazes with collections.deque."""
from _size import scaled
from collections import deque


def maze(w, h, seed):
    walls = set()
    for y in range(h):
        for x in range(w):
            seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
            if seed % 100 < 28 and (x, y) != (0, 0) and (x, y) != (w - 1, h - 1):
                walls.add((x, y))
    return walls


def shortest(walls, w, h):
    start, goal = (0, 0), (w - 1, h - 1)
    dist = {start: 0}
    queue = deque([start])
    while queue:
        x, y = queue.popleft()
        if (x, y) == goal:
            return dist[goal]
        for nx, ny in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
            if 0 <= nx < w and 0 <= ny < h and (nx, ny) not in walls and (nx, ny) not in dist:
                dist[(nx, ny)] = dist[(x, y)] + 1
                queue.append((nx, ny))
    return -1


if __name__ == "__main__":
    total = 0
    for s in range(scaled(40)):
        walls = maze(150, 150, s)
        total += shortest(walls, 150, 150)
    print(total)
