//! Issue 15: a long-running program whose loops PyPy frees (jit-mem-collect) and recompiles.
//! Every counter must go to exactly one trace, and the label visits of the generated
//! functions' loops must add up to the inner iterations the program's source implies.

use std::path::Path;

use metron_jit::cost::CostModel;
use metron_jit::fragment::{build, FragmentStart};
use metron_jit::log::parse_file;
use metron_jit::op_class::OpClassTable;
use metron_jit::pypy::{self, RecordOptions};

const FUNCTIONS: u64 = 400;
const ITERATIONS: u64 = 20_000;
const ROUNDS: u64 = 3;

#[test]
fn label_visits_match_the_inner_iterations_of_the_source() {
    if metron_measure::tool::testing::require(&pypy::PYPY3).is_none() {
        return;
    }
    let script =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/jit/long/many_functions.py");
    let dir = tempfile::tempdir().unwrap();
    let log_path = dir.path().join("long.log");
    let options = RecordOptions {
        sections: format!("{},jit-mem", pypy::DEFAULT_SECTIONS),
        // A low threshold keeps the uncounted warm-up iterations (before a loop is compiled)
        // under 0.1% of the total; a short longevity frees loops many times in a short run.
        jit: Some("threshold=10,trace_eagerness=10,loop_longevity=4".to_string()),
        ..RecordOptions::default()
    };
    let args: Vec<String> = [FUNCTIONS, ITERATIONS, ROUNDS]
        .iter()
        .map(u64::to_string)
        .collect();
    pypy::record_with(&script, &args, &log_path, &options).unwrap();
    let text = std::fs::read_to_string(&log_path).unwrap();
    let freed: u64 = text
        .lines()
        .filter_map(|l| l.strip_prefix("Loop tokens freed:"))
        .map(|n| n.trim().parse::<u64>().unwrap())
        .sum();
    assert!(freed > 100, "the run must free loops; freed {freed}");

    let log = parse_file(&log_path).unwrap();
    let graph = build(&log);
    let u = graph.counter_use.clone().unwrap();
    assert!(u.by_position, "{u:?}");
    assert_eq!(u.used, u.total, "every counter used exactly once: {u:?}");
    assert_eq!(u.unmatched_traces, 0, "{u:?}");
    assert!(
        !graph.warnings.iter().any(|w| w.contains("set to 0")),
        "{:?}",
        graph.warnings
    );
    // Each iteration in compiled code passes exactly one label of its loop (the preamble's
    // for the first, the loop's for the rest; a bridge jumps back to the loop's label), so
    // the label fragments' frequencies add up to the compiled iterations.
    let is_generated = |name: &str| {
        name.split(';').next().is_some_and(|f| {
            f.len() > 1 && f.starts_with('f') && f[1..].bytes().all(|b| b.is_ascii_digit())
        })
    };
    let visits: u64 = graph
        .fragments
        .iter()
        .filter(|f| matches!(f.start, FragmentStart::Label(_)))
        .filter(|f| is_generated(&log.traces[f.trace].name))
        .map(|f| f.frequency.unwrap())
        .sum();
    let expected = FUNCTIONS * ITERATIONS * ROUNDS;
    let error = (visits as f64 - expected as f64).abs() / expected as f64;
    assert!(
        error < 0.001,
        "label visits {visits} vs {expected} inner iterations: {:.4}% off",
        100.0 * error
    );

    // the streaming analysis matches every counter the same way
    let s = metron_jit::stream::analyze_file(
        &log_path,
        &OpClassTable::default_table(),
        &CostModel::Cm0,
    )
    .unwrap();
    assert_eq!(s.analysis.counter_use.as_ref(), Some(&u));
}
