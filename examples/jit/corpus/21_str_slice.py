"""String work: slicing and searching."""
import sys

N = int(24_000_000 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0))


def run(n):
    text = "abcdefghijklmnopqrstuvwxyz" * 40
    found = 0
    for i in range(n):
        j = i % 1000
        piece = text[j:j + 5]
        if piece.startswith("e"):
            found += 1
    return found


print(run(N))
