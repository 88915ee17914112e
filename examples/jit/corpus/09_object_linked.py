"""Pointer chasing through a linked list of objects."""
import sys

N = int(1_800 * (float(sys.argv[1]) if len(sys.argv) > 1 else 1.0)) + 1


class Node:
    def __init__(self, value, nxt):
        self.value = value
        self.next = nxt


def run(rounds):
    head = None
    for i in range(100_000):
        head = Node(i, head)
    total = 0
    for _ in range(rounds):
        node = head
        while node is not None:
            total += node.value
            node = node.next
    return total


print(run(N))
