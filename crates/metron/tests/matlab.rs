//! End-to-end tests of `metron matlab` on bad input and of `check`'s exit codes (issue 14).

use std::process::{Command, Output, Stdio};

fn metron(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_metron"))
        .env_remove("METRON_STORE")
        .stdin(Stdio::null())
        .args(args)
        .output()
        .expect("metron runs")
}

#[test]
fn a_missing_m_file_is_an_error_not_an_expression() {
    let out = metron(&["matlab", "model", "nope.m"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("nope.m"));
    // A bare expression still is one.
    assert!(metron(&["matlab", "model", "a + b(1:3)"]).status.success());
}

#[test]
fn latin1_comments_are_read_and_written_back_as_latin1() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("lat.m");
    let output = dir.path().join("out.m");
    std::fs::write(
        &input,
        b"function y = lat(n)\n% temp\xe9rature en \xb0C\ny = 2*(1:n) - 1;\nend\n",
    )
    .unwrap();
    let out = metron(&[
        "matlab",
        "transform",
        input.to_str().unwrap(),
        "--passes",
        "range",
        "-o",
        output.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&output).unwrap();
    assert!(bytes.windows(3).any(|w| w == b"p\xe9r"), "Latin-1 kept");
}

#[test]
fn check_tells_different_results_from_an_octave_error() {
    let Some(_) = metron_measure::tool::testing::require(&metron_measure::tool::OCTAVE) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let write = |sub: &str, body: &str| {
        let d = dir.path().join(sub);
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join("k.m");
        std::fs::write(&p, format!("function y = k(n)\nx = 1:n;\n{body}\nend\n")).unwrap();
        p.display().to_string()
    };
    let a = write("a", "y = x(n);");
    let differ = write("b", "y = x(n) + 1;");
    let fails = write("c", "y = x(n + 1);");
    let run = |b: &str| {
        metron(&[
            "matlab",
            "check",
            &a,
            b,
            "--entry",
            "k(3)",
            "--repetitions",
            "0",
        ])
    };
    assert_eq!(run(&a).status.code(), Some(0));
    assert_eq!(run(&differ).status.code(), Some(1));
    let out = run(&fails);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("out of bound"));
}

/// Issue 14: a transformation measured slower beyond noise is not kept.
#[test]
fn check_keeps_the_original_when_the_transformation_is_slower() {
    let Some(_) = metron_measure::tool::testing::require(&metron_measure::tool::OCTAVE) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let write = |sub: &str, body: &str| {
        let d = dir.path().join(sub);
        std::fs::create_dir_all(&d).unwrap();
        let p = d.join("w.m");
        std::fs::write(&p, format!("function y = w(n)\n{body}\ny = n;\nend\n")).unwrap();
        p.display().to_string()
    };
    let fast = write("a", "");
    let slow = write("b", "pause(0.02);");
    let keep = dir.path().join("kept.m");
    let out = metron(&[
        "matlab",
        "check",
        &fast,
        &slow,
        "--entry",
        "w(1)",
        "--repetitions",
        "5",
        "--keep",
        keep.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&keep).unwrap(),
        std::fs::read_to_string(&fast).unwrap()
    );
}
