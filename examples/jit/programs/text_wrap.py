"""Word-wrap and justify paragraphs of generated text (string slicing, joining, padding)."""
from _size import scaled

WORDS = ("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor "
         "incididunt ut labore et dolore magna aliqua").split()


def paragraph(seed, n):
    out = []
    for _ in range(n):
        seed = (seed * 1103515245 + 12345) & 0x7FFFFFFF
        out.append(WORDS[seed % len(WORDS)])
    return " ".join(out)


def justify(text, width):
    lines, current, length = [], [], 0
    for word in text.split():
        if current and length + len(current) + len(word) > width:
            gaps = len(current) - 1 or 1
            spaces = width - length
            line = ""
            for i, w in enumerate(current[:-1]):
                line += w + " " * (spaces // gaps + (1 if i < spaces % gaps else 0))
            lines.append((line + current[-1]).ljust(width))
            current, length = [], 0
        current.append(word)
        length += len(word)
    lines.append(" ".join(current).ljust(width))
    return lines


if __name__ == "__main__":
    total = 0
    for p in range(scaled(10_000)):
        total += len(justify(paragraph(p, 200), 60 + p % 20))
    print(total)
