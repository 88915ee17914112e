//! The 003 Ch. 5 experiment end to end on a few sizes: static N_k equals the traced stream
//! length for both functions (checked inside `run`), every size yields samples for T = 2..4
//! in every setup; without a cache, contention never makes a thread faster; with the
//! MPPA-like private caches and time-sliced sequential runs, `gen` (stores only) is never
//! faster in parallel while `mul` (reuse) can be (003 Figs. 5.1 and 5.2).

use std::path::Path;

use metron_memory::experiment::{run, samples_csv, sizes};
use metron_memory::frontend;

#[test]
fn experiment_runs_end_to_end() {
    if metron_measure::tool::testing::require_all(&[&frontend::CLANG, &frontend::OPT]).is_none() {
        return;
    }
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/memory/matrix.c");
    let s = sizes(&[2, 5, 9]);
    let r = run(&src, &s, |_| {}).unwrap();
    assert_eq!(r.configurations, 27);
    // 27 sizes x 2 functions x 4 setups x (2 + 3 + 4) threads
    assert_eq!(r.samples.len(), 27 * 2 * 4 * 9);
    let faster = |setup: &str, function: &str| {
        r.samples
            .iter()
            .filter(|(s, f, _, x)| s.starts_with(setup) && f == function && x.t_par < x.t_seq)
            .count()
    };
    for setup in ["one bank, 1-cycle", "16 banks, word"] {
        assert_eq!(faster(setup, "gen") + faster(setup, "mul"), 0, "{setup}");
    }
    assert_eq!(faster("MPPA-like", "gen"), 0);
    assert!(faster("MPPA-like", "mul") > 0);
    // One bank: with more threads, more contention (median relative increase grows with T).
    for fr in r.results.iter().filter(|f| f.setup.starts_with("one bank")) {
        let inc: Vec<f64> = fr.relative_increase.iter().map(|x| x.1).collect();
        assert!(
            inc[0] < inc[1] && inc[1] < inc[2],
            "{}: {inc:?}",
            fr.function
        );
        assert!(!fr.models.is_empty());
    }
    let csv = samples_csv(&r);
    let parsed = metron_contention::data::parse_samples(&csv, "experiment.csv").unwrap();
    assert_eq!(parsed.len(), r.samples.len());
}
