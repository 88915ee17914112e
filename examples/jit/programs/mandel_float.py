"""Mandelbrot set membership on a grid, pure float arithmetic in nested loops."""
from _size import scaled


def mandel(width, height, max_iter):
    inside = 0
    for py in range(height):
        ci = -1.2 + 2.4 * py / height
        for px in range(width):
            cr = -2.0 + 3.0 * px / width
            zr = zi = 0.0
            for _ in range(max_iter):
                zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
                if zr * zr + zi * zi > 4.0:
                    break
            else:
                inside += 1
    return inside


if __name__ == "__main__":
    n = scaled(550)
    print(mandel(n, n, 200))
