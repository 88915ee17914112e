//! `metron static` end to end: exit codes for bad input, and a model + validation run.
use std::path::Path;
use std::process::Command;

fn metron() -> Command {
    Command::new(env!("CARGO_BIN_EXE_metron"))
}

/// The catalogue tool named `program`, or a visible skip (a failure under CI:
/// metron_measure::tool::testing). `_package` is kept for the call sites' readability.
fn have(program: &str, _package: &str) -> bool {
    metron_measure::tool::testing::require_named(program).is_some()
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
    assert!(metron_measure::tool::testing::command("gcc")
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
    assert!(metron_measure::tool::testing::command("gcc")
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
    assert!(metron_measure::tool::testing::command("gcc")
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
    assert!(metron_measure::tool::testing::command("gcc")
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
            // Without a PMU (virtual machines) the promise is the other half: say why not.
            let why = perf["unavailable"].as_str().unwrap();
            assert!(why.contains("instructions:u"), "{why}");
        }
    }
}

/// valgrind 3.19 gives up on clang 14's DWARF 5 of a program of two source files ("Possibly
/// corrupted debuginfo file"); validate still measures it (through a debug-info-free copy),
/// and models both files.
#[test]
fn clang_dwarf5_program_of_two_files_validates() {
    if !have("clang", "clang-14") || !have("valgrind", "valgrind") || !have("objcopy", "binutils") {
        return;
    }
    let clang = metron_measure::tool::CLANG.locate().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/static/two_files");
    let bin = dir.path().join("dot");
    assert!(Command::new(clang)
        .args(["-g", "-O0"])
        .arg(src.join("main.c"))
        .arg(src.join("dot.c"))
        .arg("-o")
        .arg(&bin)
        .status()
        .unwrap()
        .success());
    let out = metron()
        .args(["--json", "static", "validate"])
        .arg(&bin)
        .args(["--param", "n=300", "--", "300"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let text = v.to_string();
    assert!(text.contains("\"main\""), "{text}");
    // main's loop fills two arrays of 300: callgrind counted it, so it ran under valgrind.
    assert!(!text.contains("Possibly corrupted"), "{text}");
    // Both translation units are modelled: dot.c's `dot` (300 iterations at -O0) is exact.
    let dot = v
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["region"] == "dot")
        .unwrap_or_else(|| panic!("dot.c's function is not modelled: {text}"));
    assert!(
        dot["measured"]["total"].as_f64().unwrap() > 3000.0,
        "{text}"
    );
    assert_eq!(dot["error_percent"].as_f64(), Some(0.0), "{text}");
}

/// A macro's conditions on data (`CLAMP`: a `?:` inside a `?:`) share a line: the human
/// output names it once with how many, `--json` keeps each.
#[test]
fn conditions_on_data_sharing_a_line_are_named_once_with_how_many() {
    if !have("gcc", "gcc") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/corpus/saturate.c");
    let bin = dir.path().join("saturate");
    assert!(Command::new("gcc")
        .args(["-g", "-O0"])
        .arg(&src)
        .arg("-o")
        .arg(&bin)
        .status()
        .unwrap()
        .success());
    let run = |json: bool| {
        let mut c = metron();
        if json {
            c.arg("--json");
        }
        let out = c
            .args(["static", "--function", "saturate"])
            .arg(&bin)
            .env("METRON_CACHE_DIR", "off")
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let human = run(false);
    let named: Vec<&str> = human
        .lines()
        .filter(|l| l.contains("DATA-DEPENDENT saturate.c:21"))
        .collect();
    assert_eq!(named.len(), 1, "{human}");
    let v: serde_json::Value = serde_json::from_str(&run(true)).unwrap();
    let at_21 = v.to_string().matches("\"line\":21").count();
    assert!(at_21 >= 2, "{v}");
    assert!(
        named[0].contains(&format!("{at_21} on the line")),
        "{human}\n{v}"
    );
}
