"""Group generated words into anagram classes (sorted-key dict of lists), then rank them."""
from _size import scaled


def words(n):
    letters = "aeinorstlcdu"
    out = []
    seed = 5
    for _ in range(n):
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        length = 3 + seed % 4
        out.append("".join(letters[(seed >> (3 * k)) % len(letters)] for k in range(length)))
    return out


def groups(ws):
    classes = {}
    for w in ws:
        classes.setdefault("".join(sorted(w)), []).append(w)
    ranked = sorted(classes.values(), key=lambda g: (-len(g), g[0]))
    return len(classes), len(ranked[0])


if __name__ == "__main__":
    print(*groups(words(scaled(300_000))))
