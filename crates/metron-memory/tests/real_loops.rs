//! Issue 13: the constructs of real kernels that stopped `metron memory` or were counted as
//! data-dependent. Every count here is worked by hand (in the comment above it) and the
//! instrumented run must agree with it, so neither side is checked against itself.

use std::path::Path;

use metron_memory::trace::{compare, run_traced, SiteTable};
use metron_memory::{frontend, Analysis, BranchPolicy};
use metron_symbolic::binding;

const KERNELS: &str = r#"
#include <stdlib.h>
#include <string.h>
double A[128], B[128], M[64][64];
int cnt;

void modc(int n) { for (int i = 0; i < n; i++) if (i % 3 == 0) A[i] = B[i]; }
void lower(int n) { for (int i = 0; i < n; i++) for (int j = 0; j < n; j++) if (j <= i) M[i][j] += B[j]; }
void sw(int n) {
  for (int i = 0; i < n; i++)
    switch (i % 4) { case 0: A[i] = 1; break; case 1: A[i] = B[i]; break; default: B[i] = 2; }
}
void steps(int T, int n) { for (int t = 1; t <= T; t++) for (int i = 0; i < n; i++) A[i] += B[i]; }
void tern(int n, int m) { for (int i = 0; i < n; i++) { int k = i < m ? i : m; for (int j = 0; j < k; j++) A[j] += 1; } }
void guarded(int n, int m) { for (int i = 0; i < n; i++) { if (m > 3) for (int j = 0; j < m; j++) A[j] += B[i]; } }
void evens(int n) { for (int i = 0; i < n; i++) { if (i > 2 && i % 2 == 0) A[i] = 0; else B[i] = A[i]; } }
void atom(int n, int *c) { for (int i = 0; i < n; i++) __atomic_fetch_add(c, 1, __ATOMIC_SEQ_CST); }
void copies(int n) { for (int i = 0; i < n; i++) memcpy(&A[i], &B[i], 4 * sizeof(double)); }
void fill(int i, int n) { if (i >= n) return; A[i] = B[i]; fill(i + 1, n); }
static void bump(int v) { A[v] += 1.0; }
void nonlin(int n) { for (int i = 0; i < n; i++) bump(i * i % 7); }
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
void clamp(int n, int m) { for (int i = 0; i < n; i++) for (int j = 0; j <= MIN(MAX(i - 2, 0), m); j++) A[j] += 1; }
static inline int imax(int a, int b) { return a > b ? a : b; }
static inline int imin(int a, int b) { return a < b ? a : b; }
void window(int w, int r) {
  for (int x = 0; x < w; x++)
    for (int k = imax(0, x - r); k <= imin(w - 1, x + r); k++) A[x] += B[k];
}
void dataexit(int n) { for (int i = 0; i < n; i++) for (int w = n; w >= (int)B[i]; w--) A[w] += 1; }

int main(int argc, char **argv) {
  int n = atoi(argv[2]), m = argc > 3 ? atoi(argv[3]) : 0;
  const char *k = argv[1];
  if (!strcmp(k, "modc")) modc(n);
  else if (!strcmp(k, "lower")) lower(n);
  else if (!strcmp(k, "sw")) sw(n);
  else if (!strcmp(k, "steps")) steps(m, n);
  else if (!strcmp(k, "tern")) tern(n, m);
  else if (!strcmp(k, "guarded")) guarded(n, m);
  else if (!strcmp(k, "evens")) evens(n);
  else if (!strcmp(k, "atom")) atom(n, &cnt);
  else if (!strcmp(k, "copies")) copies(n);
  else if (!strcmp(k, "fill")) fill(m, n);
  else if (!strcmp(k, "nonlin")) nonlin(n);
  else if (!strcmp(k, "clamp")) clamp(n, m);
  else if (!strcmp(k, "window")) window(n, m);
  else if (!strcmp(k, "dataexit")) dataexit(n);
  return (int)A[0];
}
"#;

fn tools_present() -> bool {
    metron_measure::tool::testing::require_all(&[&frontend::CLANG, &frontend::OPT]).is_some()
}

