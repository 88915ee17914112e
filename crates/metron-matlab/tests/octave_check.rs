//! Proof on GNU Octave: passes preserve results on the corpus; a wrong rewrite is caught.
//! Needs octave-cli: a failure under CI when it is absent, a visible skip elsewhere.

use std::path::{Path, PathBuf};

use metron_matlab::octave::{check, CheckOptions, OCTAVE};
use metron_matlab::passes::{run_passes, Options};

/// octave-cli, or a visible skip (a failure under CI: metron_measure::tool::testing).
fn octave_or_skip() -> bool {
    metron_measure::tool::testing::require(&OCTAVE).is_some()
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/matlab")
        .join(name)
}

fn transform(file: &Path, passes: &[&str], dir: &Path, options: &Options) -> PathBuf {
    let src = std::fs::read_to_string(file).unwrap();
    let passes: Vec<String> = passes.iter().map(|s| s.to_string()).collect();
    let out = run_passes(&src, file, &passes, options).unwrap();
    let path = dir.join(file.file_name().unwrap());
    std::fs::write(&path, &out.last().unwrap().source).unwrap();
    path
}

#[test]
fn range_simplification_preserves_results_and_changes_the_code() {
    if !octave_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let orig = example("ranges.m");
    let new = transform(&orig, &["range"], dir.path(), &Options::default());
    let new_text = std::fs::read_to_string(&new).unwrap();
    assert!(
        new_text.contains("A(1:N)") && new_text.contains("A(1:2:(2*N-1))"),
        "{new_text}"
    );
    let opts = CheckOptions {
        entry: Some("ranges(40)".into()),
        ..CheckOptions::default()
    };
    let report = check(&orig, &new, &opts).unwrap();
    assert_eq!(report.variables.len(), 4);
    assert!(report.equal, "{:?}", report.variables);
}

#[test]
fn forced_repacking_of_listing_5_3_preserves_results() {
    if !octave_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let orig = example("repack_crni3.m");
    let options = Options {
        force: true,
        ..Options::default()
    };
    let new = transform(&orig, &["repack"], dir.path(), &options);
    let text = std::fs::read_to_string(&new).unwrap();
    // 000 Listing 5.3: four tmp_* slices, then the expression on references.
    assert_eq!(text.matches(" = B(1:(N-1));").count(), 1, "{text}");
    assert!(
        text.contains("X(1:(N-1)) = (tmp_b - tmp_c .* tmp_x) ./ tmp_d;"),
        "{text}"
    );
    let opts = CheckOptions {
        entry: Some("repack_crni3(50)".into()),
        ..CheckOptions::default()
    };
    assert!(check(&orig, &new, &opts).unwrap().equal);
}

#[test]
fn a_wrong_vectorisation_of_a_recurrence_is_caught() {
    if !octave_or_skip() {
        return;
    }
    // Independent ground truth for the checker: the naive vector form of x(i) = x(i-1)+y(i)
    // reads old values of x and must be reported as different.
    let dir = tempfile::tempdir().unwrap();
    let orig = example("recurrence.m");
    let src = std::fs::read_to_string(&orig).unwrap();
    let wrong = src.replace(
        "for i = 2:n\n  x(i) = x(i-1) + y(i);\nend",
        "x(2:n) = x(1:n-1) + y(2:n);",
    );
    assert_ne!(wrong, src);
    let new = dir.path().join("recurrence.m");
    std::fs::write(&new, wrong).unwrap();
    let opts = CheckOptions {
        entry: Some("recurrence(30)".into()),
        ..CheckOptions::default()
    };
    let report = check(&orig, &new, &opts).unwrap();
    assert!(!report.equal, "{:?}", report.variables);
    assert!(report.variables[0].max_abs_error > 1e-6);
}

#[test]
fn scripts_compare_their_whole_workspace_and_timing_gives_a_ci() {
    if !octave_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let orig = example("script_commands.m");
    let new = transform(&orig, &["range"], dir.path(), &Options::default());
    let opts = CheckOptions {
        repetitions: 5,
        ..CheckOptions::default()
    };
    let report = check(&orig, &new, &opts).unwrap();
    let names: Vec<&str> = report.variables.iter().map(|v| v.name.as_str()).collect();
    for v in ["n", "v", "w", "total", "odd", "k"] {
        assert!(names.contains(&v), "{v} missing from {names:?}");
    }
    assert!(report.equal, "{:?}", report.variables);
    let t = report.timing.unwrap();
    let ci = t.speedup_ci.unwrap();
    assert!(ci.lo <= ci.hi && t.speedup > 0.0);
}

