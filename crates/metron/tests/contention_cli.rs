//! `metron contention simulate` with posted writes (issue 13): runs alone and time-sliced;
//! a bad time slice exits 2 with the reason.

use std::process::Command;

fn metron(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_metron"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn posted_writes_run_and_a_bad_slice_exits_2() {
    let common = [
        "contention",
        "simulate",
        "--cores",
        "3",
        "--banks",
        "1",
        "--latency",
        "3",
        "--p",
        "0.15",
        "--accesses",
        "2000",
    ];
    let (code, out, err) = metron(&[&["--json"], &common[..], &["--write-buffer", "8"]].concat());
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let cores = v
        .as_array()
        .or_else(|| v["cores"].as_array())
        .expect("per-core results");
    assert_eq!(cores.len(), 3, "{out}");
    let (code, _, err) = metron(
        &[
            &common[..],
            &["--write-buffer", "2", "--sequential", "shared-core:4"],
        ]
        .concat(),
    );
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = metron(
        &[
            &common[..],
            &["--write-buffer", "2", "--sequential", "shared-core:0"],
        ]
        .concat(),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--sequential"), "{err}");
}
