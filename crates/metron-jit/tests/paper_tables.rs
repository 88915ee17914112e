//! 001 §3.2, Tables 1 and 2: the JIT counters and fragment frequencies of the doubly nested
//! loop of Figure 1, from a PYPYLOG fixture shaped like the paper's trace graph (loop l1..j1
//! with the Figure 2 fragment, a bridge b2 out of guard g2 holding label l3 and jump j2).

use std::collections::BTreeMap;
use std::path::Path;

use metron_jit::cost::{analyze, CostModel, Weights};
use metron_jit::fragment::{build, FragmentEnd};
use metron_jit::log::parse_file;
use metron_jit::op_class::OpClassTable;

fn fixture() -> metron_jit::log::JitLog {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/paper_fig1.log");
    let log = parse_file(&path).unwrap();
    assert!(log.warnings.is_empty(), "{:?}", log.warnings);
    log
}

#[test]
fn table_1_counters() {
    let log = fixture();
    let c = log.counters.as_ref().unwrap();
    assert_eq!(c.labels[&4321534064], 100_001); // n_l1
    assert_eq!(c.labels[&4321534144], 10_000_098_957); // n_l2
    assert_eq!(c.bridges[&0x10196a170], 99_801); // n_b2: hex in the trace, decimal counter
    assert_eq!(c.labels[&4321534224], 99_800); // n_l3
}

#[test]
fn table_2_fragment_frequencies() {
    let log = fixture();
    let graph = build(&log);
    assert!(graph.warnings.is_empty(), "{:?}", graph.warnings);
    let from_labels: BTreeMap<String, Option<u64>> = graph
        .fragments
        .iter()
        .filter(|f| f.start_name.starts_with('l'))
        .map(|f| (f.name(), f.frequency))
        .collect();
    let table_2: BTreeMap<String, Option<u64>> = [
        ("l1 to l2", 100_001),       // n_l1
        ("l2 to g2", 99_801),        // n_b2
        ("l2 to j1", 9_999_999_156), // n_l2 - n_b2
        ("l3 to j2", 99_800),        // n_l3
    ]
    .into_iter()
    .map(|(n, f)| (n.to_string(), Some(f)))
    .collect();
    assert_eq!(from_labels, table_2);
    // metron's extension: the bridge's ops before l3 form an entry fragment counted by n_b2
    let entry: Vec<_> = graph
        .fragments
        .iter()
        .filter(|f| !f.start_name.starts_with('l'))
        .map(|f| (f.name(), f.frequency))
        .collect();
    assert_eq!(entry, vec![("b2 to l3".to_string(), Some(99_801))]);
    // l2 to g2 ends at the guard that has the bridge
    let g2 = graph
        .fragments
        .iter()
        .find(|f| f.name() == "l2 to g2")
        .unwrap();
    assert_eq!(g2.end, FragmentEnd::Guard(0x10196a170));
}

#[test]
fn figure_2_fragment_has_three_arithmetic_ops_and_three_guards() {
    // 001 §3.1: "Besides debug instructions, the fragment consists of 3 arithmetic-logical
    // instructions and 3 guards"
    let log = fixture();
    let a = analyze(&log, &OpClassTable::default_table(), &CostModel::Cmc);
    let f = a.fragments.iter().find(|f| f.name == "l2 to j1").unwrap();
    assert_eq!(f.ops.get("numeric"), Some(&3));
    assert_eq!(f.ops.get("guard"), Some(&3));
    assert_eq!(f.ops.get("debug"), Some(&8));
    assert_eq!(f.gamma, 6.0); // 001 Eq. 2: labels and jumps are not counted
}

#[test]
fn whole_program_cost_under_each_model() {
    let log = fixture();
    let classes = OpClassTable::default_table();
    let (n_l1, n_b2, n_l2j1, n_l3) = (100_001.0, 99_801.0, 9_999_999_156.0, 99_800.0);
    // fragments: l1-l2, l2-g2, l2-j1, l3-j2, b2-l3
    let cm0 = analyze(&log, &classes, &CostModel::Cm0).gamma.unwrap();
    assert_eq!(cm0, n_l1 + n_b2 + n_l2j1 + n_l3 + n_b2); // 001 Eq. 1 + Eq. 4
                                                         // CMC op counts by hand: l1-l2: 2 int_add; l2-g2: guard, int_gt, guard; l2-j1: 6;
                                                         // l3-j2: 1 int_add; b2-l3: int_add, int_gt, guard_false
    let cmc = analyze(&log, &classes, &CostModel::Cmc).gamma.unwrap();
    assert_eq!(
        cmc,
        2.0 * n_l1 + 3.0 * n_b2 + 6.0 * n_l2j1 + n_l3 + 3.0 * n_b2
    );
    // CMW with 001 Eq. 7: numeric b, guard d
    let (b, d) = (4.884e-4, 4.623e-4);
    let cmw = analyze(&log, &classes, &CostModel::Cmw(Weights::paper_eq7()))
        .gamma
        .unwrap();
    let want = 2.0 * b * n_l1
        + (b + 2.0 * d) * n_b2
        + (3.0 * b + 3.0 * d) * n_l2j1
        + b * n_l3
        + (2.0 * b + d) * n_b2;
    assert!((cmw - want).abs() <= 1e-9 * want, "{cmw} vs {want}");
}

