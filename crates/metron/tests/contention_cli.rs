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

/// The 003 Ch. 5 experiment end to end on the small grid (moved here from metron-memory, whose
/// copy of the experiment is gone): every configuration gives samples; without a cache,
/// contention never makes a thread faster; with the MPPA-like private caches and time-sliced
/// sequential runs `gen` (stores only) is never faster in parallel while `mul` (reuse) can be
/// (003 Figs. 5.1, 5.2); on one bank the median relative increase grows with T; the CSV reads
/// back in the `fit` format.
#[test]
fn the_thesis_experiment_runs_end_to_end() {
    if metron_measure::tool::testing::require_all(&[
        &metron_measure::tool::CLANG,
        &metron_measure::tool::OPT,
    ])
    .is_none()
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (csv, store) = (dir.path().join("s.csv"), dir.path().join("s.db"));
    let (code, out, err) = metron(&[
        "contention",
        "experiment",
        "--small",
        "--json",
        "-q",
        "--csv",
        csv.to_str().unwrap(),
        "--store",
        store.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let report: serde_json::Value = serde_json::from_str(&out).unwrap();
    let results = report["results"].as_array().unwrap();
    let faster = |setup: &str, function: &str| -> u64 {
        let r = results
            .iter()
            .find(|r| r["setup"].as_str().unwrap().starts_with(setup) && r["function"] == function)
            .unwrap_or_else(|| panic!("no result for {setup} {function}"));
        let per_t = r["faster_in_parallel"].as_array().unwrap();
        assert_eq!(per_t.len(), 3, "T = 2, 3, 4");
        per_t.iter().map(|x| x[1].as_u64().unwrap()).sum()
    };
    for setup in ["one bank, 1-cycle", "16 banks, word"] {
        assert_eq!(faster(setup, "gen") + faster(setup, "mul"), 0, "{setup}");
    }
    assert_eq!(faster("MPPA-like, one bank", "gen"), 0);
    assert!(faster("MPPA-like, one bank", "mul") > 0);
    for r in results
        .iter()
        .filter(|r| r["setup"].as_str().unwrap().starts_with("one bank"))
    {
        let inc: Vec<f64> = r["relative_increase"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x[1].as_f64().unwrap())
            .collect();
        assert!(
            inc[0] < inc[1] && inc[1] < inc[2],
            "{}: {inc:?}",
            r["function"]
        );
        assert!(!r["models"].as_array().unwrap().is_empty());
    }
    let text = std::fs::read_to_string(&csv).unwrap();
    let samples = metron_contention::data::parse_samples(&text, "s.csv").unwrap();
    assert_eq!(samples.len(), text.lines().count() - 1);
}
