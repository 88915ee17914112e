"""Method calls on objects of two classes (inlined by the JIT, guarded by class)."""
import sys

N = int(64_000_000 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0))


class Square:
    def __init__(self, s):
        self.s = s

    def area(self):
        return self.s * self.s


class Rect:
    def __init__(self, w, h):
        self.w = w
        self.h = h

    def area(self):
        return self.w * self.h


def run(n):
    shapes = [Square(3), Rect(2, 5), Square(4), Rect(1, 7)]
    total = 0
    for i in range(n):
        total += shapes[i & 3].area()
    return total


print(run(N))
