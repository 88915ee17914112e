"""Recursive merge sort of lists of integers, checked against sorted()."""
from _size import scaled


def merge_sort(items):
    if len(items) <= 1:
        return items
    mid = len(items) // 2
    left = merge_sort(items[:mid])
    right = merge_sort(items[mid:])
    merged = []
    i = j = 0
    while i < len(left) and j < len(right):
        if left[i] <= right[j]:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
    merged.extend(left[i:])
    merged.extend(right[j:])
    return merged


if __name__ == "__main__":
    data = [(i * 2654435761) % 1_000_003 for i in range(scaled(400_000))]
    result = merge_sort(data)
    assert result == sorted(data)
    print(result[0], result[len(result) // 2], result[-1])
