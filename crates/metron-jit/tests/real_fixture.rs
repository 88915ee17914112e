//! A real PyPy 7.3.11 log kept in the repository (`pypy_nested.log`, from a nested loop with an
//! object allocation per outer iteration), so the real format is tested without pypy3.

use std::path::Path;

use metron_jit::fragment::build;
use metron_jit::log::{parse_file, parse_str};
use metron_jit::trace::TraceKind;

fn text() -> String {
    std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pypy_nested.log"),
    )
    .unwrap()
}

#[test]
fn real_log_parses_completely() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/pypy_nested.log");
    let log = parse_file(&path).unwrap();
    assert!(log.warnings.is_empty(), "{:?}", log.warnings);
    // the headers declare 90, 14 and 230 ops; jit-summary says 2 loops and 1 bridge
    let counts: Vec<(TraceKind, usize)> =
        log.traces.iter().map(|t| (t.kind, t.ops.len())).collect();
    assert_eq!(
        counts,
        vec![
            (TraceKind::Loop { number: 1 }, 90),
            (
                TraceKind::Bridge {
                    guard: 0x7fda261deec0
                },
                14
            ),
            (TraceKind::Loop { number: 3 }, 230),
        ]
    );
    assert_eq!(log.summary_number("Total # of loops"), Some(2.0));
    assert_eq!(log.summary_number("Total # of bridges"), Some(1.0));
    let c = log.counters.as_ref().unwrap();
    assert_eq!(c.entries[&1], 2000);
    assert_eq!(c.labels[&140574919194352], 3_996_959);
    assert_eq!(c.bridges[&140574919093952], 1800); // = 0x7fda261deec0
    let graph = build(&log);
    assert!(graph.warnings.is_empty(), "{:?}", graph.warnings);
    // the inner loop's label: its bridge (loop exit) ran 1800 times, the rest went round
    let inner = graph
        .fragments
        .iter()
        .filter(|f| f.start == metron_jit::fragment::FragmentStart::Label(140574919194352))
        .map(|f| f.frequency.unwrap())
        .sum::<u64>();
    assert_eq!(inner, 3_996_959);
}

#[test]
fn every_truncation_point_yields_complete_traces_and_a_warning() {
    let full = text();
    let full_traces = parse_str(&full, "full.log").unwrap().traces.len();
    let mut last = 0;
    // cut at every 97th byte (on char boundaries): never an error after the first line,
    // never more traces than the whole log, never fewer than a shorter cut
    for cut in (40..full.len()).step_by(97) {
        if !full.is_char_boundary(cut) {
            continue;
        }
        let log = parse_str(&full[..cut], "cut.log").unwrap();
        assert!(log.traces.len() <= full_traces);
        assert!(log.traces.len() >= last, "cut {cut}");
        last = log.traces.len();
        assert!(log.truncated || full[..cut].ends_with('\n'), "cut {cut}");
        if log.truncated {
            assert!(
                log.warnings.iter().any(
                    |w| w.message.contains("truncated") || w.message.contains("middle of line")
                ),
                "cut {cut}: {:?}",
                log.warnings
            );
        }
        let _ = build(&log);
    }
    assert_eq!(last, full_traces);
}
