//! `metron pep` on bad input: a clear message naming the file and line (or the event, or the
//! program) and exit code 2; and the whole path on a good trace.

use std::process::Command;

fn metron(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_metron"))
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../metron-pep/tests/data/with_address.trace"
);

#[test]
fn malformed_traces_fail_at_their_line_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let head = "@trace_start:e:1:1:b:v:1:1\n@perf_events:cpu-clock,page-faults\n1,2\n";
    for (body, line, what) in [
        ("2,3,4\n@trace_end\n", 4, "3 values, expected 2"),
        ("2,x\n@trace_end\n", 4, "is not a non-negative integer"),
        ("2,3\n", 4, "missing @trace_end"),
    ] {
        let p = dir.path().join("bad.trace");
        std::fs::write(&p, format!("{head}{body}")).unwrap();
        let (code, _, err) = metron(&["pep", "show", p.to_str().unwrap()]);
        assert_eq!(code, 2, "{err}");
        assert!(
            err.contains(&format!("bad.trace:{line}:")) && err.contains(what),
            "{err}"
        );
    }
}

#[test]
fn unsupported_events_and_programs_that_cannot_start_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("x.trace");
    let out = out.to_str().unwrap();
    let (code, _, err) = metron(&[
        "pep",
        "record",
        "--sample",
        "cpu-clock:100000",
        "-e",
        "MEM_INST_RETIRED:ALL_LOADS",
        "-o",
        out,
        "--",
        "true",
    ]);
    // libpfm4 may know the name (it reads the CPU model) while the VM has no PMU to count it.
    assert_eq!(code, 2);
    assert!(
        err.contains("MEM_INST_RETIRED:ALL_LOADS")
            && (err.contains("raw code") || err.contains("no PMU")),
        "{err}"
    );
    let (code, _, err) = metron(&[
        "pep",
        "record",
        "--sample",
        "cpu-clock:100000",
        "-o",
        out,
        "--",
        "/nonexistent/prog",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/prog"), "{err}");
    let (code, _, err) = metron(&[
        "pep",
        "record",
        "--sample",
        "cpu-clock",
        "-o",
        out,
        "--",
        "true",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("EVENT:THRESHOLD"), "{err}");
    // Hardware events: either this machine has a PMU, or the refusal says why and what instead.
    let (code, _, err) = metron(&[
        "pep",
        "record",
        "--sample",
        "cycles:1000000",
        "--no-observer-check",
        "-o",
        out,
        "--",
        "true",
    ]);
    if code != 0 {
        assert_eq!(code, 2);
        assert!(err.contains("cycles") && err.contains("cpu-clock"), "{err}");
    }
    let (code, out, _) = metron(&["pep", "events"]);
    assert_eq!(code, 0);
    assert!(out.contains("cpu-clock"));
    assert_eq!(
        out.contains("No hardware PMU"),
        out.lines()
            .any(|l| l.starts_with("cycles") && l.contains(" no "))
    );
}

#[test]
fn the_fixture_shows_regions_and_converts_to_csv() {
    let (code, out, err) = metron(&[
        "pep",
        "regions",
        FIXTURE,
        "--data-copy",
        "MEM_INST_RETIRED:ALL_LOADS,MEM_INST_RETIRED:ALL_STORES",
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v[1]["regions"][0]["first_sample"], 10);
    let (code, out, _) = metron(&["pep", "csv", FIXTURE]);
    assert_eq!(code, 0);
    let lines: Vec<&str> = out.lines().collect();
    // 4 member events x (11 + 17) samples, plus the header.
    assert_eq!(lines.len(), 1 + 4 * 28);
    assert_eq!(lines[1], "1,R2018b,1,1,execution_model_examples,lcpc19_example1,FP_ARITH_INST_RETIRED:SCALAR_DOUBLE,1000000,1,100012,0,0");
    let (code, _, err) = metron(&["pep", "regions", FIXTURE, "--predicate", "NOPE > 1"]);
    assert_eq!(code, 2);
    assert!(err.contains("NOPE"), "{err}");
}

#[test]
fn groups_measured_separately_align_back_into_one() {
    // Split the fixture's first trace into two groups (loads; stores) on the same sampling
    // event, as two runs would measure them; aligned, they are the original group.
    let text = std::fs::read_to_string(FIXTURE).unwrap();
    let rows: Vec<Vec<&str>> = text
        .lines()
        .skip(2)
        .take_while(|l| !l.starts_with('@'))
        .map(|l| l.split(',').collect())
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, col: usize, event: &str| {
        let mut s =
            format!("@trace_start:R2018b:1:1:b:v:1:1\n@perf_events:INST_RETIRED:ANY_P,{event}\n");
        for r in &rows {
            s.push_str(&format!("{},{}\n", r[0], r[col]));
        }
        s.push_str("@trace_end\n");
        let p = dir.path().join(name);
        std::fs::write(&p, s).unwrap();
        p.to_str().unwrap().to_string()
    };
    let a = write("a.trace", 3, "MEM_INST_RETIRED:ALL_LOADS");
    let b = write("b.trace", 4, "MEM_INST_RETIRED:ALL_STORES");
    let out = dir.path().join("ab.trace");
    let (code, _, err) = metron(&["pep", "align", &a, &b, "-o", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let got = std::fs::read_to_string(&out).unwrap();
    let want: String = rows
        .iter()
        .map(|r| format!("{},{},{}\n", r[0], r[3], r[4]))
        .collect();
    assert!(got.contains(&want), "{got}");
    assert!(got.contains(
        "@perf_events:INST_RETIRED:ANY_P,MEM_INST_RETIRED:ALL_LOADS,MEM_INST_RETIRED:ALL_STORES"
    ));
}
