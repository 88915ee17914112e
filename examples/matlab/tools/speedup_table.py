# Regenerates the speedup table of docs/matlab.md: every pass on every corpus program,
# checked and timed in Octave with `metron matlab check`, plus profile-guided versions.
# Usage: cargo build -p metron && python3 examples/matlab/tools/speedup_table.py [--versioned-only]
import json, subprocess, os, glob
import sys
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "../../.."))
B = os.environ.get("METRON", os.path.join(ROOT, "target/debug/metron"))
TMP = os.environ.get("TMPDIR", "/tmp") + "/metron-matlab-table"
os.makedirs(TMP, exist_ok=True)
rows = []
VERSIONED_ONLY = "--versioned-only" in sys.argv
for f in sorted(glob.glob(os.path.join(ROOT, "examples/matlab/*.m"))):
    name = os.path.basename(f)[:-2]
    src = open(f).read()
    is_fn = src.lstrip().startswith("function")
    size = 20000
    entry = ["--entry", f"{name}({size})"] if is_fn else []
    for passes, extra in [] if VERSIONED_ONLY else [("dslice", []), ("inline", []), ("range", []), ("reorder", []), ("repack", ["--force"]), ("vectorize", []), ("vectorize,inline,range,repack", ["--force"])]:
        out = f"{TMP}/{name}_{passes.replace(',', '_')}.m"
        r = subprocess.run([B, "matlab", "transform", f, "--passes", passes, "-o", out] + extra, capture_output=True, text=True)
        if r.returncode != 0 or open(out).read() == src:
            rows.append((name, passes, "no change", "", ""))
            continue
        r = subprocess.run([B, "--json", "matlab", "check", f, out, "--repetitions", "15"] + entry, capture_output=True, text=True)
        if not r.stdout.strip():
            rows.append((name, passes, "error", r.stderr.strip()[:60], "")); continue
        rep = json.loads(r.stdout)
        t = rep["timing"]; ci = t["speedup_ci"]
        err = max((v["max_rel_error"] for v in rep["variables"]), default=0)
        rows.append((name, passes, "equal" if rep["equal"] else "DIFFERENT", f'{t["speedup"]:.2f} [{ci["lo"]:.2f}, {ci["hi"]:.2f}]', f"{err:.1e}"))
    if is_fn:
        r = subprocess.run([B, "--json", "matlab", "profile", f, "--sizes", "4,16,64,256,1024,4096", "--repetitions", "10", "-o", f"{TMP}/{name}_pgo.m"], capture_output=True, text=True)
        if r.returncode == 0:
            prof = json.loads(r.stdout)
            p = prof["threshold"]
            if p is None:
                rows.append((name, "profile-guided", "p = ∅ (never profitable)", "", "")); continue
            # the versioned program against the original, below and above p
            for size in sorted(set([max(2, p // 2), p, 4 * p, size])):
                r = subprocess.run([B, "--json", "matlab", "check", f, f"{TMP}/{name}_pgo.m", "--entry", f"{name}({size})", "--repetitions", "15"], capture_output=True, text=True)
                rep = json.loads(r.stdout); t = rep["timing"]; ci = t["speedup_ci"]
                slower = "SLOWER" if ci["hi"] < 1 else ""
                rows.append((name, f"versioned p={p}, n={size}", ("equal" if rep["equal"] else "DIFFERENT") + (" " + slower if slower else ""), f'{t["speedup"]:.2f} [{ci["lo"]:.2f}, {ci["hi"]:.2f}]', ""))
        else:
            rows.append((name, "profile-guided", "not vectorisable", "", ""))
print("| program | pass(es) | results | speedup [95% CI] | max rel. error |")
print("|---|---|---|---|---|")
for r in rows:
    print("| " + " | ".join(r) + " |")
