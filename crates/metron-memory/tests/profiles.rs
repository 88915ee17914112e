//! Issue 13: the two things one run tells the static count. A loop that exits on loaded data
//! (knapsack's `w >= weight[i]`) gets its trip count from a profile recorded at one size and
//! predicts another; a kernel called several times with different arguments (`norms(n)`,
//! `norms(n - 1)`) is validated against the sum of its activations' N_k. Every count is
//! worked by hand in the comment beside it, and equals the instrumented run.

use metron_memory::activation::ActivationSum;
use metron_memory::loop_profile::{activation_records, loop_records, profile_text};
use metron_memory::trace::{compare, compare_activations, run_traced, SiteTable};
use metron_memory::{frontend, Analysis, BranchPolicy};
use metron_symbolic::binding;

/// A 0/1-knapsack-style sweep without a data-dependent `if`, so that the loop exit is the
/// only data-dependent control: item i weighs i % 7 + 1.
const SPREAD: &str = r#"#include <stdlib.h>

void spread(int items, int cap, const int *weight, long *acc)
{
    for (int i = 0; i < items; i++)
        for (int w = cap; w >= weight[i]; w--)
            acc[w] += acc[w - weight[i]];
}

int main(int argc, char **argv)
{
    int items = atoi(argv[1]), cap = atoi(argv[2]);
    int *weight = malloc(sizeof(int) * items);
    long *acc = calloc(cap + 1, sizeof(long));
    for (int i = 0; i < items; i++)
        weight[i] = i % 7 + 1;
    acc[0] = 1;
    spread(items, cap, weight, acc);
    return (int)(acc[cap] & 1);
}
"#;

fn total(rows: &[metron_memory::trace::ValidationRow], var: &str, write: bool) -> String {
    rows.iter()
        .filter(|r| {
            r.variable == var && (r.kind == metron_memory::access::AccessKind::Write) == write
        })
        .map(|r| r.static_count.clone())
        .collect()
}

#[test]
fn data_dependent_exit_is_predicted_from_a_profile_at_another_size() {
    if metron_measure::tool::testing::require_all(&[&frontend::CLANG, &frontend::OPT]).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("spread.c");
    std::fs::write(&src, SPREAD).unwrap();
    let mut a = Analysis::load(&src, frontend::DEFAULT_PIPELINE).unwrap();
    // Without a profile: the loop is named by its source line and the count asks for it.
    let [d] = a.data_loops.as_slice() else {
        panic!("one data loop expected: {:?}", a.data_loops)
    };
    assert!(
        d.location
            .as_deref()
            .is_some_and(|l| l.ends_with("spread.c:6")),
        "{d:?}"
    );
    let b = binding([("items", 56), ("cap", 300)]);
    let c = a.count("spread", &BranchPolicy::Max, &b).unwrap();
    assert!(c.n_k_value.is_none(), "{:?}", c.n_k_value);
    assert!(
        c.notes
            .iter()
            .any(|n| n.contains("spread.c:6") && n.contains("--write-branch-profile")),
        "{:?}",
        c.notes
    );

    // Profile at items = 28, cap = 100: 4 full cycles of weights 1..7, mean 4, so the loop
    // runs 28 · (100 − 4 + 1) = 2716 times, reached once per item.
    let d = run_traced(
        &a.prepared.ir,
        &a.module,
        "spread",
        &["28".into(), "100".into()],
        dir.path(),
        false,
    )
    .unwrap();
    let loops = loop_records(&a.module, &a.data_loops, &d);
    assert_eq!(loops.len(), 1);
    assert_eq!((loops[0].reached, loops[0].iterations), (28, 2716));
    let acts = activation_records(&a.model, "spread", &d);
    assert_eq!(acts.len(), 1);
    assert_eq!(acts[0].args, binding([("items", 28), ("cap", 100)]));
    let notes = a
        .use_profile(&profile_text(&loops, &acts), "spread.prof")
        .unwrap();
    assert!(notes.is_empty(), "{notes:?}");

    // Predicted at items = 56, cap = 300 (8 cycles, mean weight still 4): 56 · 297 = 16632
    // iterations; per iteration acc is read twice and written once, weight read twice (the
    // subscript and the exit test), plus the guard's read once per item: 2 · 16632 + 56.
    let c = a.count("spread", &BranchPolicy::Max, &b).unwrap();
    let d = run_traced(
        &a.prepared.ir,
        &a.module,
        "spread",
        &["56".into(), "300".into()],
        dir.path(),
        false,
    )
    .unwrap();
    let rows = compare(&SiteTable::new(&a.module), &c, &b, &d).unwrap();
    assert_eq!(total(&rows, "acc", true), "16632");
    assert_eq!(total(&rows, "acc", false), "33264");
    assert_eq!(total(&rows, "weight", false), "33320");
    assert!(rows.iter().all(|r| r.equal), "{rows:#?}");
    assert!(
        c.notes
            .iter()
            .any(|n| n.contains("from the profile") && n.contains("spread.c:6")),
        "{:?}",
        c.notes
    );

    // At cap = 5 some items (weights 6, 7) never enter: the fit (cap − 4 + 1 per reach) is a
    // model of the mean, not the clipped sum; it predicts 56 · 2 = 112 where the loop runs
    // Σ max(0, 5 − w + 1) = 8 · (5 + 4 + 3 + 2 + 1) = 120 times.
    let small = binding([("items", 56), ("cap", 5)]);
    let c = a.count("spread", &BranchPolicy::Max, &small).unwrap();
    let d = run_traced(
        &a.prepared.ir,
        &a.module,
        "spread",
        &["56".into(), "5".into()],
        dir.path(),
        false,
    )
    .unwrap();
    let rows = compare(&SiteTable::new(&a.module), &c, &small, &d).unwrap();
    let acc_w = rows
        .iter()
        .find(|r| {
            r.variable == "acc"
                && r.dynamic_count > 0
                && r.kind == metron_memory::access::AccessKind::Write
        })
        .unwrap();
    assert_eq!(
        (acc_w.static_count.as_str(), acc_w.dynamic_count),
        ("112", 120)
    );
}

