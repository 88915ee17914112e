"""Exact rational arithmetic with fractions.Fraction: harmonic-like sums and continued fractions."""
from _size import scaled
from fractions import Fraction


def partial_sum(n):
    total = Fraction(0)
    for k in range(1, n + 1):
        total += Fraction((-1) ** k, k * k + 1)
    return total


def continued(x, terms):
    out = []
    for _ in range(terms):
        a = x.numerator // x.denominator
        out.append(a)
        x -= a
        if x == 0:
            break
        x = 1 / x
    return out


if __name__ == "__main__":
    acc = 0
    for r in range(scaled(160)):
        s = partial_sum(150 + r)
        acc += sum(continued(s, 20))
    print(acc)
