//! `metron demo` runs on a machine set up by scripts/install-deps and says where it wrote.

use std::process::Command;

mod common;

use common::probe_library;

#[test]
fn demo_runs_and_writes_its_outputs() {
    use metron_measure::tool::{self, testing};
    let tools = [
        &tool::CC,
        &tool::CLANG,
        &tool::OPT,
        &tool::VALGRIND,
        &tool::PYPY3,
        &tool::OCTAVE,
    ];
    if testing::require_all(&tools).is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("demo");
    let run = Command::new(env!("CARGO_BIN_EXE_metron"))
        .env("METRON_PROBE_LIB", probe_library())
        .args(["demo", "--quick", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        run.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&run.stderr)
    );
    for file in ["metron.db", "measure.csv", "measure.json"] {
        let path = out.join(file);
        assert!(path.is_file(), "{} missing", path.display());
        assert!(stdout.contains(&path.canonicalize().unwrap().display().to_string()));
    }
    // The probe step needs the static library next to the binary; cargo builds it for the
    // workspace's tests, so it must have run.
    assert!(
        stdout.contains("call tree"),
        "probe step did not show a profile:\n{stdout}"
    );
    let (timelines, profiles): (Vec<String>, Vec<String>) =
        std::fs::read_dir(out.join("probe/profile"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .partition(|n| n.ends_with(".trace.json"));
    assert_eq!(profiles.len(), 4, "one profile per rank: {profiles:?}");
    assert_eq!(timelines.len(), 4, "one timeline per rank: {timelines:?}");
    // The jit step needs pypy3, which scripts/install-deps installs.
    assert!(
        stdout.contains("top source lines"),
        "jit step did not analyse a log (is pypy3 installed?):\n{stdout}"
    );
    for (step, needle) in [
        ("static", "callgrind"),
        ("memory", "N_k"),
        ("contention", "stall/c"),
        (
            "matlab model",
            "chain: copy, copy, {.*}, {cos, ./}, {compute}, {+}",
        ),
        ("matlab check", "equal"),
        ("pep", "region(s) where page-faults == 0"),
    ] {
        assert!(
            stdout.contains(needle),
            "{step} step missing `{needle}`:\n{stdout}"
        );
    }
    let report: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("measure.json")).unwrap()).unwrap();
    // Three sizes, -O0 against -O2 at each.
    assert_eq!(report["benchmarks"].as_array().unwrap().len(), 6);
    assert_eq!(report["comparisons"].as_array().unwrap().len(), 3);
    // Issue 19: the demo ends with one report of every section it produced data for, < 6 MB.
    let page_path = out.join("metron-demo-report.html");
    assert!(stdout.contains(&page_path.canonicalize().unwrap().display().to_string()));
    assert!(std::fs::metadata(&page_path).unwrap().len() < 6_000_000);
    let page = std::fs::read_to_string(&page_path).unwrap();
    for section in [
        "profiles",
        "pep",
        "measurements",
        "tuning",
        "static",
        "memory",
        "jit",
    ] {
        let tag = format!("<section id=\"{section}\">");
        assert!(
            page.contains(&tag),
            "the demo's report has no {section} section"
        );
    }
    // The probe step's timelines give 002 Fig. 2.6 over time.
    assert!(page.contains("timeline, call stacks of every rank"));
}
