//! The corpus table of docs/matlab.md: for every program in examples/matlab/corpus, its
//! loops, the loops vectorised, the reason for each refusal, whether Octave computes the same
//! results before and after (class, size, values), and the speedup with its 95% CI. A
//! transformation measured slower beyond noise (CI entirely below 1) is not kept.
//!   cargo run --release -p metron-matlab --example corpus_table [REPETITIONS]

use std::path::Path;

use metron_matlab::ast::{walk_stmts, StmtKind};
use metron_matlab::octave::{check, CheckOptions};
use metron_matlab::passes::{run_passes, Options};

fn main() {
    let reps: usize = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(11);
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/matlab/corpus");
    let files = metron_matlab::differential::m_files(&dir).expect("examples/matlab/corpus");
    let options = Options {
        runtime: "octave".into(),
        ..Options::default()
    };
    let passes: Vec<String> = vec!["range".into(), "vectorize".into()];
    let out_dir = tempfile::tempdir().expect("temporary directory");
    println!("| program | loops | vectorised | results equal | speedup (95% CI) | kept |");
    println!("|---|---|---|---|---|---|");
    let mut refusals = Vec::new();
    for file in &files {
        let src = std::fs::read_to_string(file).expect("read");
        let entry = src
            .lines()
            .find_map(|l| l.strip_prefix("% entry: "))
            .expect("a `% entry: f(n)` header")
            .trim()
            .to_string();
        let program = metron_matlab::parse(&src, file).expect("parses");
        let mut loops = 0;
        for scope in program.scopes() {
            walk_stmts(scope.body, &mut |s| {
                loops += usize::from(matches!(s.kind, StmtKind::For { .. }));
            });
        }
        let out = run_passes(&src, file, &passes, &options).expect("passes run");
        let name = file.file_stem().unwrap().to_string_lossy().to_string();
        let mut vectorised = 0;
        for o in &out {
            for n in &o.notes {
                if o.pass == "vectorize" && n.applied {
                    vectorised += 1;
                } else if o.pass == "vectorize" {
                    refusals.push(format!(
                        "| {name}:{} | {} |",
                        n.line,
                        n.message.replace('|', "\\|")
                    ));
                }
            }
        }
        let transformed = out.last().map(|o| o.source.clone()).unwrap_or_default();
        let (equal, speedup, kept) = if transformed == src {
            ("unchanged".to_string(), "1 (unchanged)".to_string(), "-")
        } else {
            let path = out_dir.path().join(file.file_name().unwrap());
            std::fs::write(&path, &transformed).expect("write");
            let opts = CheckOptions {
                entry: Some(entry.clone()),
                repetitions: reps,
                warmup: 2,
                ..CheckOptions::default()
            };
            match check(file, &path, &opts) {
                Ok(r) => {
                    let t = r.timing.expect("timed");
                    let ci = t.speedup_ci.map(|c| (c.lo, c.hi));
                    let slower = ci.is_some_and(|(_, hi)| hi < 1.0);
                    (
                        if r.equal {
                            "yes".into()
                        } else {
                            "**NO**".into()
                        },
                        match ci {
                            Some((lo, hi)) => format!("{:.2} ({lo:.2} to {hi:.2})", t.speedup),
                            None => format!("{:.2}", t.speedup),
                        },
                        if slower || !r.equal {
                            "no (original kept)"
                        } else {
                            "yes"
                        },
                    )
                }
                Err(e) => (format!("error: {e}"), "-".into(), "no"),
            }
        };
        println!("| {name} `{entry}` | {loops} | {vectorised} | {equal} | {speedup} | {kept} |");
    }
    println!("\n| loop | why it was not vectorised |\n|---|---|");
    for r in refusals {
        println!("{r}");
    }
}
