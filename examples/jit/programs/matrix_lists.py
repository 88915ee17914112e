"""Dense matrix multiplication and transpose on lists of lists of floats."""
from _size import scaled


def matmul(a, b):
    bt = list(zip(*b))
    return [[sum(x * y for x, y in zip(row, col)) for col in bt] for row in a]


def identity_ish(n, shift):
    return [[1.0 / (1 + abs(i - j) + shift) for j in range(n)] for i in range(n)]


if __name__ == "__main__":
    n = 90
    a = identity_ish(n, 0)
    b = identity_ish(n, 1)
    trace = 0.0
    for k in range(scaled(20)):
        c = matmul(a, b)
        trace += sum(c[i][i] for i in range(n))
        a = c
        s = max(max(row) for row in a)
        a = [[x / s for x in row] for row in a]
    print("%.6f" % trace)