/// Every pass (and the full pipeline) on every corpus program, checked in Octave at a small,
/// odd size (off-by-one errors in ranges show up).
#[test]
fn every_pass_preserves_results_on_every_corpus_program() {
    if !octave_or_skip() {
        return;
    }
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/matlab");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "m"))
        .collect();
    files.sort();
    let force = Options {
        force: true,
        ..Options::default()
    };
    // Versioned at p = 10 the vector branch runs at size 37; at p = 1000 the loop branch.
    let versioned = |p| Options {
        version_threshold: Some(p),
        ..Options::default()
    };
    let pipelines: Vec<(&[&str], Options)> = vec![
        (&["inline"], force.clone()),
        (&["range"], force.clone()),
        (&["repack"], force.clone()),
        (&["vectorize"], force.clone()),
        (&["vectorize", "inline", "range", "repack"], force.clone()),
        (&["reorder"], force.clone()),
        (&["dslice"], force.clone()),
        (&["vectorize"], versioned(10)),
        (&["vectorize"], versioned(1000)),
    ];
    let mut changed = 0;
    for file in &files {
        let src = std::fs::read_to_string(file).unwrap();
        let program = metron_matlab::parse(&src, file).unwrap();
        let entry = program.functions.first().map(|f| format!("{}(37)", f.name));
        for (passes, options) in &pipelines {
            let out_dir = tempfile::tempdir().unwrap();
            let new = transform(file, passes, out_dir.path(), options);
            if std::fs::read_to_string(&new).unwrap() == src {
                continue;
            }
            changed += 1;
            let opts = CheckOptions {
                entry: entry.clone(),
                ..CheckOptions::default()
            };
            let report = check(file, &new, &opts)
                .unwrap_or_else(|e| panic!("{} {passes:?}: {e}", file.display()));
            assert!(
                report.equal,
                "{} {passes:?}: {:?}",
                file.display(),
                report.variables
            );
            assert!(!report.variables.is_empty());
        }
    }
    assert!(
        changed >= 25,
        "only {changed} transformed programs were checked"
    );
}

/// Function entries are timed in one process, alternating the versions; each version's times
/// must come from its own file (a handle binds the file on the path when it is made).
#[test]
fn interleaved_timing_times_each_version_from_its_own_file() {
    if !octave_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (slow, fast) = (dir.path().join("slow"), dir.path().join("fast"));
    std::fs::create_dir_all(&slow).unwrap();
    std::fs::create_dir_all(&fast).unwrap();
    let (a, b) = (slow.join("slowfast.m"), fast.join("slowfast.m"));
    std::fs::write(&a, "function y = slowfast(n)\npause(0.03);\ny = n;\nend\n").unwrap();
    std::fs::write(&b, "function y = slowfast(n)\ny = n;\nend\n").unwrap();
    let opts = CheckOptions {
        entry: Some("slowfast(1)".into()),
        repetitions: 3,
        ..CheckOptions::default()
    };
    let t = check(&a, &b, &opts).unwrap().timing.unwrap();
    // pause(0.03) bounds the slow version from below; the fast one is a single assignment.
    assert!(t.original_median_s >= 0.029, "{t:?}");
    assert!(t.transformed_median_s < 0.029, "{t:?}");
    let t = check(&b, &a, &opts).unwrap().timing.unwrap();
    assert!(
        t.original_median_s < 0.029 && t.transformed_median_s >= 0.029,
        "{t:?}"
    );
}

