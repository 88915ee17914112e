//! Every way `metron measure`, `history`, `show`, `profile` and `probe` used to answer wrongly
//! or exit 0 on a failure (issue 16): each case runs the real binary and checks both the exit
//! code and the message.

mod common;

use std::process::Stdio;
use std::time::Duration;

use common::*;

#[test]
fn an_unmet_ci_target_exits_1_and_is_not_called_complete() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(&dir);
    // No six runs of a process have a median CI a millionth of the median wide.
    let out = run(
        &[
            "measure",
            "--target-ci",
            "0.0001",
            "--min-runs",
            "3",
            "--max-runs",
            "6",
            "--",
            "sh",
            "-c",
            "exit 0",
        ],
        &store,
    );
    let err = expect_exit(&out, 1, "target CI 0.0001% not met: reached");
    assert!(err.contains("after 6 runs"), "{err}");
    let table = stdout(&out);
    assert!(table.contains("NOT MET"), "{table}");
    assert!(
        !table.contains("narrower than 0.0001%"),
        "claims the target: {table}"
    );
    let history = json(&run(&["--json", "history"], &store));
    assert_eq!(history[0]["status"], "incomplete");
    let table = stdout(&run(&["history"], &store));
    assert!(
        table.contains(" incomplete ") && !table.contains(" complete "),
        "{table}"
    );
    let shown = json(&run(&["--json", "show", "1"], &store));
    let target = &shown["benchmarks"][0]["target"];
    assert_eq!(target["met"], false);
    assert!(target["reached_pct"].as_f64().unwrap() > 0.0001);

    // A target that any two runs meet: exit 0, complete, and the table says met.
    let out = run(
        &[
            "measure",
            "--target-ci",
            "100000",
            "--min-runs",
            "2",
            "--",
            "true",
        ],
        &store,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains(": met"), "{}", stdout(&out));
    assert_eq!(
        json(&run(&["--json", "history"], &store))[0]["status"],
        "complete"
    );
}

#[test]
fn a_metric_this_machine_cannot_measure_exits_2_listing_what_it_can() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(&dir);
    let out = run(
        &[
            "measure",
            "--no-counters",
            "--metric",
            "task-clock",
            "--runs",
            "2",
            "--",
            "true",
        ],
        &store,
    );
    let err = expect_exit(
        &out,
        2,
        "--metric task-clock: this machine cannot measure it",
    );
    assert!(err.contains("metrics it can measure: wall-time"), "{err}");
    assert!(!err.contains("task-clock,"), "it is off: {err}");
    // instructions: refused with the same message where there is no PMU, measured where
    // there is one; never "no successful run" with exit 0.
    let out = run(
        &[
            "--json",
            "measure",
            "--metric",
            "instructions",
            "--runs",
            "2",
            "--",
            "true",
        ],
        &store,
    );
    if out.status.success() {
        let v = json(&out);
        assert!(
            metric(&v["benchmarks"][0], "instructions")["median"]
                .as_f64()
                .unwrap()
                > 0.0
        );
    } else {
        expect_exit(
            &out,
            2,
            "--metric instructions: this machine cannot measure it",
        );
    }
}

#[test]
fn a_zero_byte_file_is_not_a_store() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.db");
    std::fs::write(&empty, "").unwrap();
    for args in [
        &["measure", "--runs", "1", "--", "true"][..],
        &["history"][..],
    ] {
        let out = run(args, &empty);
        expect_exit(&out, 2, "not a metron store");
        assert!(stderr(&out).contains("0 bytes"), "{}", stderr(&out));
        assert_eq!(std::fs::metadata(&empty).unwrap().len(), 0);
    }
}

