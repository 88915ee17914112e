"""In-place quicksort (Hoare partition, recursion on the smaller half) of a list of floats."""
from _size import scaled


def quicksort(a, lo, hi):
    while lo < hi:
        pivot = a[(lo + hi) // 2]
        i, j = lo, hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if j - lo < hi - i:
            quicksort(a, lo, j)
            lo = i
        else:
            quicksort(a, i, hi)
            hi = j


if __name__ == "__main__":
    n = scaled(600_000)
    data = [((i * 7919) % 100_003) / 3.0 for i in range(n)]
    quicksort(data, 0, n - 1)
    assert all(data[k] <= data[k + 1] for k in range(n - 1))
    print(data[0], data[-1])
