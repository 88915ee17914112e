//! `metron tune` end to end on the real binary: resume after kill -9, failed units never
//! retried unless asked, stderr tails kept, bad projects refused with exit code 2.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod common;

const METRON: &str = env!("CARGO_BIN_EXE_metron");

/// 24 units; each run logs itself, sleeps, prints its value. Unit a=5,b=3 fails loudly.
const PROJECT: &str = r#"
[[range]]
name = "a"
start = 0
count = 6

[[range]]
name = "b"
start = 0
count = 4

[run]
shell = true
command = "echo {a},{b} >> \"$LOG\"; sleep 0.3; if [ {a} = 5 ] && [ {b} = 3 ]; then echo boom-{a}-{b} >&2; exit 7; fi; echo value: $(( ({a} - 3) * ({a} - 3) + {b} + 1 ))"
env = { LOG = "{project_dir}/runs.log" }

[fitness]
source = "regex"
pattern = "value: ([0-9]+)"
"#;

/// Runs a command that must succeed; its output.
fn succeed(cmd: &mut Command) -> std::process::Output {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn setup() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("p.toml");
    std::fs::write(&p, PROJECT).unwrap();
    (dir, p)
}

fn metron(dir: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(METRON);
    c.arg("--store")
        .arg(dir.join("m.db"))
        .arg("--quiet")
        .args(args);
    c
}

fn finished(dir: &Path) -> Vec<PathBuf> {
    let mut v = Vec::new();
    let mut stack = vec![dir.join("library")];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.ends_with("result.json") || p.ends_with("FAILED") {
                v.push(d.clone());
            }
        }
    }
    v
}

fn run_log(dir: &Path) -> HashMap<String, usize> {
    let mut m = HashMap::new();
    for l in std::fs::read_to_string(dir.join("runs.log"))
        .unwrap_or_default()
        .lines()
    {
        *m.entry(l.to_string()).or_insert(0) += 1;
    }
    m
}

fn key_of(unit: &Path) -> String {
    // library/_A/_B -> "A,B"
    let b = unit
        .file_name()
        .unwrap()
        .to_string_lossy()
        .trim_start_matches('_')
        .to_string();
    let a = unit
        .parent()
        .unwrap()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .trim_start_matches('_')
        .to_string();
    format!("{a},{b}")
}

