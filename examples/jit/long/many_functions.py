"""A long-running program whose loops PyPy frees and recompiles: many generated functions,
each with a counting loop with a branch (so guards get bridges), called in rounds.

    pypy3 many_functions.py FUNCTIONS ITERATIONS ROUNDS

Every call of f_i runs its inner loop exactly ITERATIONS times, so the program runs
FUNCTIONS * ITERATIONS * ROUNDS inner iterations in all; it prints that number last.
"""
import sys


def make(n_functions):
    src = []
    for i in range(n_functions):
        # varied bodies: a branch taken every 5th iteration, a product, a modulus
        src.append(
            "def f%d(n):\n"
            "    s = 0\n"
            "    for j in range(n):\n"
            "        if j %% 5 == %d:\n"
            "            s += 3\n"
            "        s += (j * %d) %% 7\n"
            "    return s\n" % (i, i % 5, i + 1)
        )
    namespace = {}
    exec("".join(src), namespace)
    return [namespace["f%d" % i] for i in range(n_functions)]


def main():
    n_functions = int(sys.argv[1]) if len(sys.argv) > 1 else 400
    iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
    rounds = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    functions = make(n_functions)
    checksum = 0
    for _ in range(rounds):
        for f in functions:
            checksum += f(iterations)
    print("checksum", checksum)
    print("inner iterations", n_functions * iterations * rounds)


if __name__ == "__main__":
    main()