fn load(dir: &Path) -> Analysis {
    let p = dir.join("kernels.c");
    std::fs::write(&p, KERNELS).unwrap();
    Analysis::load(&p, frontend::DEFAULT_PIPELINE).unwrap()
}

/// Static N_k of `function` with `params`, checked equal to the traced run per variable.
fn check(a: &Analysis, dir: &Path, function: &str, params: &[(&str, i64)], argv: &[i64]) -> u64 {
    let b = binding(params.iter().copied());
    let c = a.count(function, &BranchPolicy::Max, &b).unwrap();
    let mut args = vec![function.to_string()];
    args.extend(argv.iter().map(|v| v.to_string()));
    let d = run_traced(&a.prepared.ir, &a.module, function, &args, dir, false).unwrap();
    let rows = compare(&SiteTable::new(&a.module), &c, &b, &d).unwrap();
    assert!(
        rows.iter().all(|r| r.equal),
        "{function} {params:?}: {rows:#?}\nnotes: {:?}",
        c.notes
    );
    c.n_k_value.unwrap().parse().unwrap()
}

#[test]
fn index_conditions_are_counted_exactly() {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let a = load(dir.path());
    // i % 3 == 0 for i < 80: i = 0, 3, ..., 78 = 27 values, 2 accesses each.
    assert_eq!(check(&a, dir.path(), "modc", &[("n", 80)], &[80]), 54);
    // j <= i over 40 x 40: 40*41/2 = 820 points, 3 accesses (M load, M store, B load).
    assert_eq!(check(&a, dir.path(), "lower", &[("n", 40)], &[40]), 2460);
    // i % 4 for i < 30: case 0 (8 values) 1 store, case 1 (8) 1 load + 1 store,
    // default (14) 1 store: 8 + 16 + 14 = 38.
    assert_eq!(check(&a, dir.path(), "sw", &[("n", 30)], &[30]), 38);
    // i > 2 && i % 2 == 0 for i < 20: i = 4, 6, ..., 18 = 8 values (1 store);
    // the other 12 take the else (1 load + 1 store): 8 + 24 = 32.
    assert_eq!(check(&a, dir.path(), "evens", &[("n", 20)], &[20]), 32);
    // The guard `m > 3` around a loop: m = 5, n = 6: 6 * 5 * 3 = 90; m = 3: 0.
    assert_eq!(
        check(&a, dir.path(), "guarded", &[("n", 6), ("m", 5)], &[6, 5]),
        90
    );
    assert_eq!(
        check(&a, dir.path(), "guarded", &[("n", 6), ("m", 3)], &[6, 3]),
        0
    );
    let c = a
        .count("modc", &BranchPolicy::Max, &binding([("n", 80)]))
        .unwrap();
    assert!(
        !c.notes.iter().any(|n| n.contains("depends on data")),
        "{:?}",
        c.notes
    );
}

#[test]
fn max_and_min_trip_counts_need_no_parameter() {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let a = load(dir.path());
    // for (t = 1; t <= T; t++) over n: 3 accesses (A load, A store, B load) per point.
    assert_eq!(
        check(&a, dir.path(), "steps", &[("T", 4), ("n", 10)], &[10, 4]),
        120
    );
    assert_eq!(
        check(&a, dir.path(), "steps", &[("T", 0), ("n", 10)], &[10, 0]),
        0
    );
    // j < min(i, m): n = 10, m = 4: sum_i min(i, 4) = 0+1+2+3 + 6*4 = 30, 2 accesses each.
    assert_eq!(
        check(&a, dir.path(), "tern", &[("n", 10), ("m", 4)], &[10, 4]),
        60
    );
    for f in ["steps", "tern"] {
        let r = &a.model.functions[f];
        assert!(
            r.loops.iter().all(|l| l.source == "scev"),
            "{f}: {:?}",
            r.loops
        );
    }
}

