"""Float arithmetic in a tight escape-time loop: Mandelbrot set area."""
import sys

N = int(2_600 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)) + 2


def run(n):
    inside = 0
    for py in range(n):
        ci = -1.5 + 3.0 * py / n
        for px in range(n):
            cr = -2.0 + 3.0 * px / n
            zr = zi = 0.0
            k = 0
            while k < 50 and zr * zr + zi * zi < 4.0:
                zr, zi = zr * zr - zi * zi + cr, 2.0 * zr * zi + ci
                k += 1
            if k == 50:
                inside += 1
    return inside


print(run(N))
