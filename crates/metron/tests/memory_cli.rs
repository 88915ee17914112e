//! Bad input to `metron memory` and `metron contention` (issue 13): exit 2 with the reason.

use std::process::Command;

fn metron(args: &[&str], dir: &std::path::Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_metron"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const SRC: &str = "double A[8];\nvoid k(int n) { for (int i = 0; i < n; i++) A[i] = 1; }\n\
int main(int c, char **v) { double *p = 0; if (c > 2) return (int)p[7]; k(4); return 0; }\n";

#[test]
fn bad_input_exits_2_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (code, err) = metron(&["contention", "simulate", "--cores", "0"], dir.path());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--cores 0"), "{err}");
    let (code, err) = metron(&["contention", "simulate", "--accesses", "0"], dir.path());
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--accesses 0"), "{err}");
    if metron_measure::tool::testing::require_all(&[
        &metron_measure::tool::CLANG,
        &metron_measure::tool::OPT,
    ])
    .is_none()
    {
        return;
    }
    std::fs::write(dir.path().join("k.c"), SRC).unwrap();
    let (code, err) = metron(
        &["memory", "analyze", "k.c", "-f", "k", "-p", "m=4"],
        dir.path(),
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--param m: no such parameter") && err.contains("n"),
        "{err}"
    );
    let (code, err) = metron(
        &[
            "memory",
            "validate",
            "k.c",
            "-f",
            "k",
            "-p",
            "n=4",
            "--no-independent",
            "--",
            "a",
            "b",
        ],
        dir.path(),
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("killed by signal 11 (SIGSEGV)"), "{err}");
    let (code, err) = metron(
        &[
            "memory",
            "validate",
            "k.c",
            "-f",
            "k",
            "-p",
            "n=4",
            "--no-independent",
        ],
        dir.path(),
    );
    assert_eq!(code, 0, "{err}");
}