/// `norms`' shape: one kernel, called twice with different lengths.
const TWICE: &str = r#"#include <stdlib.h>

static void scale(int n, int stride, double *x, double *out)
{
    double s = 0.0;
    for (int i = 0; i < n; i += stride) {
        x[i] = 2.0 * x[i];
        s += x[i];
    }
    out[0] = s;
}

int main(int argc, char **argv)
{
    int n = atoi(argv[1]);
    double *x = calloc(n, sizeof(double)), out[1];
    scale(n, 1, x, out);
    scale(n - 30, 1, x + 1, out);
    scale(n - 30, 1, x + 2, out);
    return (int)out[0];
}
"#;

#[test]
fn validate_sums_the_activations_of_a_kernel_called_with_several_arguments() {
    if metron_measure::tool::testing::require_all(&[&frontend::CLANG, &frontend::OPT]).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("twice.c");
    // `static` off so that the function keeps its name and arguments at -O1 front end.
    std::fs::write(&src, TWICE.replace("static void", "void")).unwrap();
    let a = Analysis::load(&src, frontend::DEFAULT_PIPELINE).unwrap();
    let b = binding([("n", 50), ("stride", 1)]);
    let c = a.count("scale", &BranchPolicy::Max, &b).unwrap();
    let d = run_traced(
        &a.prepared.ir,
        &a.module,
        "scale",
        &["50".into()],
        dir.path(),
        false,
    )
    .unwrap();
    let table = SiteTable::new(&a.module);
    // One activation at n = 50 is 3 · 50 + 1 = 151 (x read twice and written once per i, out
    // written once); the run made three: n = 50, 20, 20: 151 + 2 · 61 = 273, x read
    // 2 · 90 = 180 times and written 90 times.
    let one = compare(&table, &c, &b, &d).unwrap();
    assert!(!one.iter().all(|r| r.equal));
    let acts = activation_records(&a.model, "scale", &d);
    let mut seen: Vec<_> = acts.iter().map(|a| (a.args["n"], a.count)).collect();
    seen.sort();
    assert_eq!(seen, vec![(20, 2), (50, 1)]);
    let sum = ActivationSum::from_run(&a.model, &c, &b, &acts, d.activations_lost).unwrap();
    let rows = compare_activations(&table, &c, &sum, &d).unwrap();
    assert!(rows.iter().all(|r| r.equal), "{rows:#?}");
    assert_eq!(total(&rows, "x", false), "180");
    assert_eq!(total(&rows, "x", true), "90");
    assert_eq!(total(&rows, "out", true), "3");
    assert_eq!(sum.evaluate_text(&c.n_k).as_deref(), Some("273"));
    assert!(
        sum.notes
            .iter()
            .any(|n| n.contains("3 times with 2 argument sets")),
        "{:?}",
        sum.notes
    );
}