#[test]
fn executed_ops_per_class_are_the_regression_features() {
    let log = fixture();
    let a = analyze(&log, &OpClassTable::default_table(), &CostModel::Cmc);
    let (n_l1, n_b2, n_l2j1, n_l3) = (100_001u64, 99_801u64, 9_999_999_156u64, 99_800u64);
    let numeric = 2 * n_l1 + n_b2 + 3 * n_l2j1 + n_l3 + 2 * n_b2;
    let guard = 2 * n_b2 + 3 * n_l2j1 + n_b2;
    assert_eq!(a.executed_ops["numeric"], numeric);
    assert_eq!(a.executed_ops["guard"], guard);
}

#[test]
fn without_counters_only_static_trace_costs() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/paper_fig1.log"),
    )
    .unwrap();
    let cut = text.find("[0a1b2d0200] {jit-backend-counts").unwrap();
    let log = metron_jit::log::parse_str(&text[..cut], "nocounts.log").unwrap();
    let a = analyze(&log, &OpClassTable::default_table(), &CostModel::Cmc);
    assert!(!a.has_counters);
    assert_eq!(a.gamma, None);
    assert!(a.fragments.iter().all(|f| f.frequency.is_none()));
    assert!(a
        .warnings
        .iter()
        .any(|w| w.contains("no jit-backend-counts")));
    // loop: 2 + 6 non-debug non-control ops; bridge: 3 + 1
    let statics: Vec<f64> = a.trace_costs.iter().map(|t| t.gamma).collect();
    assert_eq!(statics, vec![8.0, 4.0]);
}

#[test]
fn bridge_counter_for_unknown_guard_is_reported() {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/paper_fig1.log"),
    )
    .unwrap()
    .replace(
        "TargetToken(4321534224):99800",
        "TargetToken(4321534224):99800\nbridge 77:5",
    );
    let log = metron_jit::log::parse_str(&text, "extra.log").unwrap();
    let graph = build(&log);
    assert!(
        graph
            .warnings
            .iter()
            .any(|w| w.contains("1 of 6 counters belong to no trace")),
        "{:?}",
        graph.warnings
    );
    let u = graph.counter_use.unwrap();
    assert!(u.by_position);
    assert_eq!((u.total, u.used), (6, 5));
}

#[test]
fn two_run_difference_matches_fragments_across_changed_ids() {
    // 001 §5.2.2: a "warm-up" run of the same program with smaller counters and, as between
    // real runs, different loop numbers, target tokens and guard addresses.
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/paper_fig1.log"),
    )
    .unwrap();
    let warm_text = text
        .replace("4321534064", "5551000")
        .replace("4321534144", "5552000")
        .replace("4321534224", "5553000")
        .replace("0x10196a170", "0xabc")
        .replace("4321616240", "2748") // 0xabc
        .replace("# Loop 0 ", "# Loop 7 ")
        .replace("entry 0:100001", "entry 7:1001")
        .replace("TargetToken(5551000):100001", "TargetToken(5551000):1001")
        .replace(
            "TargetToken(5552000):10000098957",
            "TargetToken(5552000):100000957",
        )
        .replace("bridge 2748:99801", "bridge 2748:801")
        .replace("TargetToken(5553000):99800", "TargetToken(5553000):800");
    let classes = OpClassTable::default_table();
    let full = analyze(&fixture(), &classes, &CostModel::Cmc);
    let warm = analyze(
        &metron_jit::log::parse_str(&warm_text, "warm.log").unwrap(),
        &classes,
        &CostModel::Cmc,
    );
    let task = metron_jit::difference::task_cost(&warm, &full);
    assert!(task.warnings.is_empty(), "{:?}", task.warnings);
    // per fragment: (full - warm) frequency × CMC γ, by hand
    let l1l2 = (100_001 - 1001) as f64 * 2.0;
    let l2g2 = (99_801 - 801) as f64 * 3.0;
    let l2j1 = ((10_000_098_957u64 - 99_801) - (100_000_957 - 801)) as f64 * 6.0;
    let l3j2 = (99_800 - 800) as f64 * 1.0;
    let b2l3 = (99_801 - 801) as f64 * 3.0;
    assert_eq!(task.gamma, l1l2 + l2g2 + l2j1 + l3j2 + b2l3);
    assert_eq!(task.shapes.len(), 5, "every fragment found its partner");
}

fn fixture_text() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/paper_fig1.log"),
    )
    .unwrap()
}

