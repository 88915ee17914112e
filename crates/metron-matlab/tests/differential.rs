//! Differential testing of every pass on Octave with generated programs (issue 14): each
//! case's original and transformed versions run in one octave-cli process and must agree in
//! class, size and value (or both raise an error). `METRON_MATLAB_CASES` sets the count
//! (default 300); `scripts/matlab-differential` runs 10,000.

use metron_matlab::differential::{run_batch, Case, Verdict};
use metron_matlab::generator::generate;

fn cases() -> usize {
    std::env::var("METRON_MATLAB_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}

#[test]
fn generated_programs_keep_their_results() {
    let Some(_) = metron_measure::tool::testing::require(&metron_measure::tool::OCTAVE) else {
        return;
    };
    let first: u64 = std::env::var("METRON_MATLAB_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    let total = cases() as u64;
    let mut failures = Vec::new();
    let (mut changed, mut both_failed) = (0usize, 0usize);
    let batch = 500u64;
    let mut seed = first;
    while seed < first + total {
        let end = (seed + batch).min(first + total);
        let mut list: Vec<Case> = Vec::new();
        for s in seed..end {
            let g = generate(s);
            match g.case() {
                Ok(c) => {
                    changed += usize::from(c.transformed != c.original);
                    list.push(c)
                }
                Err(e) => failures.push(format!("seed {s}: pass error {e}\n{}", g.source)),
            }
        }
        let verdicts = run_batch(&list, 1e-9, 1e-12).unwrap();
        for (c, v) in list.iter().zip(&verdicts) {
            if matches!(v, Verdict::BothFailed(_)) {
                both_failed += 1;
            }
            if !v.agrees() {
                failures.push(format!(
                    "{}: {v:?}\n--- original\n{}--- transformed\n{}",
                    c.name, c.original, c.transformed
                ));
            }
        }
        seed = end;
    }
    eprintln!(
        "differential: {total} cases from seed {first}, {changed} transformed, {both_failed} raised an error in both versions, {} failures",
        failures.len()
    );
    assert!(
        both_failed * 10 < total as usize,
        "too many generated programs fail in both versions ({both_failed}): the generator tests little"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Every failure the generator ever found, kept as a file (header: passes, options, args).
#[test]
fn generated_regressions_keep_their_results() {
    let Some(_) = metron_measure::tool::testing::require(&metron_measure::tool::OCTAVE) else {
        return;
    };
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/regressions/generated");
    let files = metron_matlab::differential::m_files(&dir).unwrap();
    assert!(!files.is_empty());
    let mut list = Vec::new();
    for f in &files {
        let name = f.file_stem().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(f).unwrap();
        let g = metron_matlab::generator::Generated::parse(&name, &text)
            .unwrap_or_else(|| panic!("{}: not a regression file", f.display()));
        list.push(g.case().unwrap_or_else(|e| panic!("{}: {e}", f.display())));
    }
    let verdicts = run_batch(&list, 1e-9, 1e-12).unwrap();
    for (c, v) in list.iter().zip(&verdicts) {
        assert!(v.agrees(), "{}: {v:?}\n{}", c.name, c.transformed);
    }
}
