//! `metron static` end to end: exit codes for bad input, and a model + validation run.
use std::path::Path;
use std::process::Command;

fn metron() -> Command {
    Command::new(env!("CARGO_BIN_EXE_metron"))
}

fn have(program: &str, package: &str) -> bool {
    if metron_measure::tool::find_on_path(program).is_some() {
        return true;
    }
    eprintln!("skipped: `{program}` not found; install with: apt-get install -y {package}");
    false
}

fn example() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/static/stream.c")
}

#[test]
fn non_elf_and_missing_debug_info_exit_2_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "hello").unwrap();
    let out = metron().arg("static").arg(&text).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not an ELF file"));
    if !have("gcc", "gcc") {
        return;
    }
    let bin = dir.path().join("nodebug");
    assert!(Command::new("gcc")
        .args(["-O2", "-o"])
        .arg(&bin)
        .arg(example())
        .status()
        .unwrap()
        .success());
    let out = metron().arg("static").arg(&bin).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("rebuild with -g"));
    // -gsplit-dwarf leaves the functions and inline frames in a .dwo beside the binary.
    let split = dir.path().join("split");
    assert!(Command::new("gcc")
        .args(["-g", "-gsplit-dwarf", "-O2", "-o"])
        .arg(&split)
        .arg(example())
        .current_dir(dir.path())
        .status()
        .unwrap()
        .success());
    let out = metron().arg("static").arg(&split).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("split DWARF") && err.contains(".dwo"), "{err}");
    let out = metron()
        .args(["static", "--param", "n"])
        .arg(&bin)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn model_json_with_params_and_validation_table() {
    if !have("gcc", "gcc") || !have("clang", "clang") || !have("valgrind", "valgrind") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("stream");
    assert!(Command::new("gcc")
        .args(["-g", "-O0", "-o"])
        .arg(&bin)
        .arg(example())
        .status()
        .unwrap()
        .success());
    let out = metron()
        .args(["static", "--json", "--param", "n=500"])
        .arg(&bin)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let copy = v["functions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["name"] == "copy")
        .unwrap();
    // callgrind counts 16 per element + 14 at -O0 (tests/accuracy.rs in metron-static).
    assert_eq!(copy["total"].as_f64().unwrap(), 16.0 * 500.0 + 14.0);
    // One call in the run: the run's own instructions are the per-call count.
    assert_eq!(copy["run"]["calls"].as_f64(), Some(1.0));
    assert_eq!(copy["run"]["total"].as_f64(), Some(16.0 * 500.0 + 14.0));
    let out = metron()
        .args(["static", "validate", "--json", "-q", "--param", "n=500"])
        .arg(&bin)
        .args(["--", "500"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let copy = rows
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["region"] == "copy")
        .unwrap();
    assert_eq!(copy["error_percent"].as_f64().unwrap(), 0.0);
}

/// `validate --perf`: the PMU's `instructions:u` for the whole native run next to callgrind's
/// whole-run total (both count every user-space instruction: program, ld.so, libc). Where
/// the machine has no PMU the reason is reported instead, and the test checks that.
#[test]
fn validate_perf_compares_whole_run_or_says_why_not() {
    if !have("gcc", "gcc") || !have("clang", "clang") || !have("valgrind", "valgrind") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("stream");
    assert!(Command::new("gcc")
        .args(["-g", "-O2", "-o"])
        .arg(&bin)
        .arg(example())
        .status()
        .unwrap()
        .success());
    let out = metron()
        .args([
            "static", "validate", "--perf", "--json", "-q", "--param", "n=2000",
        ])
        .arg(&bin)
        .args(["--", "2000"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["rows"].as_array().is_some_and(|r| !r.is_empty()));
    let perf = &v["perf"];
    assert!(perf["callgrind_total"].as_u64().unwrap() > 10_000);
    match perf["difference_percent"].as_f64() {
        // Hardware and callgrind agree on a whole deterministic run to within a few percent
        // (callgrind does not see the few instructions of the kernel's signal/vDSO paths).
        Some(d) => assert!(d < 5.0, "{perf}"),
        None => {
            let why = perf["unavailable"].as_str().unwrap();
            assert!(why.contains("instructions:u"), "{why}");
            eprintln!("skipped the perf comparison on this machine: {why}");
        }
    }
}
