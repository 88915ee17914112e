"""Count the solutions of the n-queens problem by recursive backtracking."""
from _size import scaled


def solve(n, row, cols, diag1, diag2):
    if row == n:
        return 1
    count = 0
    for col in range(n):
        if col in cols or (row + col) in diag1 or (row - col) in diag2:
            continue
        cols.add(col)
        diag1.add(row + col)
        diag2.add(row - col)
        count += solve(n, row + 1, cols, diag1, diag2)
        cols.remove(col)
        diag1.remove(row + col)
        diag2.remove(row - col)
    return count


if __name__ == "__main__":
    total = 0
    for _ in range(scaled(8)):
        total += solve(10, 0, set(), set(), set())
    print(total)
