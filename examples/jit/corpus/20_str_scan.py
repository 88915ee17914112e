"""String work: scanning characters and comparing."""
import sys

N = int(640 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)) + 1


def run(rounds):
    text = "the quick brown fox jumps over the lazy dog " * 2000
    vowels = 0
    for _ in range(rounds):
        for ch in text:
            if ch == "a" or ch == "e" or ch == "i" or ch == "o" or ch == "u":
                vowels += 1
    return vowels


print(run(N))
