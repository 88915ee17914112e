//! Whole-program prediction on a real PyPy run: the profile of a recorded program agrees with
//! what its log says independently (jit-summary's totals, the GC sections), and a prediction's
//! terms are finite and add up to its total. Skips, saying why, without pypy3.

use std::collections::BTreeMap;
use std::path::Path;

use metron_jit::op_class::OpClassTable;
use metron_jit::predict::{TraceModel, WholeProgramModel};
use metron_jit::profile::{ProgramProfile, PREDICT_SECTIONS};
use metron_jit::pypy;

#[test]
fn a_recorded_program_gets_a_finite_breakdown_that_sums_to_its_total() {
    if metron_measure::tool::testing::require(&pypy::PYPY3).is_none() {
        return;
    }
    let program = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/jit/programs/event_scheduler.py");
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.txt");
    pypy::record(&program, &["0.05".to_string()], &log, PREDICT_SECTIONS).unwrap();
    let p = ProgramProfile::from_log(&log, &OpClassTable::default_table()).unwrap();

    // independent of the analysis: count the sections and read jit-summary in the text
    let text = std::fs::read_to_string(&log).unwrap();
    let summary = |key: &str| -> f64 {
        let line = text.lines().find(|l| l.starts_with(key)).unwrap();
        line.split_whitespace().last().unwrap().parse().unwrap()
    };
    let traces = summary("Total # of loops:") + summary("Total # of bridges:");
    assert_eq!(p.traces_compiled as f64, traces);
    let tracing = text.lines().find(|l| l.starts_with("Tracing:")).unwrap();
    let tracing: f64 = tracing.split_whitespace().nth(2).unwrap().parse().unwrap();
    assert_eq!(p.tracing_seconds, tracing);
    let minors = text.lines().filter(|l| l.ends_with("] {gc-minor")).count();
    assert_eq!(p.gc.minor_collections as usize, minors);
    assert!(p.gc.seconds >= 0.0 && p.gc.seconds < 5.0, "{:?}", p.gc);
    assert!(p.gamma_cmc > 1e5 && p.gamma_cm0 > 1e3 && p.gamma_cmc > p.gamma_cm0);

    // a hand-made model: start-up, CMW on three classes, warm-up, interpreter and GC
    let weights: BTreeMap<String, f64> = [
        ("startup.constant", 0.03),
        ("compiled.numeric", 1e-9),
        ("compiled.guard", 2e-9),
        ("compiled.alloc", 1e-8),
        ("warmup.jit_seconds", 1.0),
        ("warmup.traces", 1e-3),
        ("interpreter.residual_calls", 1e-7),
        ("gc.seconds", 1.0),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), *v))
    .collect();
    let model = WholeProgramModel {
        trace_model: TraceModel::CMW,
        weights,
        statistics: serde_json::from_str(
            r#"{"programs":0,"observations":0,"r_squared":0,"r_squared_uncentered":0,
            "loo_median_abs_error":0,"loo_spearman":0,"baseline_median_abs_error":0,
            "kfold_median_abs_error":0,"k_folds":0,"held_out":[]}"#,
        )
        .unwrap(),
    };
    let pred = model.predict(&p);
    assert!(pred.seconds.is_finite() && pred.seconds > 0.03);
    let sum: f64 = pred.terms.iter().map(|t| t.seconds).sum();
    assert!((sum - pred.seconds).abs() <= 1e-12 * pred.seconds);
    let ops = |c: &str| *p.executed_ops.get(c).unwrap_or(&0) as f64;
    let by_hand = 0.03
        + 1e-9 * ops("numeric")
        + 2e-9 * ops("guard")
        + 1e-8 * ops("alloc")
        + p.tracing_seconds
        + p.backend_seconds
        + 1e-3 * traces
        + 1e-7 * p.residual_calls as f64
        + p.gc.seconds;
    assert!(
        (pred.seconds - by_hand).abs() <= 1e-9 * by_hand,
        "{} vs {by_hand}",
        pred.seconds
    );
    for t in &pred.terms {
        assert!(t.seconds.is_finite() && t.seconds >= 0.0, "{t:?}");
    }
}