#[test]
fn a_read_only_store_can_be_listed_and_shown() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().join("archive");
    std::fs::create_dir(&archive).unwrap();
    let store = archive.join("metron.db");
    json(&run(
        &["--json", "measure", "--runs", "2", "--", "true"],
        &store,
    ));
    let before = std::fs::read(&store).unwrap();
    // A read-only file in a read-only directory, as an archive is. root ignores permission
    // bits, so the reader runs as `nobody` when the test runs as root.
    let set = |p: &std::path::Path, mode: u32| {
        std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode)).unwrap()
    };
    set(&store, 0o444);
    set(&archive, 0o555);
    set(dir.path(), 0o755);
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    let reader = |args: &[&str]| {
        let mut c = if root {
            let mut c = std::process::Command::new("setpriv");
            c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
                .arg(env!("CARGO_BIN_EXE_metron"));
            c
        } else {
            std::process::Command::new(env!("CARGO_BIN_EXE_metron"))
        };
        c.env_remove("METRON_STORE")
            .stdin(Stdio::null())
            .arg("--store")
            .arg(&store)
            .args(args)
            .output()
            .unwrap()
    };
    // The setup really is read-only for the reader: measuring into it fails.
    let write = reader(&["measure", "--runs", "1", "--", "true"]);
    assert_eq!(write.status.code(), Some(2), "{}", stderr(&write));
    let history = reader(&["history"]);
    assert!(history.status.success(), "{}", stderr(&history));
    assert!(
        stdout(&history).contains("complete"),
        "{}",
        stdout(&history)
    );
    let shown = reader(&["--json", "show", "1"]);
    assert!(shown.status.success(), "{}", stderr(&shown));
    let v: serde_json::Value = serde_json::from_slice(&shown.stdout).unwrap();
    assert_eq!(v["benchmarks"][0]["runs"].as_array().unwrap().len(), 2);
    set(&archive, 0o755);
    assert_eq!(
        std::fs::read(&store).unwrap(),
        before,
        "reading changed the store"
    );
}

#[test]
fn one_corrupt_experiment_is_skipped_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(&dir);
    for _ in 0..3 {
        json(&run(
            &["--json", "measure", "--runs", "1", "--", "true"],
            &store,
        ));
    }
    rusqlite::Connection::open(&store)
        .unwrap()
        .execute(
            "UPDATE experiments SET environment = '{\"cores\": ' WHERE id = 2",
            [],
        )
        .unwrap();
    let out = run(&["history"], &store);
    assert!(out.status.success(), "{}", stderr(&out));
    let listed: Vec<String> = stdout(&out)
        .lines()
        .skip(1)
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect();
    assert_eq!(listed, ["3", "1"]);
    let err = stderr(&out);
    assert!(
        err.contains("skipped") && err.contains("experiment 2") && err.contains("environment"),
        "{err}"
    );
    expect_exit(&run(&["show", "2"], &store), 2, "environment");
    assert!(run(&["show", "3"], &store).status.success());
}

#[test]
fn programs_that_cannot_run_say_why() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(&dir);
    let script = dir.path().join("bench.sh");
    std::fs::write(&script, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o644)).unwrap();
    let path = script.to_str().unwrap();
    let out = run(&["measure", "--runs", "1", "--", path], &store);
    expect_exit(&out, 2, "not executable");
    assert!(stderr(&out).contains(&format!("chmod +x {path}")));
    let out = run(
        &["measure", "--runs", "1", "--", dir.path().to_str().unwrap()],
        &store,
    );
    expect_exit(&out, 2, "is a directory");
    let out = metron()
        .current_dir(dir.path())
        .args([
            "--store",
            store.to_str().unwrap(),
            "measure",
            "--",
            "bench.sh",
        ])
        .output()
        .unwrap();
    expect_exit(&out, 2, "write ./bench.sh");
}

