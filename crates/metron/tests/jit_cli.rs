//! `metron jit` end to end: exit codes and messages for bad input (issue 15's usability list).
use std::path::{Path, PathBuf};
use std::process::Command;

fn metron() -> Command {
    Command::new(env!("CARGO_BIN_EXE_metron"))
}

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../metron-jit/tests/fixtures/paper_fig1.log")
}

fn run(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, String) {
    let out = metron().args(args).output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn analyze(path: &Path, extra: &[&str]) -> (Option<i32>, String, String) {
    let mut args: Vec<&std::ffi::OsStr> = vec!["jit".as_ref(), "analyze".as_ref(), path.as_ref()];
    args.extend(extra.iter().map(|s| std::ffi::OsStr::new(*s)));
    run(&args)
}

#[test]
fn a_truncated_log_exits_1_and_says_where() {
    let text = std::fs::read_to_string(fixture()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    // cut inside the bridge section
    let cut = text.find("# bridge out of").unwrap() + 10;
    let path = dir.path().join("cut.log");
    std::fs::write(&path, &text[..cut]).unwrap();
    let (code, _, err) = analyze(&path, &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("truncated at line 27"), "{err}");
    // a valid header followed by garbage
    let path = dir.path().join("garbage.log");
    std::fs::write(
        &path,
        "[0a] {jit-summary\nTracing: 1 0.1\n[0b] jit-summary}\n\u{1}\u{2}garbage\nmore garbage\n",
    )
    .unwrap();
    let (code, _, err) = analyze(&path, &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("truncated at line 4"), "{err}");
    // the whole fixture is fine
    let (code, out, err) = analyze(&fixture(), &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("Γ = "), "{out}");
    assert!(out.contains("operations (001 Eq. 4)"), "CMC's unit: {out}");
}

#[test]
fn bad_weights_are_rejected_with_the_file_and_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.txt");
    std::fs::write(&empty, "# nothing here\n").unwrap();
    let (code, _, err) = analyze(&fixture(), &["--weights", empty.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("empty.txt") && err.contains("no weights"),
        "{err}"
    );
    let typo = dir.path().join("typo.txt");
    std::fs::write(&typo, "numerc 1e-9\nguard 2e-9\n").unwrap();
    let (code, _, err) = analyze(&fixture(), &["--weights", typo.to_str().unwrap()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("unknown operation class `numerc`"), "{err}");
    let good = dir.path().join("good.txt");
    std::fs::write(&good, "# seconds per operation\nnumeric 1e-9\nguard 2e-9\n").unwrap();
    let (code, out, err) = analyze(&fixture(), &["--weights", good.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains(" s (001 Eq. 4)"), "Γ in seconds: {out}");
}

#[test]
fn fragments_show_where_they_start_and_bridges_have_names() {
    let (code, out, err) = analyze(&fixture(), &["--top", "10"]);
    assert_eq!(code, Some(0), "{err}");
    // l2 to j1 starts at the label's merge point, the inner loop's test
    let row = out.lines().find(|l| l.contains("l2 to j1")).unwrap();
    assert!(
        row.trim_end()
            .ends_with("(let ([if_0 (> iter numb2)]) ...)"),
        "{row}"
    );
    // without counters: the static table names the bridge by where its guard is
    let text = std::fs::read_to_string(fixture()).unwrap();
    let cut = text.find("[0a1b2d0200] {jit-backend-counts").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("nocounts.log");
    std::fs::write(&path, &text[..cut]).unwrap();
    let (code, out, err) = analyze(&path, &[]);
    assert_eq!(code, Some(0), "{err}");
    let row = out.lines().find(|l| l.contains("bridge 0x")).unwrap();
    assert!(row.contains("from "), "{row}");
}

#[test]
fn warnings_beyond_twenty_are_summarised() {
    let text = std::fs::read_to_string(fixture()).unwrap();
    let bad: String = (0..50).map(|i| format!("entry x{i}:1\n")).collect();
    let text = text.replace("entry 0:100001\n", &format!("entry 0:100001\n{bad}"));
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("noisy.log");
    std::fs::write(&path, text).unwrap();
    let (code, _, err) = analyze(&path, &[]);
    assert_eq!(code, Some(0), "{err}");
    let full = err
        .lines()
        .filter(|l| l.contains("expected a counter"))
        .count();
    assert_eq!(full, 20, "{err}");
    assert!(err.contains("... and 30 more warnings"), "{err}");
}

#[test]
fn record_fails_on_an_unwritable_log_and_passes_output_through() {
    let Some(_) = metron_measure::tool::testing::require(&metron_measure::tool::PYPY3) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("hello.py");
    std::fs::write(&script, "print('hello from pypy')\nraise SystemExit(3)\n").unwrap();
    let (code, _, err) = run(&[
        "jit".as_ref(),
        "record".as_ref(),
        "-o".as_ref(),
        "/nonexistent/dir/x.log".as_ref(),
        "--".as_ref(),
        script.as_os_str(),
    ]);
    assert_ne!(code, Some(0), "{err}");
    assert!(err.contains("/nonexistent/dir/x.log"), "{err}");
    let log = dir.path().join("x.log");
    let (code, out, err) = run(&[
        "jit".as_ref(),
        "record".as_ref(),
        "-o".as_ref(),
        log.as_os_str(),
        "--".as_ref(),
        script.as_os_str(),
    ]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        out.contains("hello from pypy"),
        "the program's output: {out}"
    );
    assert!(err.contains("exit status 3"), "{err}");
}

#[test]
fn graph_prints_dot_and_json() {
    let (code, out, err) = run(&["jit".as_ref(), "graph".as_ref(), fixture().as_os_str()]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("\"g2\" -> \"b2\""), "{out}");
    let (code, out, err) = run(&[
        "--json".as_ref(),
        "jit".as_ref(),
        "graph".as_ref(),
        fixture().as_os_str(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["edges"].as_array().unwrap().len() >= 7, "{out}");
}

/// A model file written by hand: CMC only, with weights chosen for the test.
fn hand_model(dir: &Path) -> PathBuf {
    let model = serde_json::json!({
        "format": "metron-jit-model", "version": 1, "machine": "test", "clock": "cpu",
        "corpus": "by hand", "startup_measured": null, "classes": [],
        "models": [{
            "trace_model": "CMC",
            "weights": {"startup.constant": 0.05, "compiled.operations": 1e-9,
                        "warmup.jit_seconds": 2.0, "gc.seconds": 1.0},
            "statistics": {"programs": 0, "observations": 0, "r_squared": 0.0,
                "r_squared_uncentered": 0.0, "loo_median_abs_error": 0.0, "loo_spearman": 0.0,
                "baseline_median_abs_error": 0.0, "kfold_median_abs_error": 0.0, "k_folds": 0,
                "held_out": []}
        }],
        "observations": []
    });
    let path = dir.join("model.json");
    std::fs::write(&path, model.to_string()).unwrap();
    path
}

#[test]
fn predict_breaks_a_log_down_by_term_and_rejects_bad_models() {
    let dir = tempfile::tempdir().unwrap();
    let model = hand_model(dir.path());
    let log =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../metron-jit/tests/fixtures/pypy_nested.log");
    let args: Vec<&std::ffi::OsStr> = vec![
        "--json".as_ref(),
        "jit".as_ref(),
        "predict".as_ref(),
        log.as_ref(),
        "--model".as_ref(),
        model.as_ref(),
        "--trace-model".as_ref(),
        "cmc".as_ref(),
    ];
    let (code, out, err) = run(&args);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let total = v["prediction"]["seconds"].as_f64().unwrap();
    let terms = v["prediction"]["terms"].as_array().unwrap();
    let term = |name: &str| {
        terms.iter().find(|t| t["term"] == name).unwrap()["seconds"]
            .as_f64()
            .unwrap()
    };
    let sum: f64 = terms.iter().map(|t| t["seconds"].as_f64().unwrap()).sum();
    assert!((sum - total).abs() < 1e-12 && total.is_finite());
    // the fixture's jit-summary: Tracing 0.005401 s, Backend 0.000619 s; no GC sections
    assert!((term("startup") - 0.05).abs() < 1e-12);
    assert!((term("warmup") - 2.0 * (0.005401 + 0.000619)).abs() < 1e-12);
    assert_eq!(term("gc"), 0.0);
    // compiled = 1e-9 × Γ_CMC, the Γ `analyze` reports for the same log
    let (_, analysed, _) = run(&[
        "--json".as_ref(),
        "jit".as_ref(),
        "analyze".as_ref(),
        log.as_ref(),
    ]);
    let gamma = serde_json::from_str::<serde_json::Value>(&analysed).unwrap()["gamma"]
        .as_f64()
        .unwrap();
    assert!(gamma > 1e6);
    assert!((term("compiled") - 1e-9 * gamma).abs() < 1e-12);
    // the default CMW is not in this file; a file that is not a model; a missing log
    let predict = |log: &Path, model: &Path| {
        run(&[
            "jit".as_ref(),
            "predict".as_ref(),
            log.as_ref(),
            "--model".as_ref(),
            model.as_ref(),
        ])
    };
    let (code, _, err) = predict(&log, &model);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("holds no CMW model"), "{err}");
    let (code, _, err) = predict(&log, &log);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("pypy_nested.log: line 1: not JSON"), "{err}");
    let missing = dir.path().join("missing.log");
    let (code, _, err) = run(&[
        "jit".as_ref(),
        "predict".as_ref(),
        missing.as_ref(),
        "--model".as_ref(),
        model.as_ref(),
        "--trace-model".as_ref(),
        "cmc".as_ref(),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("missing.log"), "{err}");
}

#[test]
fn calibrate_writes_a_model_file_that_predict_reads() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("../metron-jit/tests/fixtures");
    // two programs with the same real log and different times: enough for a fit and for
    // leave-one-program-out
    let logs = dir.path().join("logs");
    std::fs::create_dir(&logs).unwrap();
    for name in ["a", "b"] {
        std::fs::copy(
            fixtures.join("pypy_nested.log"),
            logs.join(format!("{name}.log")),
        )
        .unwrap();
    }
    let times = dir.path().join("times.csv");
    std::fs::write(&times, "program,seconds\na,0.1\nb,0.3\n").unwrap();
    let model = dir.path().join("model.json");
    let (code, out, err) = run(&[
        "jit".as_ref(),
        "calibrate".as_ref(),
        logs.as_ref(),
        "--times".as_ref(),
        times.as_ref(),
        "-o".as_ref(),
        model.as_ref(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.contains("leave-one-program-out"), "{out}");
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&model).unwrap()).unwrap();
    assert_eq!(v["format"], "metron-jit-model");
    assert_eq!(v["version"], 1);
    let models: Vec<&str> = v["models"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["trace_model"].as_str().unwrap())
        .collect();
    assert_eq!(models, ["CMW", "CMC", "CM0"]);
    // same features, times 0.1 and 0.3: the least-relative-squares fit predicts the same for
    // both, t minimising (t/0.1 − 1)² + (t/0.3 − 1)²: t = (1/0.1 + 1/0.3) / (1/0.1² + 1/0.3²)
    // = 13.33 / 111.1 = 0.12 (an absolute least-squares fit would give the mean, 0.2)
    let (code, out, err) = run(&[
        "--json".as_ref(),
        "jit".as_ref(),
        "predict".as_ref(),
        logs.join("a.log").as_ref(),
        "--model".as_ref(),
        model.as_ref(),
    ]);
    assert_eq!(code, Some(0), "{err}");
    let p: serde_json::Value = serde_json::from_str(&out).unwrap();
    let t = p["prediction"]["seconds"].as_f64().unwrap();
    assert!((t - 0.12).abs() < 1e-9, "{t}");
}
