//! Helpers shared by the CLI tests: the real binary, a store in a temporary directory, JSON,
//! the static probe library, the tune example project. Each test binary uses a part of them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

pub mod report_inputs;

pub fn metron() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_metron"));
    c.env_remove("METRON_STORE").stdin(Stdio::null());
    c
}

pub fn run(args: &[&str], store: &Path) -> Output {
    metron()
        .arg("--store")
        .arg(store)
        .args(args)
        .output()
        .expect("metron runs")
}

pub fn json(out: &Output) -> Value {
    assert!(
        out.status.success(),
        "metron failed: {}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("valid JSON on stdout")
}

pub fn metric<'a>(bench: &'a Value, name: &str) -> &'a Value {
    bench["metrics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["metric"] == name)
        .unwrap_or_else(|| panic!("no metric {name} in {bench}"))
}

pub fn store_in(dir: &tempfile::TempDir) -> PathBuf {
    dir.path().join("metron.db")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Asserts the exit code and that stderr says `needle`; returns stderr.
pub fn expect_exit(o: &Output, code: i32, needle: &str) -> String {
    let err = stderr(o);
    assert_eq!(
        o.status.code(),
        Some(code),
        "stderr: {err}\nstdout: {}",
        stdout(o)
    );
    assert!(err.contains(needle), "stderr should say `{needle}`: {err}");
    err
}

/// Whether `/proc/PID` is a process that has not ended (zombies have ended).
pub fn running(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        // Field 3, after the parenthesised command name, is the state.
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| !rest.starts_with('Z') && !rest.starts_with('X')),
        Err(_) => false,
    }
}

/// Waits until `path` holds a number (written by a measured script), up to a minute.
pub fn wait_for_pid(path: &Path) -> u32 {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        if let Some(pid) = std::fs::read_to_string(path)
            .ok()
            .and_then(|s| s.trim().parse().ok())
        {
            return pid;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{} never appeared",
            path.display()
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// The static probe library: beside the binary under `cargo test --workspace`, else built into
/// a target directory of its own (as tests/demo.rs does), never waiting on this build's lock.
pub fn probe_library() -> PathBuf {
    let exe = Path::new(env!("CARGO_BIN_EXE_metron"));
    let beside = exe.with_file_name("libmetron_probe.a");
    if beside.is_file() {
        return beside;
    }
    let target = exe.ancestors().nth(2).unwrap().join("c-abi");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let status = Command::new(cargo)
        .args(["build", "-p", "metron-probe", "--lib"])
        .env("CARGO_TARGET_DIR", &target)
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .status()
        .unwrap();
    assert!(status.success(), "building metron-probe failed");
    target.join("debug/libmetron_probe.a")
}

/// examples/tune copied into `dir` (with the probe header), ready for `metron tune run`.
pub fn example_project(dir: &Path) -> PathBuf {
    use metron_measure::tool::{self, testing};
    // Under CI a missing tool fails here with its install line; elsewhere the caller's test
    // cannot go on without it either, so it fails too, naming the line.
    for t in [&tool::MPICC, &tool::MPIRUN] {
        if testing::require(t).is_none() {
            panic!("{}", t.install_line());
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for f in ["poisson.c", "Makefile", "poisson.toml"] {
        std::fs::copy(root.join("examples/tune").join(f), dir.join(f)).unwrap();
    }
    std::fs::copy(
        root.join("include/metron_probe.h"),
        dir.join("metron_probe.h"),
    )
    .unwrap();
    dir.join("poisson.toml")
}

/// `kill -SIG PID` without the `kill` program (procps is not on a minimal Debian): `-TERM`,
/// `-INT` or `-KILL`.
pub fn send_signal(pid: u32, signal: &str) {
    let sig = match signal {
        "-TERM" => libc::SIGTERM,
        "-INT" => libc::SIGINT,
        "-KILL" => libc::SIGKILL,
        other => panic!("unknown signal {other}"),
    };
    // SAFETY: kill(2) on a child this test started; no memory is involved.
    let rc = unsafe { libc::kill(pid as libc::pid_t, sig) };
    assert_eq!(
        rc,
        0,
        "kill {signal} {pid}: {}",
        std::io::Error::last_os_error()
    );
}