/// Nested extremes and clamping helpers: the bounds of real stencils and generated nests.
#[test]
fn nested_extremes_and_helper_bounds_need_no_parameter() {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let a = load(dir.path());
    // j <= min(max(i - 2, 0), m), n = 10, m = 3: per i the bound is 0,0,0,1,2,3,3,3,3,3, so
    // 1+1+1+2+3+4+4+4+4+4 = 28 iterations, 2 accesses each.
    assert_eq!(
        check(&a, dir.path(), "clamp", &[("n", 10), ("m", 3)], &[10, 3]),
        56
    );
    // k from imax(0, x - r) to imin(w - 1, x + r), w = 10, r = 2: 3 + 4 + 6*5 + 4 + 3 = 44
    // iterations, 3 accesses (A[x] load and store, B[k] load).
    assert_eq!(
        check(&a, dir.path(), "window", &[("w", 10), ("r", 2)], &[10, 2]),
        132
    );
    // r = 0 (only the centre) and r larger than the window (every k each time).
    assert_eq!(
        check(&a, dir.path(), "window", &[("w", 10), ("r", 0)], &[10, 0]),
        30
    );
    assert_eq!(
        check(&a, dir.path(), "window", &[("w", 4), ("r", 9)], &[4, 9]),
        48
    );
    for f in ["clamp", "window"] {
        let r = &a.model.functions[f];
        assert!(
            r.loops.iter().all(|l| l.source != "unknown"),
            "{f}: {:?}",
            r.loops
        );
    }
    // An exit that compares loaded data has no static count: it says so, and names the
    // parameter and how to measure it.
    let d = &a.model.functions["dataexit"];
    assert!(d.loops.iter().any(|l| l.source == "data"), "{:?}", d.loops);
    assert!(
        d.notes
            .iter()
            .any(|n| n.contains("loaded from memory") && n.contains("--write-branch-profile")),
        "{:?}",
        d.notes
    );
}

#[test]
fn atomics_intrinsics_recursion_and_nonlinear_arguments() {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let a = load(dir.path());
    // __atomic_fetch_add: one read and one write of *c per iteration.
    assert_eq!(check(&a, dir.path(), "atom", &[("n", 25)], &[25]), 50);
    // memcpy of 4 doubles: 32 bytes read + 32 written per iteration (bytes, see docs).
    assert_eq!(check(&a, dir.path(), "copies", &[("n", 10)], &[10]), 640);
    // Tail recursion, turned into a loop by tailcallelim: n - i activations, 2 accesses each.
    assert_eq!(
        check(&a, dir.path(), "fill", &[("i", 3), ("n", 20)], &[20, 3]),
        34
    );
    // bump(i*i % 7): the argument is no affine form, but bump's count does not depend on it.
    assert_eq!(check(&a, dir.path(), "nonlin", &[("n", 12)], &[12]), 24);
}

const FIB: &str = r#"
int memo[64];
int fib(int n) { if (n < 2) return n; memo[n] = fib(n - 1) + fib(n - 2); return memo[n]; }
"#;

#[test]
fn recursion_that_stays_recursive_says_it_needs_an_annotation() {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("fib.c");
    std::fs::write(&p, FIB).unwrap();
    let a = Analysis::load(&p, frontend::DEFAULT_PIPELINE).unwrap();
    let c = a
        .count("fib", &BranchPolicy::Max, &binding([("n", 5)]))
        .unwrap();
    assert!(
        c.notes
            .iter()
            .any(|n| n.contains("recursion") && n.contains("needs an annotation")),
        "{:?}",
        c.notes
    );
}

