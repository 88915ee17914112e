"""Parse a mixed stream of tokens as numbers, falling back through exceptions (EAFP style)."""
from _size import scaled


def parse(token):
    try:
        return int(token)
    except ValueError:
        pass
    try:
        return float(token)
    except ValueError:
        pass
    if token in ("true", "false"):
        return token == "true"
    raise KeyError(token)


if __name__ == "__main__":
    tokens = ["12", "3.5", "true", "x7", "-4", "1e3", "false", "??", "0", "2.25"]
    ints = floats = bools = bad = 0
    for i in range(scaled(1_200_000)):
        try:
            v = parse(tokens[i % len(tokens)])
        except KeyError:
            bad += 1
            continue
        if isinstance(v, bool):
            bools += 1
        elif isinstance(v, int):
            ints += v
        else:
            floats += v
    print(ints, "%.1f" % floats, bools, bad)
