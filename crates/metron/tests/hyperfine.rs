//! hyperfine's options in `metron measure`, with hyperfine's meanings (issue 16).

mod common;

use common::*;

#[test]
fn setup_prepare_and_cleanup_run_where_hyperfine_runs_them() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    let l = log.display();
    let out = run(
        &[
            "measure",
            "--runs",
            "2",
            "--warmup",
            "1",
            "-p",
            "N=1,2",
            "--setup",
            &format!("echo setup {{N}} >> {l}"),
            "--prepare",
            &format!("echo prepare >> {l}"),
            "--cleanup",
            &format!("echo cleanup {{N}} >> {l}"),
            "--",
            "sh",
            "-c",
            &format!("echo run {{N}} >> {l}"),
        ],
        &store_in(&dir),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let got = std::fs::read_to_string(&log).unwrap();
    let per = |n: u32| {
        let mut v = vec![format!("setup {n}")];
        for _ in 0..3 {
            v.push("prepare".into());
            v.push(format!("run {n}"));
        }
        v.push(format!("cleanup {n}"));
        v
    };
    let want: Vec<String> = per(1).into_iter().chain(per(2)).collect();
    assert_eq!(got.lines().collect::<Vec<_>>(), want);

    // A failing hook stops the experiment with a message naming it.
    let out = run(
        &[
            "measure",
            "--runs",
            "2",
            "--prepare",
            "exit 3",
            "--",
            "true",
        ],
        &store_in(&dir),
    );
    expect_exit(
        &out,
        2,
        "the prepare command `exit 3` failed with exit status 3",
    );
}

#[test]
fn command_names_and_markdown_export() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(&dir);
    let md = dir.path().join("t.md");
    let out = run(
        &[
            "--json",
            "measure",
            "--runs",
            "3",
            "-n",
            "short {N}",
            "-n",
            "long {N}",
            "-p",
            "N=1",
            "--compare",
            "sleep 0.05",
            "--export-markdown",
            md.to_str().unwrap(),
            "--",
            "sleep",
            "0.01",
        ],
        &store,
    );
    let v = json(&out);
    assert_eq!(v["benchmarks"][0]["name"], "short 1");
    assert_eq!(v["benchmarks"][1]["name"], "long 1");
    // `show` rebuilds the names from the store.
    assert_eq!(json(&run(&["--json", "show", "1"], &store)), v);
    let text = std::fs::read_to_string(&md).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("| Command | Mean [ms] | Min [ms] | Max [ms] | Relative |"),
        "{text}"
    );
    assert_eq!(lines[1], "|:---|---:|---:|---:|---:|---:|");
    assert!(
        lines[2].starts_with("| `short 1` |") && lines[2].contains("| 1.00 |"),
        "{text}"
    );
    // hyperfine's relative column: mean over the fastest mean, here about 5.
    let rel: f64 = lines[3]
        .split('|')
        .nth(5)
        .unwrap()
        .split('±')
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let mean = |i: usize| {
        metric(&v["benchmarks"][i], "wall-time")["mean"]
            .as_f64()
            .unwrap()
    };
    assert!(
        (rel - mean(1) / mean(0)).abs() < 0.006,
        "{rel} vs {}",
        mean(1) / mean(0)
    );
    let table = stdout(&run(&["show", "1"], &store));
    assert!(table.contains("short 1 (sleep 0.01)"), "{table}");
}

#[test]
fn default_run_count_fills_a_three_second_budget() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(
        &[
            "--json",
            "measure",
            "--min-runs",
            "2",
            "--",
            "sleep",
            "0.25",
        ],
        &store_in(&dir),
    );
    let v = json(&out);
    let runs = v["benchmarks"][0]["runs"].as_array().unwrap();
    let first = runs[0]["metrics"]["wall-time"].as_f64().unwrap();
    // hyperfine's rule: the first counted run decides, ceil(3 s / its time), at least --min-runs.
    let expected = ((3.0 / first).ceil() as usize).max(2);
    assert_eq!(runs.len(), expected, "first run {first} s");
    assert!(expected <= 12);
    assert_eq!(v["config"]["stopping"]["mode"], "budget");
    // --max-runs caps it, --runs overrides it.
    let v = json(&run(
        &["--json", "measure", "--max-runs", "3", "--", "true"],
        &store_in(&dir),
    ));
    assert_eq!(v["benchmarks"][0]["runs"].as_array().unwrap().len(), 3);
    let out = run(
        &["measure", "--runs", "3", "--max-runs", "4", "--", "true"],
        &store_in(&dir),
    );
    expect_exit(&out, 2, "--max-runs");
}

#[test]
fn parameter_scans_take_decimal_steps_and_exponents() {
    let dir = tempfile::tempdir().unwrap();
    let values = |args: &[&str]| -> Vec<String> {
        let mut all = vec!["--json", "measure", "--runs", "1", "--warmup", "0"];
        all.extend(args);
        all.extend(["--", "sh", "-c", "exit 0 # {X}"]);
        json(&run(&all, &store_in(&dir)))["benchmarks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["params"]["X"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        values(&["-P", "X", "0", "1", "-D", "0.25"]),
        ["0.00", "0.25", "0.50", "0.75", "1.00"]
    );
    assert_eq!(values(&["-p", "X=1e3..3e3:1e3"]), ["1000", "2000", "3000"]);
    assert_eq!(values(&["-P", "X", "1", "3"]), ["1", "2", "3"]);
    assert_eq!(values(&["-L", "X", "a,b"]), ["a", "b"]);
}

#[test]
fn time_unit_fixes_the_unit_of_every_time() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(
        &["measure", "--runs", "2", "-u", "ms", "--", "true"],
        &store_in(&dir),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let table = stdout(&out);
    let wall = table
        .lines()
        .find(|l| l.trim_start().starts_with("wall time"))
        .unwrap();
    let user = table
        .lines()
        .find(|l| l.trim_start().starts_with("user time"))
        .unwrap();
    for line in [wall, user] {
        assert!(
            line.contains(" ms") && !line.contains("µs") && !line.contains(" s "),
            "{line}"
        );
    }
    let out = run(
        &["measure", "-u", "fortnight", "--", "true"],
        &store_in(&dir),
    );
    expect_exit(&out, 2, "fortnight");
}
