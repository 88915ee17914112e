//! Builds examples/c against the probe's static and shared libraries with gcc, runs them (also
//! as four ranks) and checks the profiles. Expected counts follow from the programs' structure;
//! times are checked against the programs' own CLOCK_MONOTONIC reads (`timed.c`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use metron_probe::analysis::{self, Strategy};
use serde_json::Value;

const N: u32 = 512;
const ITER: u64 = 50;
const FIB_N: u32 = 10;

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The catalogue tool, or a visible skip (a failure under CI: metron_measure::tool::testing).
fn have(tool: &str) -> bool {
    metron_measure::tool::testing::require_named(tool).is_some()
}

/// Static and shared library, built by cargo into a target directory of their own (beside the
/// one running this test), so that this works from a clean clone under `cargo test --workspace`
/// and never waits on the lock of the build that runs it.
fn libraries() -> &'static (PathBuf, PathBuf) {
    static LIBS: OnceLock<(PathBuf, PathBuf)> = OnceLock::new();
    LIBS.get_or_init(|| {
        let exe = std::env::current_exe().unwrap();
        // target/<profile>/deps/<test> -> target
        let target = exe.ancestors().nth(3).unwrap().to_path_buf();
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        let out = Command::new(cargo)
            .args([
                "build",
                "-p",
                "metron-probe",
                "--lib",
                "--message-format=json",
            ])
            .env("CARGO_TARGET_DIR", target.join("c-abi"))
            .env("CARGO_BUILD_JOBS", "1")
            .current_dir(workspace())
            .output()
            .expect("run cargo");
        assert!(
            out.status.success(),
            "cargo build failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut a = None;
        let mut so = None;
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let Ok(v) = serde_json::from_str::<Value>(line) else {
                continue;
            };
            if v["reason"] != "compiler-artifact" || v["target"]["name"] != "metron_probe" {
                continue;
            }
            for f in v["filenames"].as_array().unwrap() {
                let p = PathBuf::from(f.as_str().unwrap());
                match p.extension().and_then(|e| e.to_str()) {
                    Some("a") => a = Some(p),
                    Some("so") => so = Some(p),
                    _ => {}
                }
            }
        }
        (
            a.expect("no libmetron_probe.a built"),
            so.expect("no libmetron_probe.so built"),
        )
    })
}

