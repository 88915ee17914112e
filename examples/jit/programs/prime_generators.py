"""Primes from a chain of generators: candidates, a trial-division filter, pairwise twins."""
from _size import scaled
import itertools


def candidates():
    yield 2
    n = 3
    while True:
        yield n
        n += 2


def primes():
    found = []
    for n in candidates():
        limit = int(n ** 0.5)
        is_prime = True
        for p in found:
            if p > limit:
                break
            if n % p == 0:
                is_prime = False
                break
        if is_prime:
            found.append(n)
            yield n


def twins(seq):
    prev = next(seq)
    for p in seq:
        if p - prev == 2:
            yield prev, p
        prev = p


if __name__ == "__main__":
    pairs = list(itertools.islice(twins(primes()), scaled(10_000)))
    print(len(pairs), pairs[-1])
