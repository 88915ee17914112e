#!/usr/bin/env python3
"""The numbers behind 003 Figs. 5.1-5.6, from `metron contention experiment --csv` samples.

Usage: contention_figures.py OUTDIR   (reads OUTDIR/samples.csv, writes OUTDIR/fig5_*.svg,
prints markdown). Standard library only. Each function states the figure's claim it checks.
"""
import csv
import statistics as st
import sys
from collections import defaultdict

POSTED = "posted writes; one bank; busy 3"
CACHED = "MPPA-like; one bank (as 003)"
ISSUE5 = "one bank; 1-cycle (issue 5)"


def load(path):
    rows = []
    with open(path) as f:
        for r in csv.DictReader(f):
            for k in ("threads", "banks", "t_seq", "t_par", "n"):
                r[k] = float(r[k])
            for k in ("err1", "err2", "err3", "err4"):
                r[k] = float(r[k]) if r[k] else float("nan")
            r["inc"] = (r["t_par"] - r["t_seq"]) / r["t_seq"]
            rows.append(r)
    # model 3's feature x = N_k sum_{i != k} N_i / t_i,seq (003 Eq. 4.3), from the group
    groups = defaultdict(list)
    for r in rows:
        groups[(r["setup"], r["group"])].append(r)
    for g in groups.values():
        for i, r in enumerate(g):
            r["x3"] = r["n"] * sum(o["n"] / o["t_seq"] for j, o in enumerate(g) if j != i)
    return rows


def sel(rows, setup, function, t=None):
    return [r for r in rows if r["setup"] == setup and r["function"] == function
            and (t is None or r["threads"] == t)]


def pct(v):
    return f"{100 * v:.2f}%"


def q(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(p * (len(v) - 1) + 0.5))]


def slope(rs):
    """Least-squares slope of t_par against t_seq through the origin (Fig. 5.1's lines)."""
    return sum(r["t_par"] * r["t_seq"] for r in rs) / sum(r["t_seq"] ** 2 for r in rs)


def corr(xs, ys):
    mx, my = st.fmean(xs), st.fmean(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / (sxx * syy) ** 0.5 if sxx and syy else float("nan")


def svg(path, title, xlabel, ylabel, series):
    """A scatter plot: series = [(label, colour, [(x, y)])]."""
    pts = [p for _, _, s in series for p in s]
    if not pts:
        return
    x0, x1 = min(p[0] for p in pts), max(p[0] for p in pts)
    y0, y1 = min(min(p[1] for p in pts), 0), max(p[1] for p in pts)
    x1, y1 = (x1 if x1 > x0 else x0 + 1), (y1 if y1 > y0 else y0 + 1)
    W, H, L, B = 640, 420, 70, 50
    sx = lambda x: L + (x - x0) / (x1 - x0) * (W - L - 20)
    sy = lambda y: H - B - (y - y0) / (y1 - y0) * (H - B - 30)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<text x="{W / 2}" y="18" text-anchor="middle">{title}</text>',
           f'<line x1="{L}" y1="{H - B}" x2="{W - 20}" y2="{H - B}" stroke="black"/>',
           f'<line x1="{L}" y1="30" x2="{L}" y2="{H - B}" stroke="black"/>',
           f'<text x="{W / 2}" y="{H - 12}" text-anchor="middle">{xlabel}</text>',
           f'<text x="14" y="{H / 2}" transform="rotate(-90 14 {H / 2})" text-anchor="middle">{ylabel}</text>']
    for i in range(5):
        xv, yv = x0 + i * (x1 - x0) / 4, y0 + i * (y1 - y0) / 4
        out.append(f'<text x="{sx(xv)}" y="{H - B + 16}" text-anchor="middle">{xv:.3g}</text>')
        out.append(f'<text x="{L - 4}" y="{sy(yv) + 4}" text-anchor="end">{yv:.3g}</text>')
    if y0 < 0 < y1:
        out.append(f'<line x1="{L}" y1="{sy(0)}" x2="{W - 20}" y2="{sy(0)}" stroke="#999" stroke-dasharray="4"/>')
    for i, (label, colour, s) in enumerate(series):
        out.append(f'<text x="{L + 10}" y="{40 + 16 * i}" fill="{colour}">{label} ({len(s)})</text>')
        out += [f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="1.6" fill="{colour}" fill-opacity="0.6"/>' for x, y in s]
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out))


COLOURS = {2: "#d62728", 3: "#2ca02c", 4: "#1f77b4"}


def fig51(rows, outdir):
    print("### Fig. 5.1: gen, t_par against t_seq\n")
    print("(steeper subset: share of the samples whose t_par/t_seq exceeds their T's slope by more than 5% of t_seq)\n")
    print("| setup | T | samples | median Δt/t_seq | slope t_par/t_seq | share with Δt/t_seq < 0.5% | 95th pct Δt/t_seq | steeper subset |")
    print("|---|---|---|---|---|---|---|---|")
    for setup in (POSTED, CACHED, ISSUE5):
        for t in (2, 3, 4):
            rs = sel(rows, setup, "gen", t)
            if not rs:
                continue
            inc = [r["inc"] for r in rs]
            small = sum(1 for v in inc if v < 0.005) / len(inc)
            k = slope(rs)
            steep = sum(1 for r in rs if r["t_par"] / r["t_seq"] > k + 0.05) / len(rs)
            print(f"| {setup} | {t} | {len(rs)} | {pct(st.median(inc))} | {k:.4f} | {pct(small)} | {pct(q(inc, 0.95))} | {pct(steep)} |")
        svg(f"{outdir}/fig5_1_{'posted' if setup == POSTED else 'cached' if setup == CACHED else 'issue5'}.svg",
            f"gen on '{setup}': t_par against t_seq", "t_seq (cycles)", "t_par (cycles)",
            [(f"T = {t}", COLOURS[t], [(r["t_seq"], r["t_par"]) for r in sel(rows, setup, "gen", t)]) for t in (2, 3, 4)])
    print()