/// A trivial function timed interleaved costs microseconds, not the ~10 ms of a file reload.
#[test]
fn interleaved_timing_does_not_reload_the_function_file() {
    if !octave_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (a_dir, b_dir) = (dir.path().join("a"), dir.path().join("b"));
    std::fs::create_dir_all(&a_dir).unwrap();
    std::fs::create_dir_all(&b_dir).unwrap();
    let (a, b) = (a_dir.join("tiny.m"), b_dir.join("tiny.m"));
    std::fs::write(&a, "function y = tiny(n)\ny = n + 1;\nend\n").unwrap();
    std::fs::write(&b, "function y = tiny(n)\ny = 1 + n;\nend\n").unwrap();
    let opts = CheckOptions {
        entry: Some("tiny(1)".into()),
        repetitions: 20,
        ..CheckOptions::default()
    };
    let t = check(&a, &b, &opts).unwrap().timing.unwrap();
    // Reloading a file takes milliseconds; a call of one addition, tens of microseconds at most
    // even on a loaded machine. 2 ms separates the two by two orders of magnitude.
    assert!(t.original_median_s < 2e-3, "{t:?}");
    assert!(t.transformed_median_s < 2e-3, "{t:?}");
}

fn pair(dir: &Path, name: &str, a: &str, b: &str) -> (PathBuf, PathBuf) {
    let (da, db) = (dir.join("a"), dir.join("b"));
    std::fs::create_dir_all(&da).unwrap();
    std::fs::create_dir_all(&db).unwrap();
    let (pa, pb) = (da.join(format!("{name}.m")), db.join(format!("{name}.m")));
    std::fs::write(&pa, a).unwrap();
    std::fs::write(&pb, b).unwrap();
    (pa, pb)
}

/// Issue 14: a kernel without outputs compares nothing, so check must refuse it (the
/// Livermore kernels of the thesis's author have this form).
#[test]
fn an_entry_without_outputs_is_refused() {
    if !octave_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = pair(
        dir.path(),
        "kernel",
        "function kernel(n)\nx = zeros(1, n);\nfor i = 1:n\n  x(i) = i;\nend\nend\n",
        "function kernel(n)\nx = zeros(1, n) + 99;\nend\n",
    );
    let opts = CheckOptions {
        entry: Some("kernel(5)".into()),
        ..CheckOptions::default()
    };
    let err = check(&a, &b, &opts).unwrap_err();
    assert!(
        matches!(err, metron_matlab::octave::CheckError::Input { .. }),
        "{err}"
    );
    assert!(err.to_string().contains("no outputs"), "{err}");
}

/// Issue 14: `uint8(200)+n` is not `200+n` (class), and a 1x4 is not a 4x1 (size) even with
/// equal values.
#[test]
fn class_and_size_are_compared() {
    if !octave_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = pair(
        dir.path(),
        "typed",
        "function [y, v] = typed(n)\ny = 200 + n;\nv = 1:4;\nend\n",
        "function [y, v] = typed(n)\ny = uint8(200) + n;\nv = (1:4)';\nend\n",
    );
    let opts = CheckOptions {
        entry: Some("typed(5)".into()),
        ..CheckOptions::default()
    };
    let report = check(&a, &b, &opts).unwrap();
    assert!(!report.equal);
    let y = &report.variables.iter().find(|v| v.name == "y").unwrap();
    assert!(!y.equal && y.reason.contains("class"), "{y:?}");
    assert_eq!(
        (y.class_original.as_str(), y.class_transformed.as_str()),
        ("double", "uint8")
    );
    let v = &report.variables.iter().find(|v| v.name == "v").unwrap();
    assert!(!v.equal && v.reason.contains("size"), "{v:?}");
}

/// Issue 14: an error raised by a version is its own outcome, with Octave's message.
#[test]
fn an_octave_error_is_not_a_difference() {
    if !octave_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = pair(
        dir.path(),
        "oob",
        "function y = oob(n)\nx = 1:n;\ny = x(n);\nend\n",
        "function y = oob(n)\nx = 1:n;\ny = x(n + 1);\nend\n",
    );
    let opts = CheckOptions {
        entry: Some("oob(3)".into()),
        ..CheckOptions::default()
    };
    match check(&a, &b, &opts).unwrap_err() {
        metron_matlab::octave::CheckError::ProgramFailed { which, message } => {
            assert_eq!(which, "transformed");
            assert!(message.contains("out of bound"), "{message}");
        }
        e => panic!("expected ProgramFailed, got {e}"),
    }
}