fn show_json(dir: &Path, p: &Path) -> serde_json::Value {
    let out = succeed(metron(dir, &["--json", "tune", "show"]).arg(p));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn resumes_after_kill_9_without_redoing_or_losing_units() {
    let (tmp, p) = setup();
    let dir = tmp.path();
    let mut child = metron(dir, &["tune", "run", "--all", "--cores", "2"])
        .arg(&p)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill at a known point: once at least 8 units are finished.
    let start = Instant::now();
    while finished(dir).len() < 8 {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "campaign made no progress"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let before: Vec<String> = finished(dir).iter().map(|u| key_of(u)).collect();
    assert!(before.len() >= 8 && before.len() < 24, "{}", before.len());

    // One unit fails, so not every unit has a fitness; the campaign itself succeeds.
    succeed(metron(dir, &["tune", "run", "--all", "--cores", "2"]).arg(&p));
    let log = run_log(dir);
    for k in &before {
        assert_eq!(
            log[k], 1,
            "unit {k} finished before the kill and was run again"
        );
    }
    assert_eq!(finished(dir).len(), 24);
    for a in 0..6 {
        for b in 0..4 {
            assert!(
                log.contains_key(&format!("{a},{b}")),
                "unit {a},{b} never ran"
            );
        }
    }
    // Every result reached the store, including any written just before the kill.
    let shown = show_json(dir, &p);
    assert_eq!(shown["rows"].as_array().unwrap().len(), 23);
    assert_eq!(shown["failed"], 1);
    // The optimum of (a-3)^2 + b + 1 is a=3, b=0 with 1.
    let best = shown["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["value"].as_f64().unwrap())
        .fold(f64::INFINITY, f64::min);
    assert_eq!(best, 1.0);
}

#[test]
fn failed_units_are_not_retried_unless_asked_and_keep_their_stderr() {
    let (tmp, p) = setup();
    let dir = tmp.path();
    for _ in 0..2 {
        succeed(metron(dir, &["tune", "run", "--all"]).arg(&p));
    }
    assert_eq!(run_log(dir)["5,3"], 1);
    let failed = std::fs::read_to_string(dir.join("library/_5/_3/FAILED")).unwrap();
    assert!(
        failed.contains("boom-5-3") && failed.contains("exit code 7"),
        "{failed}"
    );
    // The store has the tail too.
    let db = rusqlite::Connection::open(dir.join("m.db")).unwrap();
    let tail: String = db
        .query_row(
            "SELECT stderr_tail FROM tune_units WHERE key = '_5/_3'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(tail.contains("boom-5-3"));
    let out = metron(dir, &["tune", "run", "--all", "--retry-failed"])
        .arg(&p)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(run_log(dir)["5,3"], 2);
    assert_eq!(run_log(dir)["0,0"], 1);
}

#[test]
fn ga_writes_thesis_outputs_and_respects_the_budget() {
    let (tmp, p) = setup();
    let dir = tmp.path();
    succeed(
        metron(
            dir,
            &[
                "tune",
                "run",
                "--max-unique",
                "10",
                "--population",
                "6",
                "--repeat",
                "2",
            ],
        )
        .arg(&p),
    );
    for r in 0..2 {
        let cnv = std::fs::read_to_string(dir.join(format!("out/Convergence_{r}.cnv"))).unwrap();
        let mut lines = cnv.lines();
        assert_eq!(lines.next(), Some("10"), "{cnv}");
        let bests: Vec<f64> = lines
            .next()
            .unwrap()
            .split(';')
            .map(|x| x.parse().unwrap())
            .collect();
        assert!(
            bests.windows(2).all(|w| w[1] <= w[0]),
            "elitism keeps the best: {bests:?}"
        );
        let g0 = dir.join(format!("out/run_{r}/genetic_generation_0"));
        let best = std::fs::read_dir(&g0)
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .file_name();
        assert_eq!(best.to_string_lossy(), format!("Best: {}", bests[0]));
    }
}

#[test]
fn bad_projects_exit_2_naming_the_line() {
    let (tmp, p) = setup();
    let dir = tmp.path();
    let cases = [
        (
            PROJECT.replace("echo value:", "echo {c} value:"),
            "unknown placeholder {c}",
            14,
        ),
        (
            PROJECT.replace("name = \"b\"", "name = \"a\""),
            "defined twice",
            8,
        ),
        (
            format!("{PROJECT}\n[restrictions]\nrequire = [\"a > 10\"]\n"),
            "space is empty",
            0,
        ),
    ];
    for (text, msg, line) in cases {
        std::fs::write(&p, text).unwrap();
        let out = metron(dir, &["tune", "run"]).arg(&p).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(msg), "{err}");
        assert!(err.contains(&format!("p.toml:{line}:")), "{err}");
    }
}

#[test]
fn fitness_region_missing_from_the_profile_is_an_input_error() {
    let (tmp, p) = setup();
    let dir = tmp.path();
    // A run that writes a metron-probe profile without the region asked for.
    let profile = r#"{"format":"metron-probe-profile","version":1,"rank":0,"host":"h","pid":1,"cmdline":["x"],"start_time_unix_ns":0,"clock":{"name":"monotonic","ticks_per_ns":1.0,"calibration":"none","granularity_ns":1.0},"call_tree":false,"threads":[{"index":0,"tid":1,"name":null,"tree_errors":0,"timeline_events":0,"timeline_dropped":0,"regions":[{"name":"setup","total_ns":5.0,"count":1,"mean_ns":5.0,"min_ns":5.0,"max_ns":5.0,"errors":0,"open_at_exit":false}],"tree":[]}]}"#;
    std::fs::write(dir.join("prof.json"), profile).unwrap();
    let text = PROJECT
        .replace(
            "if [ {a} = 5 ]",
            "cp {project_dir}/prof.json $METRON_PROFILE_DIR/metron-rank0.json; if [ {a} = 5 ]",
        )
        .replace(
            "source = \"regex\"\npattern = \"value: ([0-9]+)\"",
            "source = \"probe\"\nregion = \"solve\"",
        );
    std::fs::write(&p, text).unwrap();
    let out = metron(dir, &["tune", "run", "--random", "1"])
        .arg(&p)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("region `solve` is not in the profile"),
        "{err}"
    );
}

/// The example solver (MPI ranks, OpenMP threads, probe fitness) run locally, killed with -9
/// once its first unit is done, and run again: nothing finished is rebuilt or rerun.
#[test]
fn example_campaign_runs_locally_and_resumes_after_kill_9() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let p = common::example_project(dir);
    let lib = common::probe_library();
    let args = ["tune", "run", "--random", "4", "--cores", "2"];
    let mut child = metron(dir, &args)
        .arg(&p)
        .env("METRON_PROBE_LIB", &lib)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while finished(dir).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(300),
            "no unit finished"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let stamp = |u: &Path, f: &str| std::fs::metadata(u.join(f)).and_then(|m| m.modified()).ok();
    let before: Vec<_> = finished(dir)
        .into_iter()
        .map(|u| {
            (
                stamp(&u, ".done-build"),
                stamp(&u, "result.json").or(stamp(&u, "FAILED")),
                u,
            )
        })
        .collect();
    succeed(
        metron(dir, &["--json"])
            .args(&args[..])
            .arg(&p)
            .env("METRON_PROBE_LIB", &lib),
    );
    for (build, result, u) in &before {
        assert_eq!(&stamp(u, ".done-build"), build, "{} rebuilt", u.display());
        assert_eq!(
            &stamp(u, "result.json").or(stamp(u, "FAILED")),
            result,
            "{} rerun",
            u.display()
        );
    }
    let units = finished(dir);
    assert_eq!(units.len(), 4);
    let ok: Vec<&PathBuf> = units
        .iter()
        .filter(|u| u.join("result.json").exists())
        .collect();
    assert!(!ok.is_empty(), "every unit failed");
    for u in ok {
        // Fitness is the probe's `solve` region, one profile per MPI rank.
        let unit: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(u.join("unit.json")).unwrap()).unwrap();
        let ranks: usize = unit["params"][0][1].as_str().unwrap().parse().unwrap();
        assert_eq!(unit["params"][0][0], "ranks");
        let profiles = std::fs::read_dir(u.join("profile")).unwrap().count();
        assert_eq!(profiles, ranks, "{}", u.display());
        assert!(std::fs::read_to_string(u.join("poisson.knowledge"))
            .unwrap()
            .contains("smoother = "));
    }
}

