"""Word frequencies of generated text: split, normalise, count in a dict, top ten."""
from _size import scaled

SYLLABLES = ["ka", "lo", "mi", "ne", "su", "ta", "ri", "po", "ve", "zu", "an", "el"]


def generate_text(n_words):
    words = []
    seed = 7
    for _ in range(n_words):
        seed = (seed * 69069 + 1) & 0xFFFFFFFF
        length = 1 + (seed >> 28) % 3
        word = "".join(SYLLABLES[(seed >> (4 * k)) % len(SYLLABLES)] for k in range(length))
        if seed & 0x100:
            word = word.capitalize()
        words.append(word + ("," if seed & 0x3000 == 0 else ""))
    return " ".join(words)


def frequencies(text):
    counts = {}
    for raw in text.split():
        word = raw.strip(".,;:").lower()
        counts[word] = counts.get(word, 0) + 1
    return counts


if __name__ == "__main__":
    counts = frequencies(generate_text(scaled(600_000)))
    top = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:10]
    print(len(counts), top[0])
