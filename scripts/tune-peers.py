#!/usr/bin/env python3
"""Peer comparison and replay figures for metron tune (docs/tune.md).

On two replay tables -- the example solver's (examples/tune, measured with `metron tune run
--all`, exported with `metron tune show --csv`) and a synthetic one with a known optimum --
measures the median number of distinct evaluations until a unit within 1% of the optimum is
found, over 100 seeds, for metron's GA, random search and Optuna's TPE sampler. Also draws the
replay figures (elitism, random parents) of docs/tune.md.

    python3 -m venv /tmp/venv && /tmp/venv/bin/pip install optuna matplotlib
    /tmp/venv/bin/python scripts/tune-peers.py --metron target/release/metron \
        --example docs/tune/poisson-table.csv --out docs/tune
"""
import argparse, csv, itertools, json, math, os, statistics, subprocess, sys

SEEDS = 100


def synthetic(path):
    """5 genes x 6 values; a tilted bowl with an interaction and deterministic ruggedness.
    The optimum is found by brute force here, independently of metron."""
    rows = []
    for g in itertools.product(range(6), repeat=5):
        a, b, c, d, e = g
        rugged = ((a * 7 + b * 13 + c * 17 + d * 19 + e * 23) % 11) / 11.0
        f = 1.0 + (a - 4) ** 2 + 0.5 * (b - 1) ** 2 + 0.8 * (c - 3) ** 2 + 0.3 * abs(d - e) + 0.2 * (e - 5) ** 2 + 0.6 * rugged
        rows.append(list(g) + [f])
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["a", "b", "c", "d", "e", "fitness"])
        w.writerows(rows)
    return min(r[-1] for r in rows)


def held_out(path):
    """A second synthetic table, not used to choose the GA's settings: 4 genes x 8 values,
    multimodal (a Rastrigin-like bowl: local optima every 4 steps), optimum by brute force."""
    rows = []
    centre = (5, 2, 6, 3)
    for g in itertools.product(range(8), repeat=4):
        f = 10.0 + sum((x - o) ** 2 / 4.0 - 2.0 * math.cos(math.pi * (x - o) / 2.0) for x, o in zip(g, centre))
        rows.append(list(g) + [f])
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["p", "q", "r", "s", "fitness"])
        w.writerows(rows)
    return min(r[-1] for r in rows)


def load(path):
    with open(path) as fh:
        rd = csv.DictReader(fh)
        genes = [c for c in rd.fieldnames if c != "fitness"]
        table = {}
        for r in rd:
            f = r["fitness"].strip().lower()
            table[tuple(r[g] for g in genes)] = None if f in ("", "inf", "nan", "failed") else float(f)
    return genes, table


def metron_replay(metron, table, args):
    out = subprocess.run([metron, "--json", "tune", "replay", table, "--runs", str(SEEDS)] + args,
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def tpe(genes, table, budget, target):
    import optuna
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    values = {g: sorted({k[i] for k in table}, key=lambda v: (float(v) if v.replace('.', '', 1).lstrip('-').isdigit() else math.inf, v)) for i, g in enumerate(genes)}
    worst = max(f for f in table.values() if f is not None) * 10
    found = []
    for seed in range(SEEDS):
        study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=seed))
        seen, hit = set(), None
        for _ in range(budget * 3):
            t = study.ask()
            key = tuple(t.suggest_categorical(g, values[g]) for g in genes)
            f = table.get(key)
            study.tell(t, worst if f is None else f)
            if key not in seen:
                seen.add(key)
                if f is not None and f <= target:
                    hit = len(seen)
                    break
            if len(seen) >= budget:
                break
        found.append(hit if hit is not None else math.inf)
    return found


def median_str(xs):
    m = statistics.median(xs)
    hits = sum(1 for x in xs if x != math.inf)
    return ("never" if m == math.inf else f"{m:g}"), hits


def figures(metron, table, name, ga_args, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    variants = [
        ("roulette, elitism 1", ["--elitism", "1"]),
        ("roulette, no elitism", ["--elitism", "0"]),
        ("random parents, elitism 1", ["--elitism", "1", "--selection", "random"]),
        ("random parents, no elitism", ["--elitism", "0", "--selection", "random"]),
    ]
    fig, ax = plt.subplots(figsize=(6.4, 4))
    summary = []
    for label, extra in variants:
        s = metron_replay(metron, table, ga_args + extra)
        curve = s["mean_best_per_generation"]
        ax.plot(range(len(curve)), curve, label=label)
        summary.append((label, s))
    ax.axhline(summary[0][1]["optimum"], color="grey", linestyle=":", label="optimum")
    ax.set_xlabel("generation")
    ax.set_ylabel("mean best fitness of the generation")
    ax.set_title(f"{name} table: mean of {SEEDS} GA runs per variant", fontsize=10)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(out, f"replay-{name}.svg"))
    return summary


