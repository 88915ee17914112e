//! The Octave interface (000 App. B, mPAPI's role): the MEX functions in `octave/` are built
//! with mkoctfile on metron-pep's C ABI and called from an `.m` script with software events.
//! Needs octave-cli and mkoctfile (Debian's octave-dev); fails with the install line without them.

use std::path::{Path, PathBuf};

const MEX: &[&str] = &[
    "metron_counters_start",
    "metron_counters_stop",
    "metron_trace_start",
    "metron_trace_stop",
];

/// A missing tool fails the test under CI with its install line, and is a visible skip
/// elsewhere (metron_measure::tool::testing).
fn need(tool: metron_measure::tool::Tool) -> bool {
    metron_measure::tool::testing::require(&tool).is_some()
}

/// The directory holding libmetron_pep.so built for this test run.
fn library_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    for dir in [deps, deps.parent().unwrap()] {
        if dir.join("libmetron_pep.so").exists() {
            return dir.to_path_buf();
        }
    }
    panic!("libmetron_pep.so not found beside {}", exe.display());
}

fn build_mex(out: &Path) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lib = library_dir();
    for f in MEX {
        let o = metron_measure::tool::testing::command("mkoctfile")
            .current_dir(out)
            .arg("--mex")
            .arg(format!("-I{}", src.join("include").display()))
            .arg(format!("-I{}", src.join("octave").display()))
            .arg("-o")
            .arg(out.join(format!("{f}.mex")))
            .arg(src.join("octave").join(format!("{f}.c")))
            .arg(format!("-L{}", lib.display()))
            .arg("-lmetron_pep")
            .arg(format!("-Wl,-rpath,{}", lib.display()))
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "mkoctfile {f}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

#[test]
fn octave_counts_and_traces_through_the_mex_interface() {
    if !need(metron_pep::OCTAVE_CLI) || !need(metron_pep::MKOCTFILE) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    build_mex(dir.path());
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("octave/test_metron_pep.m"),
        dir.path().join("test_metron_pep.m"),
    )
    .unwrap();
    let trace = dir.path().join("octave.trace");
    let o = metron_measure::tool::testing::command("octave-cli")
        .current_dir(dir.path())
        .args(["--no-gui", "--norc", "--eval"])
        .arg(format!("test_metron_pep('{}')", trace.display()))
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        o.status.success() && out.contains("metron-pep octave: ok"),
        "octave-cli failed:\n{out}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let traces = metron_pep::trace::read_file(&trace).unwrap();
    assert_eq!(traces.len(), 2);
    assert_eq!(traces[0].name.benchmark, "loop1");
    assert_eq!(traces[1].name.in_process, "2");
    assert_eq!(
        traces[0].events,
        vec!["cpu-clock", "task-clock", "page-faults"]
    );
    for t in &traces {
        assert!(t.rows.len() >= 20, "{} samples", t.rows.len());
        // Members created enabled: the first sample holds a whole interval of task-clock.
        let first = &t.rows[0];
        assert!(first[1] as f64 >= 0.8 * first[0] as f64, "{first:?}");
    }
}
