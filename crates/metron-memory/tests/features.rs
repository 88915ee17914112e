//! Memory intrinsics, recursion, ambiguous bases and bad input, on small C programs.

use std::path::Path;

use metron_memory::access::VariableClass;
use metron_memory::trace::{compare, run_traced, SiteTable};
use metron_memory::{frontend, Analysis, BranchPolicy};
use metron_symbolic::binding;

fn tools_present() -> bool {
    metron_measure::tool::testing::require_all(&[&frontend::CLANG, &frontend::OPT]).is_some()
}

fn load(dir: &Path, name: &str, src: &str) -> Analysis {
    let p = dir.join(name);
    std::fs::write(&p, src).unwrap();
    Analysis::load(&p, frontend::DEFAULT_PIPELINE).unwrap()
}

const COPY: &str = r#"
#include <string.h>
#include <stdlib.h>
double buf[256];
void copy(int n, double *dst) {
  memcpy(dst, buf, sizeof(double) * (size_t)n);
  memset(buf, 0, sizeof(double) * (size_t)n);
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  double *d = malloc(sizeof(double) * 256);
  copy(n, d);
  return (int)d[0];
}
"#;

#[test]
fn memory_intrinsics_count_their_bytes_and_match_the_trace() {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let a = load(dir.path(), "copy.c", COPY);
    let b = binding([("n", 40)]);
    let c = a.count("copy", &BranchPolicy::Max, &b).unwrap();
    // memcpy reads 320 bytes of buf and writes 320 of dst; memset writes 320 of buf.
    assert_eq!(c.n_k_value.as_deref(), Some("960"));
    assert!(c.variables.iter().all(|v| v.intrinsic));
    let d = run_traced(
        &a.prepared.ir,
        &a.module,
        "copy",
        &["40".into()],
        dir.path(),
        false,
    )
    .unwrap();
    let rows = compare(&SiteTable::new(&a.module), &c, &b, &d).unwrap();
    assert!(rows.iter().all(|r| r.equal), "{rows:?}");
}

const RECURSIVE: &str = r#"
int fib(int n, int *memo) { if (n < 2) return n; memo[n] = fib(n - 1, memo) + fib(n - 2, memo); return memo[n]; }
"#;

#[test]
fn recursion_is_reported() {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let a = load(dir.path(), "fib.c", RECURSIVE);
    assert!(a.model.recursive.contains("fib"));
    let c = a
        .count("fib", &BranchPolicy::Max, &binding([("n", 5)]))
        .unwrap();
    assert!(
        c.notes.iter().any(|n| n.contains("recursion")),
        "{:?}",
        c.notes
    );
}

const AMBIGUOUS: &str = r#"
double A[8], B[8];
void pick(int c, int i) { double *p = c ? A : B; p[i] = 1.0; }
"#;

#[test]
fn select_of_two_globals_is_ambiguous() {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let a = load(dir.path(), "pick.c", AMBIGUOUS);
    let f = &a.model.functions["pick"];
    assert_eq!(f.sites.len(), 1);
    assert_eq!(f.sites[0].variable.class, VariableClass::Ambiguous);
    assert_eq!(f.sites[0].variable.name, "A|B");
}

#[test]
fn bad_input_is_named() {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("broken.ll");
    std::fs::write(&p, "define void @f( {\n").unwrap();
    let e = Analysis::load(&p, frontend::DEFAULT_PIPELINE)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("broken.ll") && e.contains("unsupported LLVM version"),
        "{e}"
    );
    let e = Analysis::load(&dir.path().join("missing.c"), frontend::DEFAULT_PIPELINE)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("missing.c") && e.contains("no such file"), "{e}");
    let p = dir.path().join("bad.c");
    std::fs::write(&p, "int f( {").unwrap();
    let e = Analysis::load(&p, frontend::DEFAULT_PIPELINE)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("bad.c"), "{e}");
}

#[test]
fn bitcode_input_gives_the_same_counts() {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/memory/kernels.c");
    let bc = dir.path().join("k.bc");
    frontend::CLANG
        .run(
            [
                "-O1",
                "-Xclang",
                "-disable-llvm-passes",
                "-fno-discard-value-names",
                "-emit-llvm",
                "-c",
            ]
            .iter()
            .map(|s| s.to_string())
            .chain([
                src.display().to_string(),
                "-o".into(),
                bc.display().to_string(),
            ]),
            None,
        )
        .unwrap();
    let a = Analysis::load(&bc, frontend::DEFAULT_PIPELINE).unwrap();
    let c = a
        .count("matmul", &BranchPolicy::Max, &binding([("n", 6)]))
        .unwrap();
    assert_eq!(
        c.n_k_value.as_deref(),
        Some((2 * 216 + 36).to_string().as_str())
    );
}