/// The independent counter (valgrind lackey on the -O0 build, which shares no code with the
/// IR analysis) agrees with the static count on every kernel without data-dependent control.
#[test]
fn independent_counter_agrees_at_o0() {
    use metron_memory::independent;
    let Some(_) = metron_measure::tool::testing::require_all(&[
        &frontend::CLANG,
        &frontend::OPT,
        &metron_measure::tool::VALGRIND,
    ]) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let a = load(dir.path());
    type Case<'a> = (&'a str, &'a [(&'a str, i64)], &'a [i64]);
    let cases: &[Case] = &[
        ("modc", &[("n", 20)], &[20]),
        ("lower", &[("n", 9)], &[9]),
        ("sw", &[("n", 13)], &[13]),
        ("evens", &[("n", 11)], &[11]),
        ("steps", &[("T", 3), ("n", 5)], &[5, 3]),
        ("tern", &[("n", 8), ("m", 3)], &[8, 3]),
        ("guarded", &[("n", 4), ("m", 5)], &[4, 5]),
        ("atom", &[("n", 7)], &[7]),
        ("fill", &[("i", 2), ("n", 9)], &[9, 2]),
        ("nonlin", &[("n", 6)], &[6]),
    ];
    for (f, params, argv) in cases {
        let b = binding(params.iter().copied());
        let c = a.count(f, &BranchPolicy::Max, &b).unwrap();
        let work = dir.path().join(f);
        std::fs::create_dir_all(&work).unwrap();
        let exe = independent::build(&a.prepared.jobs, f, &work).unwrap();
        let mut args = vec![f.to_string()];
        args.extend(argv.iter().map(|v| v.to_string()));
        let nargs = a.module.function(f).unwrap().args.len();
        let ind = independent::run(&exe, &args, nargs, &work).unwrap();
        let s = independent::side_by_side(&a.model, &c, &b, &[], ind.clone());
        if *f == "atom" {
            // valgrind turns `lock xadd` into a load and a compare-and-swap: 2 reads, 1 write
            // per atomic against metron's 1 and 1; the difference is explained, not hidden.
            assert_eq!((ind.reads, ind.writes), (14, 7), "{ind:?}");
            assert!(
                s.reasons.iter().any(|r| r.contains("atomics")),
                "{:?}",
                s.reasons
            );
            continue;
        }
        assert!(
            s.agrees,
            "{f}: static {:?}/{:?}, lackey {ind:?}",
            s.static_reads, s.static_writes
        );
    }
}

/// Two files, a header found through `-I`, a size from `-D`, and the same through a
/// compilation database: the helper in the second file is counted inside the kernel's loop.
#[test]
fn several_files_with_flags_and_a_compilation_database() {
    use metron_memory::sources::BuildInput;
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir_all(d.join("inc")).unwrap();
    std::fs::write(
        d.join("inc/h.h"),
        "double helper(const double *x, int m);\n",
    )
    .unwrap();
    std::fs::write(
        d.join("a.c"),
        "#include \"h.h\"\ndouble X[1000];\ndouble kern(int n) { double s = 0; for (int i = 0; i < n; i++) s += SCALE * helper(X, i); return s; }\n",
    )
    .unwrap();
    std::fs::write(
        d.join("b.c"),
        "#include \"h.h\"\ndouble helper(const double *x, int m) { double s = 0; for (int k = 0; k < m; k++) s += x[k]; return s; }\n",
    )
    .unwrap();
    // sum_{i<n} i = n(n-1)/2 reads of X: 45 at n = 10.
    let b = binding([("n", 10)]);
    // --cflags apply where metron runs (here the test's directory), so -I is absolute.
    let flags = BuildInput {
        files: vec![d.join("a.c"), d.join("b.c")],
        cflags: vec![format!("-I{}", d.join("inc").display()), "-DSCALE=2".into()],
        compile_commands: None,
    };
    let a = Analysis::load_build(&flags, frontend::DEFAULT_PIPELINE).unwrap();
    let c = a.count("kern", &BranchPolicy::Max, &b).unwrap();
    assert_eq!(c.n_k_value.as_deref(), Some("45"));
    let db = d.join("compile_commands.json");
    std::fs::write(
        &db,
        format!(
            r#"[{{"directory": "{d}", "file": "a.c", "command": "cc -Iinc -DSCALE=2 -c a.c"}},
                {{"directory": "{d}", "file": "b.c", "arguments": ["cc", "-Iinc", "-c", "b.c"]}}]"#,
            d = d.display()
        ),
    )
    .unwrap();
    let from_db = BuildInput {
        files: Vec::new(),
        cflags: Vec::new(),
        compile_commands: Some(db),
    };
    let a = Analysis::load_build(&from_db, frontend::DEFAULT_PIPELINE).unwrap();
    let c = a.count("kern", &BranchPolicy::Max, &b).unwrap();
    assert_eq!(c.n_k_value.as_deref(), Some("45"));
}
