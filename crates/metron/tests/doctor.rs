//! `metron doctor`: every catalogue tool with its path and version; a tool hidden from PATH is
//! named with its install line and the exit code is 1.

use std::process::Command;

use metron_measure::tool::{ALL, VALGRIND};

fn doctor(path: Option<&std::ffi::OsStr>) -> (Option<i32>, serde_json::Value, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_metron"));
    cmd.args(["--json", "doctor"]);
    if let Some(p) = path {
        cmd.env("PATH", p);
    }
    let out = cmd.output().unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap();
    (
        out.status.code(),
        json,
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn lists_every_tool_and_names_a_hidden_one() {
    let (_, all, _) = doctor(None);
    let listed: Vec<&str> = all["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["program"].as_str().unwrap())
        .collect();
    let expected: Vec<&str> = ALL.iter().map(|t| t.program).collect();
    assert_eq!(listed, expected);
    for t in all["tools"].as_array().unwrap() {
        assert!(
            t["install"]
                .as_str()
                .unwrap()
                .starts_with("apt-get install -y "),
            "{t}"
        );
        assert!(!t["needed_by"].as_array().unwrap().is_empty(), "{t}");
    }

    // A PATH with links to every tool this machine resolves, except valgrind.
    let dir = tempfile::tempdir().unwrap();
    for t in ALL.iter().filter(|t| t.program != VALGRIND.program) {
        if let Ok(r) = t.resolve() {
            let name = r.path.file_name().unwrap();
            let _ = std::os::unix::fs::symlink(&r.path, dir.path().join(name));
        }
    }
    let (code, hidden, stderr) = doctor(Some(dir.path().as_os_str()));
    assert_eq!(code, Some(1), "{stderr}");
    let vg = hidden["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["program"] == "valgrind")
        .unwrap();
    assert!(vg["resolved"].is_null(), "{vg}");
    assert!(
        stderr.contains("apt-get install -y") && stderr.contains("valgrind"),
        "{stderr}"
    );
}
