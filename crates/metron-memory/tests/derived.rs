//! Issue 13: loops whose step is an argument (`i += stride`, `ii += b`). Their count
//! max(0, ceil((n − start) / stride)) is no polynomial, so it becomes a derived parameter that
//! metron computes from the arguments: the user gives n and stride, never a trip count. Every
//! count is worked by hand (in the comment beside it) and equals the instrumented run.

use metron_memory::trace::{compare, run_traced, SiteTable};
use metron_memory::{frontend, Analysis, BranchPolicy};
use metron_symbolic::binding;

const KERNELS: &str = r#"
#include <stdlib.h>
#include <string.h>
double A[4096], B[4096];
void strided(int s0, int n, int st) { for (int i = s0; i < n; i += st) A[i] += B[i]; }
void strided_le(int s0, int n, int st) { for (int i = s0; i <= n; i += st) A[i] = 2.0 * A[i]; }
void rows(int m, int n, int st) { for (int i = 0; i < m; i += st) for (int j = 0; j < n; j++) A[j] += B[i]; }
int main(int argc, char **argv) {
  int a = atoi(argv[2]), b = atoi(argv[3]), c = atoi(argv[4]);
  if (!strcmp(argv[1], "strided")) strided(a, b, c);
  else if (!strcmp(argv[1], "strided_le")) strided_le(a, b, c);
  else rows(a, b, c);
  return (int)A[0];
}
"#;

/// Function, its arguments, N_k worked by hand.
type Case<'a> = (&'a str, [(&'a str, i64); 3], u64);

#[test]
fn parametric_steps_are_counted_through_a_derived_parameter() {
    if metron_measure::tool::testing::require_all(&[&frontend::CLANG, &frontend::OPT]).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("strided.c");
    std::fs::write(&p, KERNELS).unwrap();
    let a = Analysis::load(&p, frontend::DEFAULT_PIPELINE).unwrap();
    for f in ["strided", "strided_le", "rows"] {
        let l = &a.model.functions[f].loops[0];
        assert_eq!(l.source, "derived", "{f}: {l:?}");
    }
    let (s0, n, st) = ("s0", "n", "st");
    let cases: [Case; 7] = [
        // i = 0, 3, 6, 9: 4 iterations of 3 accesses (A and B read, A written).
        ("strided", [(s0, 0), (n, 10), (st, 3)], 12),
        // start above the bound: no iteration.
        ("strided", [(s0, 5), (n, 3), (st, 2)], 0),
        // step above the range: i = 0 only.
        ("strided", [(s0, 0), (n, 10), (st, 20)], 3),
        // i = 2, 9, ..., 93: 14 iterations.
        ("strided", [(s0, 2), (n, 100), (st, 7)], 42),
        // i = 0, 3, 6, 9 (<= 9): 4 iterations of 2 accesses.
        ("strided_le", [(s0, 0), (n, 9), (st, 3)], 8),
        // i = 1, 5, 9: 3 iterations.
        ("strided_le", [(s0, 1), (n, 10), (st, 4)], 6),
        // rows: i = 0, 5, 10 (m = 12), 3 x 7 inner iterations of 3 accesses.
        ("rows", [("m", 12), (n, 7), (st, 5)], 63),
    ];
    for (f, params, want) in cases {
        let b = binding(params.iter().copied());
        let c = a.count(f, &BranchPolicy::Max, &b).unwrap();
        let mut args = vec![f.to_string()];
        args.extend(params.iter().map(|(_, v)| v.to_string()));
        let d = run_traced(&a.prepared.ir, &a.module, f, &args, dir.path(), false).unwrap();
        let rows = compare(&SiteTable::new(&a.module), &c, &b, &d).unwrap();
        assert!(
            rows.iter().all(|r| r.equal),
            "{f} {params:?}: {rows:#?}\nnotes: {:?}",
            c.notes
        );
        assert_eq!(
            c.n_k_value.as_deref(),
            Some(want.to_string().as_str()),
            "{f} {params:?}"
        );
        assert!(
            c.derived.keys().all(|k| k.starts_with("q_")),
            "{:?}",
            c.derived
        );
    }
    // A step of 0 never ends: a clear error naming the parameter, not a count.
    let b = binding([(s0, 0), (n, 10), (st, 0)]);
    let e = a
        .count("strided", &BranchPolicy::Max, &b)
        .unwrap_err()
        .to_string();
    assert!(e.contains("st = 0") && e.contains("q_"), "{e}");
}
