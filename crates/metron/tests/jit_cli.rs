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
