//! Static counts against the dynamic counts of the instrumented program (the ground truth
//! 003 lacked), on the kernels of examples/memory/kernels.c, and against hand counts.

use std::path::Path;

use metron_memory::trace::{compare, run_traced, SiteTable};
use metron_memory::{frontend, Analysis, BranchPolicy};
use metron_symbolic::binding;

fn tools_present() -> bool {
    metron_measure::tool::testing::require_all(&[&frontend::CLANG, &frontend::OPT]).is_some()
}

fn kernels() -> Analysis {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/memory/kernels.c");
    Analysis::load(&src, frontend::DEFAULT_PIPELINE).unwrap()
}

/// Runs `kernels KERNEL n` instrumented and returns (static, dynamic) totals, asserting
/// per-variable equality when `exact`.
fn check(a: &Analysis, kernel: &str, n: i64, policy: &BranchPolicy, exact: bool) -> (f64, u64) {
    let b = binding([("n", n)]);
    let counts = a.count(kernel, policy, &b).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let dynamic = run_traced(
        &a.prepared.ir,
        &a.module,
        kernel,
        &[kernel.to_string(), n.to_string()],
        dir.path(),
        false,
    )
    .unwrap();
    assert_eq!(dynamic.exit_code, 0);
    assert_eq!(dynamic.entries, 1, "{kernel} entered once");
    let rows = compare(&SiteTable::new(&a.module), &counts, &b, &dynamic).unwrap();
    assert!(!rows.is_empty());
    if exact {
        for r in &rows {
            assert!(r.equal, "{kernel} n={n}: {r:?}");
        }
    }
    let stat: f64 = counts
        .n_k
        .evaluate(&b)
        .map(|r| {
            r.numer().to_string().parse::<f64>().unwrap()
                / r.denom().to_string().parse::<f64>().unwrap()
        })
        .unwrap();
    (stat, rows.iter().map(|r| r.dynamic_count).sum())
}

#[test]
fn static_equals_dynamic_on_loop_kernels() {
    if !tools_present() {
        return;
    }
    let a = kernels();
    for kernel in ["matmul", "stencil", "triangular", "calls"] {
        for n in [0, 1, 2, 9] {
            let (s, d) = check(&a, kernel, n, &BranchPolicy::Max, true);
            assert_eq!(s, d as f64, "{kernel} n={n}");
        }
    }
}

/// Hand counts of the formulas: matmul reads A and B n^3 times and writes C n^2 times;
/// the stencil reads G 5(n-2)^2 + ... ; the helper `dot` runs sum_{i<n} (i+1) iterations.
#[test]
fn formulas_match_hand_counts() {
    if !tools_present() {
        return;
    }
    let a = kernels();
    for n in [3i64, 10, 33] {
        let b = binding([("n", n)]);
        let nk = |k: &str| {
            a.count(k, &BranchPolicy::Max, &b)
                .unwrap()
                .n_k_value
                .unwrap()
        };
        assert_eq!(nk("matmul"), (2 * n * n * n + n * n).to_string());
        // H = 0.2*(5 reads of G): 5 reads + 1 write per interior point; copy: 1 read + 1 write.
        assert_eq!(nk("stencil"), (8 * (n - 2) * (n - 2)).to_string());
        // lower: n(n+1)/2 points, 1 read x + 1 write G; upper: n(n-1)/2 points, read G, read+write total.
        assert_eq!(
            nk("triangular"),
            (n * (n + 1) + 3 * n * (n - 1) / 2).to_string()
        );
        // y[i] written n times; dot reads x and y (i+1) times for i < n.
        assert_eq!(nk("calls"), (n + n * (n + 1)).to_string());
    }
}

#[test]
fn data_dependent_branch_is_bounded_by_the_policy() {
    if !tools_present() {
        return;
    }
    let a = kernels();
    for n in [5i64, 20, 64] {
        let (max, d) = check(&a, "branchy", n, &BranchPolicy::Max, false);
        let (sum, _) = check(&a, "branchy", n, &BranchPolicy::Sum, false);
        // Every iteration reads x[i] for the condition, then one arm: x[i] twice + G[1][i] +
        // a store (4), or `total` read + written (2). max takes 5 per iteration, sum 7.
        assert_eq!(max, 5.0 * n as f64);
        assert_eq!(sum, 7.0 * n as f64);
        assert!(d as f64 <= max, "dynamic {d} > max {max}");
        assert!(
            d as i64 >= 3 * n,
            "dynamic {d} below the cheapest path {}",
            3 * n
        );
    }
}

#[test]
fn access_stream_has_one_record_per_access() {
    if !tools_present() {
        return;
    }
    let a = kernels();
    let dir = tempfile::tempdir().unwrap();
    let d = run_traced(
        &a.prepared.ir,
        &a.module,
        "matmul",
        &["matmul".into(), "4".into()],
        dir.path(),
        true,
    )
    .unwrap();
    let recs = metron_memory::trace::read_stream(d.stream.as_ref().unwrap()).unwrap();
    assert_eq!(recs.len(), 2 * 64 + 16);
    assert_eq!(recs.iter().filter(|r| r.write).count(), 16);
    // C[i*n+j] is written at 16 distinct addresses, 8 bytes apart.
    let mut w: Vec<u64> = recs.iter().filter(|r| r.write).map(|r| r.address).collect();
    w.sort();
    w.dedup();
    assert_eq!(w.len(), 16);
    assert!(w.windows(2).all(|p| p[1] - p[0] == 8));
}

/// Per-arm probabilities (from annotations or a profile): `if (x[i] > 0.5)` taken with
/// probability 1/4 costs n (condition) + n/4 * 4 + 3n/4 * 2 = 3.5 n accesses (hand count);
/// `mean` is the same with 1/2: n + 2n + n = 4n.
#[test]
fn branch_probabilities_weight_the_arms() {
    if !tools_present() {
        return;
    }
    let a = kernels();
    let b = binding([("n", 40)]);
    let p: BranchPolicy = "if.then=0.25".parse().unwrap();
    assert_eq!(
        a.count("branchy", &p, &b).unwrap().n_k_value.as_deref(),
        Some("140")
    );
    assert_eq!(
        a.count("branchy", &BranchPolicy::Mean, &b)
            .unwrap()
            .n_k_value
            .as_deref(),
        Some("160")
    );
    assert!("if.then=1.5".parse::<BranchPolicy>().is_err());
    assert!("often".parse::<BranchPolicy>().is_err());
}
