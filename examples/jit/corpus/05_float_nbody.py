"""Float arithmetic with sqrt: a small n-body simulation on local variables."""
import math
import sys

N = int(3_200_000 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0))


def run(steps):
    xs = [0.0, 1.0, 0.0, -1.0]
    ys = [0.0, 0.0, 1.0, 0.5]
    vx = [0.0, 0.0, -0.5, 0.1]
    vy = [0.0, 0.5, 0.0, -0.1]
    m = [10.0, 0.1, 0.1, 0.1]
    dt = 0.001
    for _ in range(steps):
        for i in range(4):
            for j in range(i + 1, 4):
                dx = xs[i] - xs[j]
                dy = ys[i] - ys[j]
                d2 = dx * dx + dy * dy + 0.01
                mag = dt / (d2 * math.sqrt(d2))
                vx[i] -= dx * m[j] * mag
                vy[i] -= dy * m[j] * mag
                vx[j] += dx * m[i] * mag
                vy[j] += dy * m[i] * mag
        for i in range(4):
            xs[i] += dt * vx[i]
            ys[i] += dt * vy[i]
    return sum(xs) + sum(ys)


print("%.6f" % run(N))