#[test]
fn show_filters_places_on_x_and_groups_like_the_processing_tool() {
    let (tmp, p) = setup();
    let dir = tmp.path();
    succeed(metron(dir, &["tune", "run", "--all", "--cores", "2"]).arg(&p));
    let out = succeed(
        metron(
            dir,
            &[
                "--json", "tune", "show", "--filter", "a>3", "--filter", "b<3", "--x", "a + b",
            ],
        )
        .arg(&p),
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Brute force over a in {4, 5}, b in {0, 1, 2}: value (a-3)^2 + b + 1, grouped by a + b.
    let mut want: std::collections::BTreeMap<i64, Vec<f64>> = Default::default();
    for a in 4..6i64 {
        for b in 0..3i64 {
            want.entry(a + b)
                .or_default()
                .push(((a - 3) * (a - 3) + b + 1) as f64);
        }
    }
    let groups = v["groups"].as_array().unwrap();
    assert_eq!(groups.len(), want.len());
    for (g, (x, vals)) in groups.iter().zip(&want) {
        assert_eq!(g["x"].as_f64().unwrap(), *x as f64);
        assert_eq!(g["units"].as_u64().unwrap() as usize, vals.len());
        assert_eq!(
            g["min"].as_f64().unwrap(),
            vals.iter().copied().fold(f64::INFINITY, f64::min)
        );
        assert_eq!(
            g["max"].as_f64().unwrap(),
            vals.iter().copied().fold(f64::NEG_INFINITY, f64::max)
        );
        assert_eq!(
            g["avg"].as_f64().unwrap(),
            vals.iter().sum::<f64>() / vals.len() as f64
        );
    }
    // CSV keeps the failed unit, as a replay table must.
    let out = metron(dir, &["tune", "show", "--csv"])
        .arg(&p)
        .output()
        .unwrap();
    let csv = String::from_utf8_lossy(&out.stdout);
    assert!(csv.starts_with("a,b,fitness\n"), "{csv}");
    assert!(csv.contains("5,3,failed"), "{csv}");
    assert_eq!(csv.lines().count(), 25);
}

#[test]
fn consistency_check_recovers_the_store_and_refuses_a_tampered_folder() {
    let (tmp, p) = setup();
    let dir = tmp.path();
    let out = metron(dir, &["tune", "run", "--random", "3"])
        .arg(&p)
        .output()
        .unwrap();
    assert!(out.status.success());
    // Results that never reached the store (kill -9 between the two writes) come back.
    let db = rusqlite::Connection::open(dir.join("m.db")).unwrap();
    db.execute("DELETE FROM tune_units", []).unwrap();
    let out = Command::new(METRON)
        .arg("--store")
        .arg(dir.join("m.db"))
        .args(["tune", "run", "--random", "3"])
        .arg(&p)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("3 results recovered into the store"), "{err}");
    let n: i64 = db
        .query_row("SELECT count(*) FROM tune_units", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 3);
    // A parameter file that does not belong to its folder is an error, not a silent rerun.
    let unit = finished(dir).pop().unwrap();
    let f = unit.join("unit.json");
    let text = std::fs::read_to_string(&f).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let b = v["params"][1][1].as_str().unwrap().to_string();
    let other = if b == "0" { "1" } else { "0" };
    std::fs::write(
        &f,
        text.replacen(&format!("\"{b}\""), &format!("\"{other}\""), 1),
    )
    .unwrap();
    let out = metron(dir, &["tune", "run", "--random", "3"])
        .arg(&p)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("not of its folder"), "{err}");
}