def fig52(rows, outdir):
    print("### Fig. 5.2: mul, faster in parallel\n")
    print("| setup | T | samples | median Δt/t_seq | faster in parallel |")
    print("|---|---|---|---|---|")
    for setup in (CACHED, POSTED, ISSUE5):
        for t in (2, 3, 4):
            rs = sel(rows, setup, "mul", t)
            if not rs:
                continue
            faster = sum(1 for r in rs if r["t_par"] < r["t_seq"])
            print(f"| {setup} | {t} | {len(rs)} | {pct(st.median(r['inc'] for r in rs))} | {faster} ({pct(faster / len(rs))}) |")
        svg(f"{outdir}/fig5_2_{'posted' if setup == POSTED else 'cached' if setup == CACHED else 'issue5'}.svg",
            f"mul on '{setup}': t_par against t_seq", "t_seq (cycles)", "t_par (cycles)",
            [(f"T = {t}", COLOURS[t], [(r["t_seq"], r["t_par"]) for r in sel(rows, setup, "mul", t)]) for t in (2, 3, 4)])
    print()


def fig53_to_56(rows, outdir, setup):
    gen = lambda t: sel(rows, setup, "gen", t)
    print(f"### Figs. 5.3-5.6 on '{setup}', gen (trained on T = 3, median training)\n")
    c1 = [r["inc"] / (r["threads"] - 1) for r in gen(3)]
    print(f"Fig. 5.3, per-sample c1 = Δt/((T−1) t_seq) at T = 3: median {st.median(c1):.5f}, "
          f"5th-95th percentile {q(c1, 0.05):.5f} to {q(c1, 0.95):.5f}, "
          f"min {min(c1):.5f}, max {max(c1):.5f}; "
          f"{pct(sum(1 for c in c1 if abs(c - st.median(c1)) > 0.5 * abs(st.median(c1))) / len(c1))} "
          f"of the samples lie more than 50% from the median.\n")
    tag = "posted" if setup == POSTED else "cached"
    svg(f"{outdir}/fig5_3_{tag}.svg", f"Fig. 5.3 on '{setup}': per-sample c1, gen, T = 3", "t_seq (cycles)", "c1",
        [("T = 3", COLOURS[3], [(r["t_seq"], r["inc"] / 2) for r in gen(3)])])
    print("| figure | model | T | median Δt − Δt^j (cycles) | share pessimistic (Δt − Δt^j < 0) | 5th-95th pct of Δt − Δt^j | median \\|err\\|/t_seq | corr(err, plotted x) |")
    print("|---|---|---|---|---|---|---|---|")
    axis = {1: "t_seq", 2: "n", 3: "x3", 4: "x3"}
    for fig, model, ts in (("5.4", 1, (2, 4)), ("5.5", 2, (4,)), ("5.6", 3, (4,)), ("(model 4)", 4, (2, 4))):
        for t in ts:
            rs = gen(t)
            e = [r[f"err{model}"] for r in rs]
            pess = sum(1 for v in e if v < 0) / len(e)
            rel = st.median(abs(r[f"err{model}"]) / r["t_seq"] for r in rs)
            c = corr([r[axis[model]] for r in rs], e)
            print(f"| {fig} | {model} | {t} | {st.median(e):.1f} | {pct(pess)} | {q(e, 0.05):.1f} to {q(e, 0.95):.1f} | {pct(rel)} | {c:.3f} |")
    for model, x, xl in ((1, "t_seq", "t_seq"), (2, "n", "N_k"), (3, "x3", "predicted collisions x3")):
        svg(f"{outdir}/fig5_{3 + model}_{tag}.svg", f"Fig. 5.{3 + model} on '{setup}': model {model} on gen",
            xl, f"Δt − Δt^{model} (cycles)",
            [(f"T = {t}", COLOURS[t], [(r[x], r[f"err{model}"]) for r in gen(t)]) for t in ((2, 4) if model == 1 else (4,))])
    print()


def regime(rows):
    print("### The T = 2 regime against the bank busy time (posted writes, one bank, 2 IR instructions per cycle)\n")
    print("| bank busy (cycles) | gen median Δt/t_seq T = 2 / 3 / 4 | increase per other thread, T = 2 / 3 / 4 | mul T = 2 / 3 / 4 |")
    print("|---|---|---|---|")
    for busy in range(1, 7):
        setup = f"posted writes; one bank; busy {busy}"
        g = [st.median(r["inc"] for r in sel(rows, setup, "gen", t)) if sel(rows, setup, "gen", t) else float("nan") for t in (2, 3, 4)]
        m = [st.median(r["inc"] for r in sel(rows, setup, "mul", t)) if sel(rows, setup, "mul", t) else float("nan") for t in (2, 3, 4)]
        per = [g[i] / (t - 1) for i, t in enumerate((2, 3, 4))]
        print(f"| {busy} | {' / '.join(pct(v) for v in g)} | {' / '.join(pct(v) for v in per)} | {' / '.join(pct(v) for v in m)} |")
    print()


def main():
    outdir = sys.argv[1]
    rows = load(f"{outdir}/samples.csv")
    fig51(rows, outdir)
    fig52(rows, outdir)
    regime(rows)
    fig53_to_56(rows, outdir, POSTED)
    fig53_to_56(rows, outdir, CACHED)


if __name__ == "__main__":
    main()