#[test]
fn an_export_into_a_missing_directory_fails_before_measuring() {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(&dir);
    for flag in ["--export-csv", "--export-json", "--export-markdown"] {
        let out = run(
            &[
                "measure",
                "--runs",
                "1",
                flag,
                "/nonexistent/metron/out",
                "--",
                "true",
            ],
            &store,
        );
        expect_exit(
            &out,
            2,
            "cannot write /nonexistent/metron/out: no such directory",
        );
    }
    assert!(!store.exists(), "nothing was measured or stored");
}

#[test]
fn probe_calibrate_with_no_pairs_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&["probe", "calibrate", "--n", "0"], &store_in(&dir));
    expect_exit(&out, 2, "--n");
}

fn a_profile(dir: &std::path::Path) -> std::path::PathBuf {
    {
        let _r = metron_probe::region!("cli.test");
    }
    let path = dir.join("p.json");
    std::fs::write(
        &path,
        metron_probe::output::to_json(&metron_probe::snapshot()),
    )
    .unwrap();
    path
}

#[test]
fn profile_output_into_a_missing_directory_exits_2() {
    let dir = tempfile::tempdir().unwrap();
    let profile = a_profile(dir.path());
    let p = profile.to_str().unwrap();
    for args in [
        &["profile", "merge", p, "-o", "/nonexistent/metron/out.json"][..],
        &[
            "profile",
            "export",
            p,
            "--folded",
            "-o",
            "/nonexistent/metron/out.folded",
        ][..],
    ] {
        let out = run(args, &store_in(&dir));
        expect_exit(&out, 2, "cannot write /nonexistent/metron/out");
    }
}

#[test]
fn binary_files_get_the_offset_and_the_expected_format() {
    let dir = tempfile::tempdir().unwrap();
    let elf = dir.path().join("a.out");
    std::fs::write(&elf, b"\x7fELF\x02\x01\x01\x00\x00\x00").unwrap();
    let latin1 = dir.path().join("latin1.json");
    std::fs::write(&latin1, b"{\"format\": \"caf\xe9\"}").unwrap();
    for (file, offset) in [(&elf, "byte offset 7"), (&latin1, "byte offset 15")] {
        for cmd in ["show", "merge"] {
            let out = run(&["profile", cmd, file.to_str().unwrap()], &store_in(&dir));
            let err = expect_exit(&out, 2, offset);
            assert!(err.contains(file.to_str().unwrap()), "{err}");
            assert!(err.contains("expected a metron-probe profile"), "{err}");
        }
    }
}

/// SIGTERM or SIGINT to metron reaches the measured program, which is reaped; the run in
/// flight is not recorded and the experiment is closed as interrupted.
fn signal_reaches_the_child(signal: &str, code: i32) {
    let dir = tempfile::tempdir().unwrap();
    let store = store_in(&dir);
    let pidfile = dir.path().join("pid");
    let script = format!(
        "echo $$ > {0}.tmp && mv {0}.tmp {0}; exec sleep 60",
        pidfile.display()
    );
    let child = metron()
        .args([
            "--store",
            store.to_str().unwrap(),
            "-q",
            "measure",
            "--runs",
            "5",
        ])
        .args(["--warmup", "0", "--", "sh", "-c", &script])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let measured = wait_for_pid(&pidfile);
    assert!(running(measured));
    send_signal(child.id(), signal);
    let out = child.wait_with_output().unwrap();
    expect_exit(&out, code, "interrupted by signal");
    // metron waited for it: gone by the time metron exited, not left as an orphan.
    assert!(!running(measured), "the measured sleep is still running");
    let history = json(&run(&["--json", "history"], &store));
    assert_eq!(history[0]["status"], "interrupted");
    assert_eq!(
        history[0]["runs"], 0,
        "the interrupted run must not be recorded"
    );
    std::thread::sleep(Duration::from_millis(10));
}

#[test]
fn sigterm_is_forwarded_to_the_measured_program() {
    signal_reaches_the_child("-TERM", 143);
}

#[test]
fn sigint_is_forwarded_to_the_measured_program() {
    signal_reaches_the_child("-INT", 130);
}
