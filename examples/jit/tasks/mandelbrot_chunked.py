"""Mandelbrot, parMapChunk (001 Table 4): a task computes TAU rows of a SIZE x SIZE image,
taken from the middle of the image (the paper's Figure 11; rows near the top are cheaper,
Figure 12)."""
from _taskcli import main

SKELETON = "parMapChunk"
COST_DERIVATIVE = "1"
SIZE = 600
MAX_ITER = 100
TAUS = [1, 2, 4, 8, 16, 32, 64, 128, 256, 600]


def row(y):
    ci = -1.5 + 3.0 * y / SIZE
    inside = 0
    for x in range(SIZE):
        cr = -2.0 + 3.0 * x / SIZE
        zr = zi = 0.0
        k = 0
        while k < MAX_ITER and zr * zr + zi * zi < 4.0:
            zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
            k += 1
        if k == MAX_ITER:
            inside += 1
    return inside


def rows(first, count):
    return sum(row(y % SIZE) for y in range(first, first + count))


def task(tau):
    return rows(SIZE // 2 - tau // 2, tau)


def warmup():
    for _ in range(3):
        rows(5, 2)


if __name__ == "__main__":
    main(task, warmup, TAUS)
