//! The Slurm executor against a real single-node Slurm (slurmctld + slurmd + munged) that
//! `scripts/slurm-local` starts on this machine and stops afterwards. CI installs slurm-wlm and
//! munge (scripts/install-deps); when Slurm cannot start, the test fails with the reason.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

const METRON: &str = env!("CARGO_BIN_EXE_metron");

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/slurm-local")
}

/// Stops the daemons the test started, also when an assertion fails.
struct Cluster(PathBuf);

impl Drop for Cluster {
    fn drop(&mut self) {
        let _ = Command::new(script()).arg("stop").arg(&self.0).status();
    }
}

/// `metron tune run` against the test's Slurm; its JSON result.
fn campaign(conf: &Path, dir: &Path, project: &Path, args: &[&str]) -> serde_json::Value {
    let run = Command::new(METRON)
        .env("SLURM_CONF", conf)
        .env("METRON_PROBE_LIB", common::probe_library())
        .arg("--store")
        .arg(dir.join("m.db"))
        .args(["--quiet", "--json", "tune", "run"])
        .args(args)
        .arg(project)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    serde_json::from_slice(&run.stdout).unwrap()
}

#[test]
fn campaign_runs_through_a_local_slurm() {
    use metron_measure::tool::{self, testing};
    let slurm = [
        &tool::SLURMCTLD,
        &tool::SLURMD,
        &tool::MUNGED,
        &tool::SBATCH,
        &tool::SQUEUE,
    ];
    if testing::require_all(&slurm).is_none() {
        return;
    }
    let tmp = tempfile::tempdir().unwrap();
    let state = tmp.path().join("slurm");
    let out = Command::new(script())
        .arg("start")
        .arg(&state)
        .output()
        .unwrap();
    let _cluster = Cluster(state.clone());
    assert!(
        out.status.success(),
        "could not start a single-node Slurm: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let conf = state.join("slurm.conf");
    let project = tmp.path().join("p.toml");
    std::fs::write(
        &project,
        r#"
[[range]]
name = "a"
start = 0
count = 3

[[list]]
name = "mode"
values = ["ok", "fail"]

[run]
shell = true
command = "echo $SLURM_ARRAY_JOB_ID >> \"$LOG\"; if [ {mode} = fail ]; then echo broken-{a} >&2; exit 4; fi; echo value: $(( {a} + 1 ))"
env = { LOG = "{project_dir}/jobs.log" }

[fitness]
source = "regex"
pattern = "value: ([0-9]+)"

[executor]
kind = "slurm"
batch = 4
"#,
    )
    .unwrap();
    let result = campaign(&conf, tmp.path(), &project, &["--all"]);
    assert_eq!(result["units"], 6);
    assert_eq!(result["progress"]["failed"], 3);
    assert_eq!(result["best"], 1.0);
    // Every unit ran inside a Slurm array task: two batches of at most 4 -> two job ids.
    let jobs = std::fs::read_to_string(tmp.path().join("jobs.log")).unwrap();
    let ids: std::collections::BTreeSet<&str> = jobs.lines().collect();
    assert_eq!(jobs.lines().count(), 6, "{jobs}");
    assert_eq!(ids.len(), 2, "{jobs}");
    assert!(ids.iter().all(|i| i.parse::<u64>().is_ok()), "{jobs}");
    let failed = std::fs::read_to_string(tmp.path().join("library/_2/_fail/FAILED")).unwrap();
    assert!(failed.contains("broken-2"), "{failed}");
    assert!(tmp.path().join("out/slurm/batch-0.sh").exists());

    // The example solver through the same Slurm: mpirun inside an array task, probe fitness.
    let ex = tmp.path().join("example");
    std::fs::create_dir_all(&ex).unwrap();
    let project = common::example_project(&ex);
    let result = campaign(
        &conf,
        &ex,
        &project,
        &["--random", "3", "--executor", "slurm"],
    );
    assert_eq!(result["units"], 3);
    assert!(result["best"].as_f64().unwrap() > 0.0, "{result}");
    assert!(ex.join("out/slurm/batch-0.sh").exists());
}
