//! Runs the `threaded_solver` example as a separate process: a Rust program that only uses
//! `region!` and `init`, whose profile is written by the exit handler.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

fn newest_source() -> std::time::SystemTime {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.push(root.join("examples/threaded_solver.rs"));
    files
        .iter()
        .filter_map(|f| f.metadata().and_then(|m| m.modified()).ok())
        .max()
        .unwrap()
}

/// The example as `cargo test` builds it beside this test (target/<profile>/examples) when it
/// is newer than every source file; otherwise built by cargo into a target directory of its
/// own (see tests/c_example.rs for why), which costs a build of the dev-dependencies once.
fn example() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let sibling = exe
        .ancestors()
        .nth(2)
        .unwrap()
        .join("examples/threaded_solver");
    let fresh = sibling
        .metadata()
        .and_then(|m| m.modified())
        .is_ok_and(|t| t > newest_source());
    if fresh {
        return sibling;
    }
    let target = exe.ancestors().nth(3).unwrap().to_path_buf();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args([
            "build",
            "-p",
            "metron-probe",
            "--example",
            "threaded_solver",
            "--message-format=json",
        ])
        .env("CARGO_TARGET_DIR", target.join("c-abi"))
        .env("CARGO_BUILD_JOBS", "1")
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .output()
        .expect("run cargo");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["reason"] == "compiler-artifact" && v["target"]["name"] == "threaded_solver")
        .and_then(|v| v["executable"].as_str().map(PathBuf::from))
        .expect("no threaded_solver executable")
}

fn run(exe: &Path, dir: &Path, env: &[(&str, &str)]) -> Value {
    let mut cmd = Command::new(exe);
    cmd.arg("3")
        .env("METRON_PROFILE_DIR", dir)
        .env("METRON_RANK", "5");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_str(&std::fs::read_to_string(dir.join("metron-rank5.json")).unwrap()).unwrap()
}

fn region<'a>(t: &'a Value, name: &str) -> Option<&'a Value> {
    t["regions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
}

#[test]
fn rust_program_profile_is_written_at_exit_with_all_threads() {
    let exe = example();
    let tmp = tempfile::tempdir().unwrap();
    let p = run(&exe, &tmp.path().join("tree"), &[("METRON_TIMELINE", "50")]);
    assert_eq!(p["rank"], 5);
    assert_eq!(p["call_tree"], true);
    let threads = p["threads"].as_array().unwrap();
    assert_eq!(threads.len(), 4, "main + 3 workers");
    let main = threads
        .iter()
        .find(|t| region(t, "main").is_some())
        .unwrap();
    assert_eq!(main["name"], "main");
    assert_eq!(region(main, "main").unwrap()["open_at_exit"], false);
    let workers: Vec<&Value> = threads
        .iter()
        .filter(|t| region(t, "worker").is_some())
        .collect();
    assert_eq!(workers.len(), 3);
    for w in &workers {
        // worker: 5 x refine(depth 4); refine recurses while the slice is long enough, each
        // level relaxing 5 sweeps. Flat refine counts outermost entries only.
        assert_eq!(region(w, "refine").unwrap()["count"], 5);
        assert_eq!(region(w, "relax").unwrap()["count"], 25);
        assert_eq!(region(w, "sweep").unwrap()["count"], 125);
        let depth_of_refine = w["tree"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|n| n["name"] == "refine")
            .count();
        assert_eq!(
            depth_of_refine, 5,
            "refine at depths 0..=4 of the recursion"
        );
        assert_eq!(w["timeline_events"], 50);
    }
    let tids: std::collections::HashSet<u64> =
        threads.iter().map(|t| t["tid"].as_u64().unwrap()).collect();
    assert_eq!(tids.len(), 4);
    assert!(tmp.path().join("tree/metron-rank5.trace.json").exists());

    let p = run(&exe, &tmp.path().join("flat"), &[("METRON_CALL_TREE", "0")]);
    assert_eq!(p["call_tree"], false);
    for t in p["threads"].as_array().unwrap() {
        assert!(t["tree"].as_array().unwrap().is_empty());
    }
}
