//! Issue 15: PyPy frees loops and hands their label and guard numbers on to later traces.
//! Each counter must belong to exactly one trace (crate::lifetime).

use metron_jit::cost::{analyze, CostModel};
use metron_jit::fragment::build;
use metron_jit::log::parse_str;
use metron_jit::op_class::OpClassTable;

/// Loop 1 (label T500, guard 0xa with a bridge) is freed; loop 2 reuses T500 and guard 0xa,
/// and its guard 0xa has no bridge. Counters in compile order, as the backend lists them.
const REUSED: &str = "\
[10] {jit-log-opt-loop
# Loop 1 (f;/r.py:1-2~#0 FOR_ITER) : loop with 4 ops
[i0]
+10: label(i0, descr=TargetToken(500))
+20: i1 = int_add(i0, 1)
+30: guard_true(i1, descr=<Guard0xa>) [i0]
+40: jump(i1, descr=TargetToken(500))
+50: --end of the loop--
[11] jit-log-opt-loop}
[12] {jit-log-opt-bridge
# bridge out of Guard 0xa with 3 ops
[i0]
+10: i2 = int_sub(i0, 1)
+20: i3 = int_mul(i2, 2)
+30: jump(i3, descr=TargetToken(500))
[13] jit-log-opt-bridge}
[14] {jit-log-opt-loop
# Loop 2 (g;/r.py:5-6~#0 FOR_ITER) : loop with 5 ops
[i0]
+10: label(i0, descr=TargetToken(500))
+20: i1 = int_add(i0, 1)
+25: i4 = int_add(i1, 1)
+30: guard_true(i4, descr=<Guard0xa>) [i0]
+40: jump(i4, descr=TargetToken(500))
+50: --end of the loop--
[15] jit-log-opt-loop}
[16] {jit-backend-counts
entry 1:10
TargetToken(500):1000
bridge 10:100
entry 2:20
TargetToken(500):5000
[17] jit-backend-counts}
";

#[test]
fn reused_numbers_give_each_trace_its_own_counters() {
    let log = parse_str(REUSED, "reused.log").unwrap();
    let graph = build(&log);
    let u = graph.counter_use.clone().unwrap();
    assert!(u.by_position);
    assert_eq!((u.total, u.used, u.unmatched_traces), (5, 5, 0));
    assert_eq!(u.reused_numbers, 1, "TargetToken(500) twice");
    let f: Vec<(String, usize, Option<u64>)> = graph
        .fragments
        .iter()
        .map(|f| (f.name(), f.trace, f.frequency))
        .collect();
    // loop 1: l1 to g1 runs as often as the bridge (100), l1 to j1 the rest of 1000;
    // the bridge 100; loop 2 has no bridge on its 0xa: one fragment, 5000 times.
    assert_eq!(
        f,
        vec![
            ("l1 to g1".to_string(), 0, Some(100)),
            ("l1 to j1".to_string(), 0, Some(900)),
            ("b1 to j2".to_string(), 1, Some(100)),
            ("l2 to j3".to_string(), 2, Some(5000)),
        ]
    );
    // CMC by hand: l1-g1 2 ops, l1-j1 2 (jump is control), bridge 2, l2-j3 3
    let a = analyze(&log, &OpClassTable::default_table(), &CostModel::Cmc);
    assert_eq!(
        a.gamma,
        Some(100.0 * 2.0 + 900.0 * 2.0 + 100.0 * 2.0 + 5000.0 * 3.0)
    );
    assert!(a.warnings.is_empty(), "{:?}", a.warnings);
}

#[test]
fn streaming_agrees_with_the_in_memory_analysis_on_reused_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("reused.log");
    std::fs::write(&path, REUSED).unwrap();
    let classes = OpClassTable::default_table();
    let s = metron_jit::stream::analyze_file(&path, &classes, &CostModel::Cmc).unwrap();
    let m = analyze(&parse_str(REUSED, "r").unwrap(), &classes, &CostModel::Cmc);
    assert_eq!(s.analysis.gamma, m.gamma);
    assert_eq!(s.analysis.counter_use, m.counter_use);
}

#[test]
fn counters_out_of_order_fall_back_to_numbers_and_say_so() {
    let text = REUSED.replace(
        "entry 1:10\nTargetToken(500):1000\nbridge 10:100\nentry 2:20\nTargetToken(500):5000\n",
        "bridge 10:100\nentry 2:20\nentry 1:10\nTargetToken(500):5000\nTargetToken(500):1000\n",
    );
    let graph = build(&parse_str(&text, "shuffled.log").unwrap());
    let u = graph.counter_use.clone().unwrap();
    assert!(!u.by_position);
    assert!(
        graph
            .warnings
            .iter()
            .any(|w| w.contains("not in the order") && w.contains("added together")),
        "{:?}",
        graph.warnings
    );
}
