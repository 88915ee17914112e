"""Conway's game of life on a set of live cells (set and tuple heavy)."""
from _size import scaled


def step(live):
    counts = {}
    for (x, y) in live:
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                if dx or dy:
                    key = (x + dx, y + dy)
                    counts[key] = counts.get(key, 0) + 1
    return {cell for cell, n in counts.items() if n == 3 or (n == 2 and cell in live)}


def r_pentomino_field():
    live = set()
    for ox in range(0, 60, 15):
        for oy in range(0, 60, 15):
            live |= {(ox + 1, oy), (ox + 2, oy), (ox, oy + 1), (ox + 1, oy + 1), (ox + 1, oy + 2)}
    return live


if __name__ == "__main__":
    live = r_pentomino_field()
    for _ in range(scaled(250)):
        live = step(live)
    print(len(live))
