"""Mandelbrot, parMapChunk (001 Table 4): a task computes TAU rows of a SIZE x SIZE image,
taken from the middle of the image (the paper's Figure 11; rows near the top are cheaper,
Figure 12). MANDEL_CHUNK=top takes the first TAU rows instead (001 Fig. 12's Chunk 0) and
MANDEL_CHUNK=next the TAU rows after the middle chunk (a second middle chunk), for the
different-chunks irregularity experiment of 001 §5.2.2 (scripts/jit-fig12)."""
import os

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


CHUNK = os.environ.get("MANDEL_CHUNK", "middle")


def first_row(tau):
    middle = SIZE // 2 - tau // 2
    return {"top": 0, "middle": middle, "next": middle + tau}[CHUNK]


def task(tau):
    return rows(first_row(tau), tau)


def warmup():
    for _ in range(3):
        rows(5, 2)


if __name__ == "__main__":
    main(task, warmup, TAUS)
