"""A small gravitational n-body simulation with bodies as objects (floating point)."""
from _size import scaled
import math


class Body:
    __slots__ = ("x", "y", "z", "vx", "vy", "vz", "mass")

    def __init__(self, x, y, z, vx, vy, vz, mass):
        self.x, self.y, self.z = x, y, z
        self.vx, self.vy, self.vz = vx, vy, vz
        self.mass = mass


def advance(bodies, dt):
    n = len(bodies)
    for i in range(n):
        a = bodies[i]
        for j in range(i + 1, n):
            b = bodies[j]
            dx, dy, dz = a.x - b.x, a.y - b.y, a.z - b.z
            d2 = dx * dx + dy * dy + dz * dz + 0.01
            mag = dt / (d2 * math.sqrt(d2))
            a.vx -= dx * b.mass * mag
            a.vy -= dy * b.mass * mag
            a.vz -= dz * b.mass * mag
            b.vx += dx * a.mass * mag
            b.vy += dy * a.mass * mag
            b.vz += dz * a.mass * mag
    for body in bodies:
        body.x += dt * body.vx
        body.y += dt * body.vy
        body.z += dt * body.vz


def energy(bodies):
    e = 0.0
    for i, a in enumerate(bodies):
        e += 0.5 * a.mass * (a.vx ** 2 + a.vy ** 2 + a.vz ** 2)
        for b in bodies[i + 1:]:
            d = math.sqrt((a.x - b.x) ** 2 + (a.y - b.y) ** 2 + (a.z - b.z) ** 2 + 0.01)
            e -= a.mass * b.mass / d
    return e


if __name__ == "__main__":
    bodies = [Body(math.cos(i), math.sin(i), 0.1 * i, 0.0, 0.0, 0.0, 1.0 + i % 3) for i in range(12)]
    for _ in range(scaled(200_000)):
        advance(bodies, 0.001)
    print("%.9f" % energy(bodies))