fn compile(compiler: &str, src: &str, out: &Path, shared: bool) {
    let (a, so) = libraries();
    let mut cmd = metron_measure::tool::testing::command(compiler);
    cmd.arg("-O1")
        .arg("-I")
        .arg(workspace().join("include"))
        .arg(workspace().join("examples/c").join(src))
        .arg("-o")
        .arg(out);
    if shared {
        let dir = so.parent().unwrap();
        cmd.arg(format!("-L{}", dir.display()))
            .arg(format!("-Wl,-rpath,{}", dir.display()))
            .arg("-lmetron_probe");
    } else {
        cmd.arg(a).args(["-lpthread", "-ldl", "-lgcc_s"]);
    }
    cmd.arg("-lm");
    let o = cmd.output().unwrap();
    assert!(
        o.status.success(),
        "{compiler} {src} failed:\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

fn run(exe: &Path, dir: &Path, env: &[(&str, &str)]) -> std::process::Output {
    let mut cmd = Command::new(exe);
    cmd.args([N.to_string(), ITER.to_string(), FIB_N.to_string()])
        .env("METRON_PROFILE_DIR", dir)
        .env_remove("METRON_RANK")
        .env_remove("OMPI_COMM_WORLD_RANK")
        .env_remove("PMI_RANK")
        .env_remove("SLURM_PROCID");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.output().unwrap();
    assert!(
        o.status.success(),
        "{} failed: {}",
        exe.display(),
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn internal_calls(x: u32) -> u64 {
    if x <= 1 {
        0
    } else {
        1 + internal_calls(x - 1) + internal_calls(x - 2)
    }
}

fn region<'a>(thread: &'a Value, name: &str) -> &'a Value {
    thread["regions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no region {name}"))
}

fn check_jacobi_profile(p: &Value) {
    let t = &p["threads"][0];
    let count = |n: &str| region(t, n)["count"].as_u64().unwrap();
    assert_eq!(count("main"), 1);
    assert_eq!(count("setup"), 1);
    assert_eq!(count("solve"), 1);
    assert_eq!(count("sweep"), ITER);
    assert_eq!(count("halo"), ITER);
    assert_eq!(count("residual"), ITER.div_ceil(10));
    assert_eq!(count("fib_timer1"), internal_calls(FIB_N));
    // Inclusive recursion: one outermost activation (002 Listing 2.12).
    assert_eq!(count("fib_timer2"), 1);
    for r in t["regions"].as_array().unwrap() {
        assert_eq!(r["errors"], 0);
        assert_eq!(r["open_at_exit"], false);
        let (total, mean, c) = (
            r["total_ns"].as_f64().unwrap(),
            r["mean_ns"].as_f64().unwrap(),
            r["count"].as_f64().unwrap(),
        );
        assert!((mean * c - total).abs() <= 1e-6 * total.max(1.0));
        assert!(r["min_ns"].as_f64().unwrap() <= r["max_ns"].as_f64().unwrap());
    }
    let tree = t["tree"].as_array().unwrap();
    let by_id = |id: u64| &tree[id as usize - 1];
    let path = |n: &Value| {
        let mut v = vec![n["name"].as_str().unwrap().to_string()];
        let mut p = n["parent"].as_u64().unwrap();
        while p != 0 {
            v.insert(0, by_id(p)["name"].as_str().unwrap().to_string());
            p = by_id(p)["parent"].as_u64().unwrap();
        }
        v.join("/")
    };
    let sweep = tree.iter().find(|n| path(n) == "main/solve/sweep").unwrap();
    assert_eq!(sweep["count"].as_u64().unwrap(), ITER);
    // Recursion as nested levels: fib(10) .. fib(2) each open one fib_timer2 level.
    let deepest = tree
        .iter()
        .filter(|n| n["name"] == "fib_timer2")
        .map(|n| n["depth"].as_u64().unwrap())
        .max()
        .unwrap();
    assert_eq!(deepest, 1 + (FIB_N as u64 - 2));
    // Real clock: children's intervals lie inside the parent's.
    for n in tree {
        let kids: f64 = tree
            .iter()
            .filter(|c| c["parent"] == n["id"])
            .map(|c| c["total_ns"].as_f64().unwrap())
            .sum();
        assert!(
            n["total_ns"].as_f64().unwrap() >= kids * 0.999,
            "{}",
            path(n)
        );
    }
    assert!(p["clock"]["granularity_ns"].as_f64().unwrap() > 0.0);
    assert!(p["cmdline"][0].as_str().unwrap().contains("jacobi"));
    assert_eq!(
        p["cmdline"].as_array().unwrap().len(),
        4,
        "program and three arguments"
    );
}

fn read_json(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn c_example_static_and_shared_write_profiles() {
    if !have("gcc") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    for shared in [false, true] {
        let exe = tmp.path().join(if shared { "jacobi-so" } else { "jacobi" });
        compile("gcc", "jacobi.c", &exe, shared);
        let dir = tmp.path().join(if shared { "out-so" } else { "out" });
        run(
            &exe,
            &dir,
            &[("METRON_FORMATS", "csv,folded"), ("METRON_TIMELINE", "100")],
        );
        let files = files_in(&dir);
        assert_eq!(files.len(), 5, "{files:?}");
        let stem = files
            .iter()
            .find(|f| f.ends_with(".timers.csv"))
            .unwrap()
            .trim_end_matches(".timers.csv")
            .to_string();
        assert!(stem.starts_with("metron-pid"), "{stem}");
        let p = read_json(&dir.join(format!("{stem}.json")));
        assert_eq!(p["rank"], Value::Null);
        check_jacobi_profile(&p);
        // 002 Listing 2.34: NAME;total;mean; repeated on one line.
        let timers = std::fs::read_to_string(dir.join(format!("{stem}.timers.csv"))).unwrap();
        let fields: Vec<&str> = timers.trim_end().split(';').collect();
        assert_eq!(fields.len() % 3, 1, "{timers}"); // trailing ';' leaves one empty field
        assert!(fields.chunks(3).any(|c| c[0] == "sweep"));
        let folded = std::fs::read_to_string(dir.join(format!("{stem}.folded"))).unwrap();
        assert!(
            folded.lines().any(|l| l.starts_with("main;solve;sweep ")),
            "{folded}"
        );
        let trace = read_json(&dir.join(format!("{stem}.trace.json")));
        let ev = trace["traceEvents"].as_array().unwrap();
        assert_eq!(ev.len(), 100, "bounded timeline");
        assert_eq!(ev[0]["name"], "main");
        assert_eq!(ev[0]["ph"], "B");
        assert_eq!(
            p["threads"][0]["timeline_dropped"].as_u64().unwrap() + 100,
            2 * total_entries(&p)
        );
    }
}

/// Every enter of every region (tree counts are per entry, flat counts only outermost).
fn total_entries(p: &Value) -> u64 {
    p["threads"][0]["tree"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["count"].as_u64().unwrap())
        .sum()
}

#[test]
fn four_ranks_write_one_file_each_and_merge() {
    if !have("gcc") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let exe = tmp.path().join("jacobi");
    compile("gcc", "jacobi.c", &exe, false);
    let dir = tmp.path().join("ranks");
    for r in 0..4 {
        run(&exe, &dir, &[("METRON_RANK", &r.to_string())]);
    }
    assert_eq!(
        files_in(&dir),
        [
            "metron-rank0.json",
            "metron-rank1.json",
            "metron-rank2.json",
            "metron-rank3.json"
        ]
    );
    for r in 0..4u64 {
        let p = read_json(&dir.join(format!("metron-rank{r}.json")));
        assert_eq!(p["rank"].as_u64(), Some(r));
        check_jacobi_profile(&p);
    }
    let set = analysis::load(&dir).unwrap();
    assert_eq!(
        set.profiles.iter().map(|p| p.rank).collect::<Vec<_>>(),
        [Some(0), Some(1), Some(2), Some(3)]
    );
    let sum = analysis::flat_table(&set, Strategy::Sum);
    let sweep = sum.rows.iter().find(|r| r.name == "sweep").unwrap();
    assert_eq!(sweep.count, 4 * ITER);
    let per: Vec<f64> = sweep.per_unit_ns.iter().map(|v| v.unwrap()).collect();
    assert!((sweep.across_ns - per.iter().sum::<f64>()).abs() < 1e-6 * sweep.across_ns);
    let max = analysis::flat_table(&set, Strategy::Max);
    let m = max.rows.iter().find(|r| r.name == "sweep").unwrap();
    assert_eq!(m.across_ns, per.iter().copied().fold(0.0, f64::max));
    assert!(m.imbalance >= 1.0);
}

#[test]
fn faults_are_flagged_and_unwritable_output_does_not_crash() {
    if !have("gcc") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let exe = tmp.path().join("faults");
    compile("gcc", "faults.c", &exe, false);
    let dir = tmp.path().join("out");
    let o = run(&exe, &dir, &[("METRON_RANK", "7")]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("'left_open' was still open"), "{stderr}");
    assert!(
        stderr.contains("'never_entered' stopped 1 time(s) without a start"),
        "{stderr}"
    );
    let p = read_json(&dir.join("metron-rank7.json"));
    let t = &p["threads"][0];
    assert_eq!(region(t, "left_open")["open_at_exit"], true);
    assert_eq!(region(t, "left_open")["count"], 1);
    assert_eq!(region(t, "never_entered")["errors"], 1);

    // Output into a path below a regular file: one message, exit status untouched.
    let blocker = tmp.path().join("file");
    std::fs::write(&blocker, "").unwrap();
    let jac = tmp.path().join("jacobi");
    compile("gcc", "jacobi.c", &jac, false);
    let o = run(&jac, &blocker.join("sub"), &[]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let msgs: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("metron-probe"))
        .collect();
    assert_eq!(msgs.len(), 1, "{stderr}");
    assert!(msgs[0].contains("cannot write profile"), "{stderr}");
    assert!(String::from_utf8_lossy(&o.stdout).starts_with("residual"));
}

#[test]
fn cpp_raii_wrapper_closes_regions_on_exceptions() {
    if !have("g++") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let exe = tmp.path().join("raii");
    compile("g++", "raii.cpp", &exe, false);
    let dir = tmp.path().join("out");
    let o = run(&exe, &dir, &[("METRON_RANK", "0")]);
    assert_eq!(String::from_utf8_lossy(&o.stdout).trim(), "caught 1");
    let p = read_json(&dir.join("metron-rank0.json"));
    let t = &p["threads"][0];
    let work = region(t, "work");
    assert_eq!(
        (work["count"].as_u64(), work["errors"].as_u64()),
        (Some(5), Some(0))
    );
    assert_eq!(work["open_at_exit"], false);
    // main's guard is a static-duration object in main's scope: it closes when main returns,
    // before the exit handler writes the profile.
    assert_eq!(region(t, "main")["open_at_exit"], false);
}

/// The profile's times against an independent clock: `timed.c` brackets each region with its
/// own CLOCK_MONOTONIC reads, so the probe's total lies just inside the program's, and both
/// are at least the requested sleeps.
#[test]
fn c_region_macros_time_what_an_independent_clock_sees() {
    if !have("gcc") {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    for shared in [false, true] {
        let exe = tmp.path().join(if shared { "timed-so" } else { "timed" });
        compile("gcc", "timed.c", &exe, shared);
        let dir = tmp.path().join(if shared { "out-so" } else { "out" });
        let o = run(&exe, &dir, &[("METRON_RANK", "0")]);
        let own: Vec<(String, f64)> = String::from_utf8_lossy(&o.stdout)
            .lines()
            .map(|l| {
                let (name, ns) = l.split_once(' ').unwrap();
                (name.to_string(), ns.parse().unwrap())
            })
            .collect();
        let p = read_json(&dir.join("metron-rank0.json"));
        let t = &p["threads"][0];
        for (name, own_ns, nap_ms) in [("nap_scope", own[0].1, 20.0), ("nap_pair", own[1].1, 10.0)]
        {
            assert_eq!(own.iter().filter(|(n, _)| n == name).count(), 1);
            let r = region(t, name);
            assert_eq!(r["count"], 5, "{name}");
            let probe = r["total_ns"].as_f64().unwrap();
            println!("{name}: probe {probe:.0} ns, program's clock {own_ns:.0} ns");
            assert!(
                probe >= 5.0 * nap_ms * 1e6,
                "{name}: {probe} ns < the sleeps"
            );
            // Inside the program's interval (up to 0.2% for the TSC frequency calibrated
            // against CLOCK_MONOTONIC), and short of it only by the clock reads and whatever
            // preemption fell between them (5% leaves room for a few time slices of a loaded
            // machine). A unit, clock or calibration error would be far outside.
            assert!(
                probe <= own_ns * 1.002 && probe >= own_ns * 0.95,
                "{name}: probe {probe} vs program {own_ns}"
            );
        }
    }
}
