//! The realistic corpus (examples/matlab/corpus, issue 14): every program, transformed with
//! range and vectorize for the Octave runtime, computes what it computed before (class, size,
//! values), at a small size and in one Octave process. Speedups are measured by
//! `cargo run --release -p metron-matlab --example corpus_table` (docs/matlab.md).

use std::path::Path;

use metron_matlab::differential::{run_batch, Case};
use metron_matlab::passes::{run_passes, Options};

#[test]
fn corpus_programs_keep_their_results_and_loops_get_vectorised() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/matlab/corpus");
    let files = metron_matlab::differential::m_files(&dir).unwrap();
    assert!(files.len() >= 15, "{} programs", files.len());
    let options = Options {
        runtime: "octave".into(),
        ..Options::default()
    };
    let passes: Vec<String> = vec!["range".into(), "vectorize".into()];
    let mut cases = Vec::new();
    let mut vectorised = 0;
    for f in &files {
        let src = std::fs::read_to_string(f).unwrap();
        let program = metron_matlab::parse(&src, f).unwrap();
        let first = program.functions.first().unwrap();
        let out = run_passes(&src, f, &passes, &options).unwrap();
        vectorised += out
            .iter()
            .filter(|o| o.pass == "vectorize")
            .flat_map(|o| &o.notes)
            .filter(|n| n.applied)
            .count();
        cases.push(Case {
            name: first.name.clone(),
            original: src.clone(),
            transformed: out.last().unwrap().source.clone(),
            args: "16".into(),
            outputs: first.outputs.len(),
        });
    }
    // The corpus is written to need the methods of 000 Ch. 5-6 and beyond (if-conversion,
    // 2-D nests, row sums, inlining, scalar expansion); most of its loops must go.
    assert!(vectorised >= 24, "only {vectorised} loops vectorised");
    let Some(_) = metron_measure::tool::testing::require(&metron_measure::tool::OCTAVE) else {
        return;
    };
    let verdicts = run_batch(&cases, 1e-9, 1e-12).unwrap();
    for (c, v) in cases.iter().zip(&verdicts) {
        assert_eq!(
            *v,
            metron_matlab::differential::Verdict::Equal,
            "{}:\n{}",
            c.name,
            c.transformed
        );
    }
}