/// Units needing 2 cores never run beside others on a budget of 2; 1-core units run side by
/// side. Wall-time fitness repeats the run stage.
#[test]
fn local_pool_keeps_the_core_budget_and_wall_fitness_repeats() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let p = dir.join("p.toml");
    std::fs::write(
        &p,
        r#"
[[range]]
name = "i"
start = 0
count = 4

[[range]]
name = "c"
start = 1
count = 2

[run]
command = ["sh", "-c", "echo $0 $1 start $(date +%s.%N) >> \"$LOG\"; sleep 0.3; echo $0 $1 end $(date +%s.%N) >> \"$LOG\"", "{i}", "{c}"]
env = { LOG = "{project_dir}/pool.log" }
cores = "c"

[fitness]
source = "wall"
repetitions = 2
"#,
    )
    .unwrap();
    let out = succeed(metron(dir, &["--json", "tune", "run", "--all", "--cores", "2"]).arg(&p));
    let log = std::fs::read_to_string(dir.join("pool.log")).unwrap();
    // 8 units x 2 repetitions.
    assert_eq!(log.lines().filter(|l| l.contains(" start ")).count(), 16);
    let mut events: Vec<(f64, i64)> = log
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let cores: i64 = f[1].parse().unwrap();
            let t: f64 = f[3].parse().unwrap();
            (t, if f[2] == "start" { cores } else { -cores })
        })
        .collect();
    events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let (mut busy, mut most, mut side_by_side) = (0, 0, false);
    for (_, d) in &events {
        busy += d;
        most = most.max(busy);
        side_by_side |= busy == 2 && *d == 1;
    }
    assert!(most <= 2, "core budget exceeded: {most}\n{log}");
    assert!(side_by_side, "1-core units never ran side by side\n{log}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["best"].as_f64().unwrap() >= 0.3, "{v}");
}

