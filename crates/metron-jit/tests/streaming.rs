//! The two-pass streaming analysis (metron_jit::stream) gives exactly the in-memory answer.

use std::path::{Path, PathBuf};

use metron_jit::cost::{analyze, CostModel, Weights};
use metron_jit::log::parse_file;
use metron_jit::op_class::OpClassTable;
use metron_jit::stream::analyze_file;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn same_both_ways(path: &Path) {
    let classes = OpClassTable::default_table();
    for model in [
        CostModel::Cm0,
        CostModel::Cmc,
        CostModel::Cmw(Weights::paper_eq7()),
    ] {
        let log = parse_file(path).unwrap();
        let whole = analyze(&log, &classes, &model);
        let streamed = analyze_file(path, &classes, &model).unwrap();
        assert_eq!(
            serde_json::to_value(&streamed.analysis).unwrap(),
            serde_json::to_value(&whole).unwrap(),
            "{} under {}",
            path.display(),
            model.name()
        );
        assert_eq!(streamed.log.warnings, log.warnings);
        assert_eq!(streamed.log.truncated, log.truncated);
        assert_eq!(streamed.loops + streamed.bridges, log.traces.len());
        let largest = log.traces.iter().map(|t| t.ops.len()).max().unwrap();
        assert_eq!(streamed.max_retained_ops, largest);
        assert!(streamed.log.traces.is_empty());
    }
}

#[test]
fn paper_fixture_streams_to_the_same_analysis() {
    same_both_ways(&fixture("paper_fig1.log"));
    // Table 2's frequencies through the streaming path too
    let a = analyze_file(
        &fixture("paper_fig1.log"),
        &OpClassTable::default_table(),
        &CostModel::Cm0,
    )
    .unwrap()
    .analysis;
    let freq = |name: &str| {
        a.fragments
            .iter()
            .find(|f| f.name == name)
            .unwrap()
            .frequency
    };
    assert_eq!(freq("l1 to l2"), Some(100_001));
    assert_eq!(freq("l2 to g2"), Some(99_801));
    assert_eq!(freq("l2 to j1"), Some(9_999_999_156));
    assert_eq!(freq("l3 to j2"), Some(99_800));
}

#[test]
fn real_pypy_fixture_streams_to_the_same_analysis() {
    same_both_ways(&fixture("pypy_nested.log"));
}

#[test]
fn truncated_log_streams_to_the_same_analysis() {
    let text = std::fs::read_to_string(fixture("pypy_nested.log")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for cut in [text.len() / 3, text.len() / 2, text.len() - 40] {
        let path = dir.path().join("cut.log");
        std::fs::write(&path, &text.as_bytes()[..cut]).unwrap();
        same_both_ways(&path);
    }
}