#[test]
fn missing_bridge_counter_leaves_its_fragments_out_of_gamma() {
    let text = fixture_text().replace("bridge 4321616240:99801\n", "");
    let log = metron_jit::log::parse_str(&text, "nobridge.log").unwrap();
    let graph = build(&log);
    let freq = |name: &str| {
        graph
            .fragments
            .iter()
            .find(|f| f.name() == name)
            .unwrap()
            .frequency
    };
    assert_eq!(freq("l2 to g2"), None);
    assert_eq!(freq("b2 to l3"), None);
    assert!(graph
        .warnings
        .iter()
        .any(|w| w.contains("no counter for the bridge of guard g2") && w.contains("l2 to g2")));
    assert!(graph
        .warnings
        .iter()
        .any(|w| w.contains("no counter for b2")));
    let a = analyze(&log, &OpClassTable::default_table(), &CostModel::Cm0);
    // CM0: the three fragments with frequencies: l1-l2, l2-j1 (= n_l2, nothing subtracted), l3-j2
    assert_eq!(a.gamma, Some(100_001.0 + 10_000_098_957.0 + 99_800.0));
}

#[test]
fn more_bridge_exits_than_label_visits_is_clamped_and_reported() {
    let text = fixture_text().replace(
        "TargetToken(4321534144):10000098957",
        "TargetToken(4321534144):5",
    );
    let log = metron_jit::log::parse_str(&text, "odd.log").unwrap();
    let graph = build(&log);
    let f = graph
        .fragments
        .iter()
        .find(|f| f.name() == "l2 to j1")
        .unwrap();
    assert_eq!(f.frequency, Some(0));
    assert!(graph
        .warnings
        .iter()
        .any(|w| w.contains("l2 to j1") && w.contains("set to 0")));
}

#[test]
fn a_guard_id_twice_in_one_trace_names_one_bridge() {
    // RPython shares resume descrs between guards of one trace ("opt guards shared")
    let text = fixture_text().replace("<Guard0x10196a100>", "<Guard0x10196a170>");
    let log = metron_jit::log::parse_str(&text, "dup.log").unwrap();
    let graph = build(&log);
    let names: Vec<String> = graph.fragments.iter().map(|f| f.name()).collect();
    assert!(names.contains(&"l2 to g2".to_string()), "{names:?}");
    assert!(names.contains(&"b2 to l3".to_string()), "{names:?}");
}

#[test]
fn figure_1_trace_graph_as_dot_and_json() {
    let log = fixture();
    let g = metron_jit::graph_export::export(&log, &build(&log));
    let edge = |from: &str, to: &str| {
        g.edges
            .iter()
            .find(|e| e.from == from && e.to == to)
            .unwrap_or_else(|| panic!("{from} -> {to} in {:?}", g.edges))
    };
    // 001 Fig. 1 / Table 2: the four fragments, the bridge out of g2, the jumps back
    assert_eq!(edge("l1", "l2").frequency, Some(100_001));
    assert_eq!(edge("l2", "g2").frequency, Some(99_801));
    assert_eq!(edge("l2", "j1").frequency, Some(9_999_999_156));
    assert_eq!(edge("l3", "j2").frequency, Some(99_800));
    assert_eq!(edge("g2", "b2").kind, "bridge");
    assert_eq!(edge("j1", "l2").kind, "jump");
    let dot = metron_jit::graph_export::to_dot(&g);
    assert!(dot.starts_with("digraph trace_graph {"), "{dot}");
    assert!(
        dot.contains("\"l2\" -> \"j1\" [label=\"9999999156 × "),
        "{dot}"
    );
}

#[test]
fn figure_3_operation_histogram() {
    let a = analyze(&fixture(), &OpClassTable::default_table(), &CostModel::Cmc);
    let get = |name: &str| a.op_histogram.iter().find(|c| c.name == name).unwrap();
    // int_add_ovf: once in l2-j1 (9,999,999,156 runs) and once more in the bridge's loop
    // l3-j2 (99,800) if present there; counted by hand from Table 2 and the fixture
    let ovf = get("int_add_ovf");
    assert_eq!(ovf.class, "numeric");
    let by_hand: u64 = a
        .fragments
        .iter()
        .map(|f| f.frequency.unwrap() * u64::from(*f.ops.get("numeric").unwrap_or(&0)))
        .sum();
    let numeric: u64 = a
        .op_histogram
        .iter()
        .filter(|c| c.class == "numeric")
        .map(|c| c.executed)
        .sum();
    assert_eq!(
        numeric, by_hand,
        "the histogram adds up to the class counts"
    );
    assert_eq!(numeric, a.executed_ops["numeric"]);
    assert!(ovf.executed >= 9_999_999_156);
    // sorted by executions
    assert!(a
        .op_histogram
        .windows(2)
        .all(|w| w[0].executed >= w[1].executed));
}
