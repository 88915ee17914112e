"""A minimal ray tracer: vector objects, sphere intersection and Lambert shading."""
from _size import scaled
import math


class Vec:
    __slots__ = ("x", "y", "z")

    def __init__(self, x, y, z):
        self.x, self.y, self.z = x, y, z

    def __add__(self, o):
        return Vec(self.x + o.x, self.y + o.y, self.z + o.z)

    def __sub__(self, o):
        return Vec(self.x - o.x, self.y - o.y, self.z - o.z)

    def __mul__(self, k):
        return Vec(self.x * k, self.y * k, self.z * k)

    def dot(self, o):
        return self.x * o.x + self.y * o.y + self.z * o.z

    def norm(self):
        return self * (1.0 / math.sqrt(self.dot(self)))


class Sphere:
    def __init__(self, center, radius, shade):
        self.center, self.radius, self.shade = center, radius, shade

    def hit(self, origin, direction):
        oc = origin - self.center
        b = oc.dot(direction)
        c = oc.dot(oc) - self.radius * self.radius
        disc = b * b - c
        if disc < 0:
            return None
        t = -b - math.sqrt(disc)
        return t if t > 1e-4 else None


def render(size, spheres, light):
    eye = Vec(0.0, 0.0, -3.0)
    total = 0.0
    for py in range(size):
        for px in range(size):
            d = Vec((px - size / 2) / size, (py - size / 2) / size, 1.0).norm()
            best, nearest = None, 1e30
            for s in spheres:
                t = s.hit(eye, d)
                if t is not None and t < nearest:
                    best, nearest = s, t
            if best is not None:
                p = eye + d * nearest
                n = (p - best.center).norm()
                total += best.shade * max(0.0, n.dot(light))
    return total


if __name__ == "__main__":
    spheres = [Sphere(Vec(-1.0, 0.0, 3.0), 1.0, 0.9), Sphere(Vec(1.2, 0.3, 4.0), 1.2, 0.6),
               Sphere(Vec(0.0, -101.0, 5.0), 100.0, 0.3)]
    print("%.3f" % render(scaled(1000), spheres, Vec(-0.5, 1.0, -0.5).norm()))
