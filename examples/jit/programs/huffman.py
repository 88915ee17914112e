"""Huffman coding of generated text: frequency table, heap-built tree, encode and decode."""
from _size import scaled
import heapq


class Node:
    def __init__(self, weight, symbol=None, left=None, right=None):
        self.weight = weight
        self.symbol = symbol
        self.left = left
        self.right = right

    def __lt__(self, other):
        return self.weight < other.weight


def build_tree(text):
    freq = {}
    for ch in text:
        freq[ch] = freq.get(ch, 0) + 1
    heap = [Node(w, s) for s, w in sorted(freq.items())]
    heapq.heapify(heap)
    while len(heap) > 1:
        a = heapq.heappop(heap)
        b = heapq.heappop(heap)
        heapq.heappush(heap, Node(a.weight + b.weight, None, a, b))
    return heap[0]


def codes(node, prefix="", table=None):
    table = {} if table is None else table
    if node.symbol is not None:
        table[node.symbol] = prefix or "0"
    else:
        codes(node.left, prefix + "0", table)
        codes(node.right, prefix + "1", table)
    return table


def decode(bits, root):
    out = []
    node = root
    for b in bits:
        node = node.left if b == "0" else node.right
        if node.symbol is not None:
            out.append(node.symbol)
            node = root
    return "".join(out)


if __name__ == "__main__":
    alphabet = "etaoinshrdlucmfwypvbgkjqxz     "
    text = "".join(alphabet[(i * i + 3 * i) % 31 % len(alphabet)] for i in range(scaled(1_000_000)))
    root = build_tree(text)
    table = codes(root)
    bits = "".join(table[ch] for ch in text)
    assert decode(bits, root) == text
    print(len(bits))
