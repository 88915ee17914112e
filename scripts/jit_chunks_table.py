"""The Markdown tables of scripts/jit-chunks: k(τ) of three chunks of SumEuler beside each
other, and 001 Table 5 per chunk beside the paper's row (001 §5.2.2, §5.3).

    python3 scripts/jit_chunks_table.py OUT_DIR     (reads OUT_DIR/{first,middle,last}.json,
                                                    the `metron --json jit tau` output)
"""
import json
import os
import sys

CHUNKS = ("first", "middle", "last")
MODELS = ("CM0", "CMC", "CMW")
# 001 Table 5, chunked SumEuler (CMW, middle chunks, 16-core Xeon, Pycket).
PAPER = {"stable_k": 4.31, "range": 1460.0, "min_granularity": "129 µs"}


def seconds(t):
    if t < 1e-3:
        return "%.1f µs" % (t * 1e6)
    if t < 1.0:
        return "%.3g ms" % (t * 1e3)
    return "%.3g s" % t


def load(out):
    exps = {}
    for chunk in CHUNKS:
        path = os.path.join(out, chunk + ".json")
        with open(path) as f:
            exps[chunk] = json.load(f)
    return exps


def by_tau(exp):
    return {p["tau"]: p for p in exp["points"]}


def ratio(a, b):
    return "%.3g" % (a / b) if a and b else "–"


def k_table(exps):
    """One row per τ: each chunk's task time and k CMW, then what the cost model smooths:
    the time ratio of the last chunk to the first against their k ratio."""
    points = {c: by_tau(exps[c]) for c in CHUNKS}
    taus = sorted(set.intersection(*(set(p) for p in points.values())))
    rows = [
        "| τ | first: time, k CMW | middle: time, k CMW | last: time, k CMW "
        "| time last/first | Γ CMW last/first | k CMW first/last |",
        "|---|---|---|---|---|---|---|",
    ]
    for tau in taus:
        cells = []
        for c in CHUNKS:
            p = points[c][tau]
            k = p["k"].get("CMW")
            cells.append("%s, %s" % (seconds(p["time"]["median"]), "%.3g" % k if k else "–"))
        first, last = points["first"][tau], points["last"][tau]
        rows.append(
            "| %d | %s | %s | %s | %s |"
            % (
                tau,
                " | ".join(cells),
                ratio(last["time"]["median"], first["time"]["median"]),
                ratio(last["gamma"].get("CMW"), first["gamma"].get("CMW")),
                ratio(first["k"].get("CMW"), last["k"].get("CMW")),
            )
        )
    return "\n".join(rows)


def table5(exps):
    rows = [
        "| chunk | model | stable k | range of k | min. task granularity for stable k "
        "| task times measured |",
        "|---|---|---|---|---|---|",
    ]
    for c in CHUNKS:
        times = [p["time"]["median"] for p in exps[c]["points"]]
        for r in exps[c]["table5"]:
            g = r["min_granularity_seconds"]
            rows.append(
                "| %s | %s | %.3g | %.3g | %s%s | %s – %s |"
                % (
                    c,
                    r["model"],
                    r["stable_k"],
                    r["range"],
                    "≤ " if r["below_smallest"] else "",
                    seconds(g),
                    seconds(min(times)),
                    seconds(max(times)),
                )
            )
    rows.append(
        "| 001 Table 5 (middle chunks) | CMW | %.3g | %.4g | %s | – |"
        % (PAPER["stable_k"], PAPER["range"], PAPER["min_granularity"])
    )
    return "\n".join(rows)


def main():
    exps = load(sys.argv[1])
    print(k_table(exps))
    print()
    print(table5(exps))


if __name__ == "__main__":
    main()
