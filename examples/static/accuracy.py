#!/usr/bin/env python3
# Regenerates the tables of docs/static-accuracy.md: builds every example with gcc and clang at
# -O0/-O2/-O3, runs `metron static` and `metron static validate`, prints Markdown.
# Usage: python3 examples/static/accuracy.py  (needs target/debug/metron, gcc, clang, valgrind)
import json, subprocess, time, os, tempfile
OUT = tempfile.mkdtemp(prefix="metron-static-accuracy-")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
M = os.environ.get("METRON", os.path.join(ROOT, "target", "debug", "metron"))
EX = os.path.join(ROOT, "examples", "static")
CLANG = os.environ.get("CLANG", "clang-14")
# (source, C compiler, program arguments, model parameters, extra compiler flags)
cases = [
    ("stream.c", "gcc", ["20000"], ["n=20000"], []),
    ("stream.c", "gcc", ["1013"], ["n=1013"], ["-fno-inline"]),
    ("triangular.c", "gcc", ["300"], ["n=300", "m=150"], []),
    ("dgemm.c", "gcc", ["64"], ["n=64", "nn=4096"], []),
    ("cg.cpp", "g++", ["2000", "20"], ["n=2000", "max_iter=20"], []),
    ("branches.c", "gcc", ["301"], ["n=301"], []),
    ("calls.c", "gcc", ["1000", "3"], ["n=1000", "k=3", "n_43=64"], []),
]
# ONLY=branches.c,stream.c limits the run to some examples.
if os.environ.get("ONLY"):
    cases = [c for c in cases if c[0] in os.environ["ONLY"].split(",")]
rows = []
for src, cc, args, params, extra in cases:
    for opt in ["-O0", "-O2", "-O3"]:
        for comp in ([cc, "clang++" if cc == "g++" else "clang"]):
            b = f"{OUT}/{src.split('.')[0]}_{comp}{opt}{''.join(extra)}"
            # Debian installs clang 14 as clang-14 (scripts/install-deps); CLANG overrides it.
            exe = {"clang": CLANG, "clang++": CLANG.replace("clang", "clang++", 1)}.get(comp, comp)
            subprocess.run([exe, "-g", opt, *extra, f"{EX}/{src}", "-o", b], check=True)
            level = " ".join([opt, *extra])
            pargs = sum((["--param", p] for p in params), [])
            t0 = time.time(); subprocess.run([M, "static", b, "--json"] + pargs, capture_output=True); ta = time.time() - t0
            t0 = time.time()
            out = subprocess.run([M, "static", "validate", b, "--json", "-q"] + pargs + ["--"] + args, capture_output=True, text=True)
            tv = time.time() - t0
            if out.returncode != 0:
                rows.append((src, comp, level, "ERROR", out.stderr.strip()[:120], "", "", ta, tv)); continue
            for r in json.loads(out.stdout):
                if "loop@" in r["region"] or r["measured"]["total"] == 0: continue
                worst = max([c["error_percent"] for c in r["categories"]] or [0.0])
                rows.append((src, comp, level, r["region"][:60], r["predicted"]["total"], r["measured"]["total"], r["error_percent"], worst, ta, tv))
print("| example | compiler | level | function | predicted | measured | total error % | worst category (>=1%) error % |")
print("|---|---|---|---|---:|---:|---:|---:|")
for r in rows:
    if r[3] == "ERROR":
        print(f"| {r[0]} | {r[1]} | {r[2]} | ERROR: {r[4]} | | | | |"); continue
    print(f"| {r[0]} | {r[1]} | {r[2]} | `{r[3]}` | {r[4]:.0f} | {r[5]:.0f} | {r[6]:.3f} | {r[7]:.3f} |")
print()
print("| example | compiler | level | analysis (s) | callgrind validation (s) | ratio |")
print("|---|---|---|---:|---:|---:|")
seen = set()
for r in rows:
    k = r[:3]
    if k in seen or r[3] == "ERROR": continue
    seen.add(k)
    print(f"| {r[0]} | {r[1]} | {r[2]} | {r[-2]:.2f} | {r[-1]:.2f} | {r[-2]/r[-1]:.2f} |")