/// A value is one argument without a shell, and a quoted word with `shell = true`: never code.
#[test]
fn values_are_never_spliced_into_a_shell_as_code() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let p = dir.join("p.toml");
    for (shell, command) in [
        (
            true,
            r#"command = "printf '%s|' {v} > out.txt; echo value: 1""#,
        ),
        (
            false,
            r#"command = ["sh", "-c", "printf '%s|' \"$0\" > out.txt; echo value: 1", "{v}"]"#,
        ),
    ] {
        let _ = std::fs::remove_dir_all(dir.join("library"));
        std::fs::write(
            &p,
            format!(
                r#"
[[list]]
name = "v"
values = ["a b; touch pwned", "$(touch pwned2)"]

[run]
shell = {shell}
{command}

[fitness]
source = "regex"
pattern = "value: ([0-9]+)"
"#
            ),
        )
        .unwrap();
        succeed(metron(dir, &["tune", "run", "--all"]).arg(&p));
        assert_eq!(finished(dir).len(), 2);
        for unit in finished(dir) {
            let got = std::fs::read_to_string(unit.join("out.txt")).unwrap();
            assert!(
                got == "a b; touch pwned|" || got == "$(touch pwned2)|",
                "shell={shell}: {got}"
            );
        }
        assert!(
            !unit_file_exists(dir, "pwned") && !unit_file_exists(dir, "pwned2"),
            "shell={shell}"
        );
    }
}

fn unit_file_exists(dir: &Path, name: &str) -> bool {
    finished(dir).iter().any(|u| u.join(name).exists()) || dir.join(name).exists()
}

#[test]
fn import_gp_converts_the_thesis_listing_and_refuses_code() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let gp = Path::new(env!("CARGO_MANIFEST_DIR")).join("../metron-tune/tests/data/strong.gp");
    let out = succeed(metron(dir, &["tune", "import-gp"]).arg(&gp));
    let toml = String::from_utf8_lossy(&out.stdout);
    assert!(
        toml.contains("name = \"l3tmp_smoother\"\nvalues = ['\"GS\"', '\"Jac\"', '\"RBGS\"']"),
        "{toml}"
    );
    assert!(toml.contains("max_unique = 20"), "{toml}");
    let bad = dir.join("bad.gp");
    std::fs::write(
        &bad,
        "population_size = 30\nrange_genes_def = [x for x in y]\n",
    )
    .unwrap();
    let out = metron(dir, &["tune", "import-gp"])
        .arg(&bad)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("bad.gp:2:"), "{err}");
}

/// A GA campaign killed with -9 and run again with the same seed takes the same path: the
/// convergence file equals that of an uninterrupted run, and no finished unit ran twice.
#[test]
fn ga_resumes_after_kill_9_on_the_same_path() {
    let ga = [
        "tune",
        "run",
        "--max-unique",
        "12",
        "--population",
        "6",
        "--cores",
        "2",
    ];
    let (whole, p_whole) = setup();
    succeed(metron(whole.path(), &ga).arg(&p_whole));
    let (tmp, p) = setup();
    let dir = tmp.path();
    let mut child = metron(dir, &ga)
        .arg(&p)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while finished(dir).len() < 4 {
        assert!(start.elapsed() < Duration::from_secs(120), "no progress");
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before: Vec<String> = finished(dir).iter().map(|u| key_of(u)).collect();
    succeed(metron(dir, &ga).arg(&p));
    let log = run_log(dir);
    for k in &before {
        assert_eq!(log[k], 1, "unit {k} ran again");
    }
    let cnv = |d: &Path| std::fs::read_to_string(d.join("out/Convergence.cnv")).unwrap();
    assert_eq!(cnv(dir), cnv(whole.path()));
    assert!(cnv(dir).starts_with("12\n"));
}