const PHASES: &str = r#"
#include <stdlib.h>
double A[4096];
double s;
/* 1000 stores in a tight loop, then a long compute-only loop, then 1000 more stores. */
void phases(int n) {
  for (int i = 0; i < n; i++) A[i] = i;
  double x = 0;
  for (int i = 0; i < 50 * n; i++) x = x * 0.5 + i;
  for (int i = 0; i < n; i++) A[n + i] = x;
}
void steady(int n) {
  double x = 0;
  for (int i = 0; i < n; i++) { x = x * 0.5 + i; x = x * 0.25 + i; A[i] = x; }
}
int main(int argc, char **argv) { int n = atoi(argv[2]); if (argv[1][0] == 'p') phases(n); else steady(n); return 0; }
"#;

#[test]
fn bursts_separate_phased_from_steady_access() {
    if !tools_present() {
        return;
    }
    use metron_memory::trace::{burstiness, read_stream};
    let dir = tempfile::tempdir().unwrap();
    let a = load(dir.path(), "phases.c", PHASES);
    let run = |f: &str| {
        let d = run_traced(
            &a.prepared.ir,
            &a.module,
            f,
            &[f.into(), "1000".into()],
            dir.path(),
            true,
        )
        .unwrap();
        let recs = read_stream(d.stream.as_ref().unwrap()).unwrap();
        assert_eq!(recs.len(), if f == "phases" { 2000 } else { 1000 });
        assert!(recs
            .windows(2)
            .all(|w| w[0].instruction <= w[1].instruction));
        burstiness(&recs, 500).unwrap()
    };
    let p = run("phases");
    let s = run("steady");
    // A steady loop is a metronome: every gap equal, every window alike.
    assert!(s.gap_cv < 0.05, "{s:?}");
    assert!(s.fano < 0.5, "{s:?}");
    // Two dense phases separated by a long silence: heavy-tailed gaps, clustered windows.
    assert!(p.gap_cv > 3.0, "{p:?}");
    assert!(p.fano > 10.0, "{p:?}");
    assert!(p.in_bursts > 0.9, "{p:?}");
}

const SHAPES: &str = r#"
#include <stdlib.h>
double A[4096];
double t;
void shapes(int n) {
  for (int i = 0; i < n; i += 2) A[i] = 1.0;            /* (X /u 2) count */
  for (int i = n; i > 0; i--) A[i] += 2.0;              /* down-counting */
  for (int i = 0; i <= n; i++) t += A[i];               /* inclusive bound */
  for (int i = 0; i < n; i += 3)                        /* triangle under a strided loop */
    for (int j = 0; j < i; j++) A[j] = t;
}
int main(int argc, char **argv) { shapes(atoi(argv[1])); return 0; }
"#;

#[test]
fn strided_down_counting_and_inclusive_loops_match_the_trace() {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let a = load(dir.path(), "shapes.c", SHAPES);
    for n in [0i64, 1, 2, 5, 10, 31] {
        let b = binding([("n", n)]);
        let c = a.count("shapes", &BranchPolicy::Max, &b).unwrap();
        let d = run_traced(
            &a.prepared.ir,
            &a.module,
            "shapes",
            &[n.to_string()],
            dir.path(),
            false,
        )
        .unwrap();
        let rows = compare(&SiteTable::new(&a.module), &c, &b, &d).unwrap();
        assert!(
            rows.iter().all(|r| r.equal),
            "n={n}: {rows:?} notes {:?}",
            c.notes
        );
        // Hand count: ceil(n/2) writes; 2n (read+write); n+1 reads of A and of t, n+1 writes
        // of t; sum over i = 0, 3, 6, ... < n of i writes (plus one read of t each).
        let tri: i64 = (0..n).step_by(3).sum();
        let expect = (n + 1) / 2 + 2 * n + 3 * (n + 1) + 2 * tri;
        assert_eq!(
            c.n_k_value.as_deref(),
            Some(expect.to_string().as_str()),
            "n={n}"
        );
    }
}

/// IR from a newer LLVM (the `memory(none)` attribute is LLVM 16+) is named, with the reason
/// that `opt-14` could not read it; text that is not IR at all is named by our reader.
#[test]
fn ir_from_a_newer_llvm_and_non_ir_are_named() {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("llvm17.ll");
    std::fs::write(
        &p,
        "define void @f(ptr %p) memory(none) {\nentry:\n  ret void\n}\n",
    )
    .unwrap();
    let e = Analysis::load(&p, frontend::DEFAULT_PIPELINE)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("llvm17.ll") && e.contains("unsupported LLVM version"),
        "{e}"
    );
    let e = metron_memory::ir::parse_module("hello, world\n", "notes.txt")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("notes.txt:1") && e.contains("expected textual LLVM IR"),
        "{e}"
    );
}
