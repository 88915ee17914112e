//! Branch probabilities from a profile and from source annotations (issue 5: "per-branch
//! probabilities from annotations or from a profile").

use std::path::Path;

use metron_memory::branch::{profile_text, read_profile};
use metron_memory::trace::{branch_profile, compare, run_traced, SiteTable};
use metron_memory::{frontend, Analysis, BranchPolicy};
use metron_symbolic::binding;

fn tools_present() -> bool {
    metron_measure::tool::testing::require_all(&[&frontend::CLANG, &frontend::OPT]).is_some()
}

fn value(c: &metron_memory::FunctionCounts, b: &metron_symbolic::Binding) -> f64 {
    let r = c.n_k.evaluate(b).unwrap();
    r.numer().to_string().parse::<f64>().unwrap() / r.denom().to_string().parse::<f64>().unwrap()
}

/// The data-dependent kernel `branchy` (x[i] = (i mod 7)/7, so `x[i] > 0.5` holds for 3 of
/// every 7 i): with the probabilities of its traced run, the static count equals the traced
/// count exactly, per variable too.
#[test]
fn profile_of_a_traced_run_reproduces_its_count() {
    if !tools_present() {
        return;
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/memory/kernels.c");
    let a = Analysis::load(&src, frontend::DEFAULT_PIPELINE).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for n in [1i64, 7, 50, 100] {
        let args = ["branchy".to_string(), n.to_string()];
        let d = run_traced(
            &a.prepared.ir,
            &a.module,
            "branchy",
            &args,
            dir.path(),
            false,
        )
        .unwrap();
        assert_eq!(d.exit_code, 0);
        let profile = branch_profile(&a.module, &d);
        // The `if` ran n times, true for i mod 7 in {4, 5, 6} (independent of the code).
        let expect_true = (0..n).filter(|i| i % 7 >= 4).count() as u64;
        assert!(
            profile.iter().any(|p| p.site.function == "branchy"
                && p.taken == expect_true
                && p.taken + p.not_taken == n as u64
                && p.site.true_target.starts_with("if.then")),
            "n={n}: {profile:?}"
        );
        let text = profile_text(&profile);
        let path = dir.path().join("branches.prof");
        std::fs::write(&path, &text).unwrap();
        let p = metron_memory::branch::read_profile_file(&path).unwrap();
        let b = binding([("n", n)]);
        let c = a
            .count("branchy", &BranchPolicy::Probabilities(p), &b)
            .unwrap();
        let rows = compare(&SiteTable::new(&a.module), &c, &b, &d).unwrap();
        let dynamic: u64 = rows.iter().map(|r| r.dynamic_count).sum();
        // Hand count: n condition loads, 4 per true arm, 2 per false arm.
        assert_eq!(
            dynamic,
            n as u64 + 4 * expect_true + 2 * (n as u64 - expect_true)
        );
        // Probabilities are read back as the fractions taken/total, so equality is exact,
        // per variable too.
        let stat = value(&c, &b);
        assert_eq!(stat, dynamic as f64, "n={n}");
        for r in &rows {
            assert!(r.equal, "n={n}: {r:?}");
        }
        // max and mean do not reproduce it (the branch is neither always taken nor 50/50).
        if n >= 50 {
            let max = value(&a.count("branchy", &BranchPolicy::Max, &b).unwrap(), &b);
            assert!(max > dynamic as f64 + 1.0);
        }
    }
}

const ANNOTATED: &str = r#"
#include <stdlib.h>
double G[2][256];
double total;
void pragma_form(int n, double *x) {
  for (int i = 0; i < n; i++) {
#pragma metron branch(0.25)
    if (x[i] > 0.5)
      G[0][i] = x[i] * x[i] + G[1][i];
    else
      total += 1.0;
  }
}
void comment_form(int n, double *x) {
  for (int i = 0; i < n; i++) {
    // metron: branch(0.75)
    if (x[i] > 0.5)
      G[0][i] = x[i] * x[i] + G[1][i];
    else
      total += 1.0;
  }
}
int main(int argc, char **argv) {
  int n = atoi(argv[1]);
  double *x = calloc(256, sizeof(double));
  pragma_form(n, x);
  comment_form(n, x);
  return 0;
}
"#;

/// Hand counts: per iteration 1 condition load, then 4 accesses (true) or 2 (false):
/// p = 1/4 gives n (1 + 1 + 1.5) = 3.5 n, p = 3/4 gives n (1 + 3 + 0.5) = 4.5 n.
#[test]
fn annotations_set_the_probability_of_the_if_they_precede() {
    if !tools_present() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("annotated.c");
    std::fs::write(&src, ANNOTATED).unwrap();
    let a = Analysis::load(&src, frontend::DEFAULT_PIPELINE).unwrap();
    let (p, notes) = a.annotation_probabilities().unwrap();
    assert!(notes.is_empty(), "{notes:?}");
    assert_eq!(p.len(), 4, "{p:?}");
    let policy = BranchPolicy::Probabilities(p);
    let b = binding([("n", 40)]);
    let c = a.count("pragma_form", &policy, &b).unwrap();
    assert_eq!(c.n_k_value.as_deref(), Some("140"));
    let c = a.count("comment_form", &policy, &b).unwrap();
    assert_eq!(c.n_k_value.as_deref(), Some("180"));
}

#[test]
fn bad_profiles_name_the_line() {
    let e = read_profile("# header\nbranchy for.body if.then if.else 3\n", "b.prof")
        .unwrap_err()
        .to_string();
    assert!(e.contains("b.prof:2"), "{e}");
}
