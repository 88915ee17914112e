"""A class hierarchy of shapes: virtual area/perimeter calls over a heterogeneous list."""
from _size import scaled
import math


class Shape:
    def area(self):
        raise NotImplementedError

    def perimeter(self):
        raise NotImplementedError

    def scaled(self, k):
        raise NotImplementedError


class Circle(Shape):
    def __init__(self, r):
        self.r = r

    def area(self):
        return math.pi * self.r * self.r

    def perimeter(self):
        return 2 * math.pi * self.r

    def scaled(self, k):
        return Circle(self.r * k)


class Rect(Shape):
    def __init__(self, w, h):
        self.w, self.h = w, h

    def area(self):
        return self.w * self.h

    def perimeter(self):
        return 2 * (self.w + self.h)

    def scaled(self, k):
        return Rect(self.w * k, self.h * k)


class Square(Rect):
    def __init__(self, s):
        Rect.__init__(self, s, s)

    def scaled(self, k):
        return Square(self.w * k)


class Triangle(Shape):
    def __init__(self, a, b, c):
        self.a, self.b, self.c = a, b, c

    def area(self):
        s = (self.a + self.b + self.c) / 2
        return math.sqrt(max(s * (s - self.a) * (s - self.b) * (s - self.c), 0.0))

    def perimeter(self):
        return self.a + self.b + self.c

    def scaled(self, k):
        return Triangle(self.a * k, self.b * k, self.c * k)


if __name__ == "__main__":
    shapes = []
    for i in range(1000):
        kind = i % 4
        shapes.append([Circle(1 + i % 5), Rect(1 + i % 3, 2 + i % 7), Square(1 + i % 4),
                       Triangle(3, 4, 5 + i % 2)][kind])
    total = 0.0
    for r in range(scaled(10000)):
        k = 1.0 + (r % 10) / 100
        for s in shapes:
            t = s.scaled(k)
            total += t.area() / t.perimeter()
    print("%.4f" % total)