THESIS = ["--mutation-chance", "10"]
IMPROVED = ["--mutation", "creep", "--mutation-chance", "10", "--population", "10"]


def full_convergence(metron, table, name, ga_args, out):
    """All runs' convergence files in one plot (002 Figs. 4.3, 4.7, 4.12)."""
    import glob, tempfile
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with tempfile.TemporaryDirectory() as d:
        subprocess.run([metron, "--quiet", "tune", "replay", table, "--runs", str(SEEDS), "--cnv", d] + ga_args,
                       check=True, capture_output=True)
        fig, ax = plt.subplots(figsize=(6.4, 4))
        for f in glob.glob(os.path.join(d, "Convergence_*.cnv")):
            with open(f) as fh:
                fh.readline()
                best = [float(x) for x in fh.readline().strip().split(";")]
            ax.plot(range(len(best)), best, color="tab:blue", alpha=0.15, linewidth=0.8)
    ax.set_xscale("symlog")
    ax.set_xlabel("generation (log scale past 1)")
    ax.set_ylabel("best fitness of the generation")
    ax.set_title(f"{name} table: {SEEDS} convergence files (roulette, elitism 1)", fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.join(out, f"full-convergence-{name}.svg"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--metron", default="target/release/metron")
    ap.add_argument("--example", required=True, help="CSV from `metron tune show --csv`")
    ap.add_argument("--out", default="docs/tune")
    ap.add_argument("--figures-only", action="store_true", help="skip the peer table")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    synth = os.path.join(a.out, "synthetic-table.csv")
    held = os.path.join(a.out, "held-out-table.csv")
    optima = {"synthetic": synthetic(synth), "held-out": held_out(held)}
    tables = [
        ("example", a.example, 150, ["--population", "12"]),
        ("synthetic", synth, 300, ["--population", "30"]),
        ("held-out", held, 300, ["--population", "30"]),
    ]
    lines = ["| table | units | budget | method | median evaluations to within 1% | runs that got there |",
             "|---|---|---|---|---|---|"]
    figs = []
    for name, path, budget, pop in tables:
        genes, table = load(path)
        best = min(f for f in table.values() if f is not None)
        if name in optima:
            assert abs(best - optima[name]) < 1e-12, (name, best, optima[name])
        target = best * 1.01
        cap = ["--max-unique", str(budget)]
        if name != "held-out":
            full_convergence(a.metron, path, name, cap + pop + THESIS, a.out)
        if a.figures_only:
            if name != "held-out":
                figs.append(figures(a.metron, path, name, cap + pop + THESIS, a.out))
            continue
        rows = [
            (f"GA, thesis operators ({' '.join(pop + THESIS)})", metron_replay(a.metron, path, cap + pop + THESIS)),
            (f"GA, creep mutation ({' '.join(IMPROVED)})", metron_replay(a.metron, path, cap + IMPROVED)),
            ("random search", metron_replay(a.metron, path, ["--method", "random", "--budget", str(budget)])),
        ]
        for label, s in rows:
            m = s["median_evaluations_to_target"]
            lines.append(f"| {name} | {len(table)} | {budget} | {label} | {'never' if m is None else f'{m:g}'} | {round(s['hit_rate'] * SEEDS)}/{SEEDS} |")
        m, hits = median_str(tpe(genes, table, budget, target))
        lines.append(f"| {name} | {len(table)} | {budget} | Optuna TPE (default settings) | {m} | {hits}/{SEEDS} |")
        if name != "held-out":
            figs.append(figures(a.metron, path, name, cap + pop + THESIS, a.out))
        print("\n".join(lines[-4:]), flush=True)
    print()
    print(f"{SEEDS} seeds each")
    print("\n".join(lines))
    print()
    for summary in figs:
        for label, s in summary:
            print(f"{label}: final best median {s['final_best']['median']:.6g} mean {s['final_best']['mean']:.6g}, "
                  f"hit rate {s['hit_rate']:.2f}, mean unique {s['mean_unique_units']:.1f}")


if __name__ == "__main__":
    main()
