//! Helpers shared by the integration tests: the static probe library, the tune example project
//! in a temporary directory. Each test binary uses a part of them.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

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
    for tool in ["mpicc", "mpirun"] {
        assert!(
            Command::new("sh").args(["-c", &format!("command -v {tool}")]).output().unwrap().status.success(),
            "`{tool}` is not installed: apt-get install -y openmpi-bin libopenmpi-dev (scripts/install-deps)"
        );
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
