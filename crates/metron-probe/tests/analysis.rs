//! Reading, merging and the 002 §3.4 strategies, on profiles with hand-chosen numbers.

use metron_probe::analysis::{self, Strategy};
use metron_probe::clock::ClockInfo;
use metron_probe::output;
use metron_probe::profile::{NodeRecord, Profile, RegionRecord, ThreadProfile, FORMAT};

fn region(name: &str, total_ms: f64, count: u64) -> RegionRecord {
    RegionRecord {
        name: name.to_string(),
        total_ns: total_ms * 1e6,
        count,
        mean_ns: total_ms * 1e6 / count as f64,
        min_ns: 1.0,
        max_ns: total_ms * 1e6,
        errors: 0,
        open_at_exit: false,
    }
}

fn node(id: u32, parent: u32, depth: u32, name: &str, total_ms: f64, count: u64) -> NodeRecord {
    NodeRecord {
        id,
        parent,
        depth,
        name: name.to_string(),
        total_ns: total_ms * 1e6,
        count,
        open_at_exit: false,
    }
}

/// Rank r: main = 100 ms containing solve = 10*(r+1) ms (count 5) and io = 2 ms.
fn rank_profile(r: u32) -> Profile {
    let solve = 10.0 * (r + 1) as f64;
    Profile {
        format: FORMAT.to_string(),
        version: 1,
        rank: Some(r),
        host: "node\"1".to_string(),
        pid: 1000 + r,
        cmdline: vec!["./app".into(), "--n=3".into()],
        start_time_unix_ns: 1_700_000_000_000_000_000,
        clock: ClockInfo {
            name: "tsc".into(),
            ticks_per_ns: 2.5,
            calibration: "startup".into(),
            granularity_ns: 10.0,
        },
        call_tree: true,
        threads: vec![ThreadProfile {
            index: 0,
            tid: 42 + r as u64,
            name: Some("main".into()),
            regions: vec![
                region("main", 100.0, 1),
                region("solve", solve, 5),
                region("io", 2.0, 1),
            ],
            tree: vec![
                node(1, 0, 0, "main", 100.0, 1),
                node(2, 1, 1, "solve", solve, 5),
                node(3, 1, 1, "io", 2.0, 1),
            ],
            tree_errors: 0,
            timeline_events: 0,
            timeline_dropped: 0,
        }],
    }
}

fn write_ranks(dir: &std::path::Path) {
    for r in 0..4 {
        std::fs::write(
            dir.join(format!("metron-rank{r}.json")),
            output::to_json(&rank_profile(r)),
        )
        .unwrap();
    }
}

#[test]
fn hand_written_json_reads_back_equal() {
    let p = rank_profile(3);
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("p.json");
    std::fs::write(&f, output::to_json(&p)).unwrap();
    let set = analysis::load(&f).unwrap();
    assert_eq!(set.profiles, vec![p]);
}

#[test]
fn strategies_across_ranks_and_imbalance() {
    let dir = tempfile::tempdir().unwrap();
    write_ranks(dir.path());
    let set = analysis::load(dir.path()).unwrap();
    assert_eq!(set.profiles.len(), 4);
    // solve totals per rank: 10, 20, 30, 40 ms.
    let expect = [
        (Strategy::Min, 10.0),
        (Strategy::Max, 40.0),
        (Strategy::Avg, 25.0),
        (Strategy::Sum, 100.0),
    ];
    for (s, ms) in expect {
        let t = analysis::flat_table(&set, s);
        let solve = t.rows.iter().find(|r| r.name == "solve").unwrap();
        assert!((solve.across_ns - ms * 1e6).abs() < 1e-3, "{s:?}");
        assert_eq!(solve.count, 20);
        assert!((solve.imbalance - 40.0 / 25.0).abs() < 1e-12);
        assert!((solve.mean_ns - 100e6 / 20.0).abs() < 1e-3);
    }
    let t = analysis::flat_table(&set, Strategy::Avg);
    assert_eq!(
        t.units.iter().map(|u| u.label.as_str()).collect::<Vec<_>>(),
        ["r0", "r1", "r2", "r3"]
    );
    let tree = analysis::call_tree(&set, Strategy::Avg);
    let names: Vec<(u32, &str)> = tree.iter().map(|r| (r.depth, r.name.as_str())).collect();
    assert_eq!(names, [(0, "main"), (1, "solve"), (1, "io")]);
    // main's exclusive time per rank: 100 - solve - 2 = 88, 78, 68, 58 -> avg 73.
    assert!((tree[0].exclusive_ns - 73e6).abs() < 1e-3);
    assert!((tree[0].inclusive_ns - 100e6).abs() < 1e-3);
}

#[test]
fn merge_round_trips_and_exports() {
    let dir = tempfile::tempdir().unwrap();
    write_ranks(dir.path());
    let set = analysis::load(dir.path()).unwrap();
    let merged = dir.path().join("merged");
    std::fs::create_dir(&merged).unwrap();
    let f = merged.join("all.json");
    std::fs::write(&f, analysis::to_json(&analysis::merge(vec![set.clone()]))).unwrap();
    assert_eq!(analysis::load(&f).unwrap(), set);

    let folded = analysis::to_folded(&set);
    // rank 1: main exclusive 100-20-2 = 78 ms.
    assert!(
        folded.lines().any(|l| l == "rank_1;main 78000000"),
        "{folded}"
    );
    assert!(
        folded.lines().any(|l| l == "rank_3;main;solve 40000000"),
        "{folded}"
    );
    let chrome: serde_json::Value = serde_json::from_str(&analysis::to_chrome(&set)).unwrap();
    let ev = chrome["traceEvents"].as_array().unwrap();
    assert_eq!(ev.len(), 12);
    // io starts where solve ends, inside main.
    let io0 = ev
        .iter()
        .find(|e| e["name"] == "io" && e["pid"] == 0)
        .unwrap();
    assert_eq!(io0["ts"].as_f64().unwrap(), 10_000.0);
    let csv = analysis::to_csv(&set);
    assert_eq!(csv.lines().count(), 1 + 12);
    assert!(csv.contains("\n2,1002,0,solve,5,30,6,"), "{csv}");
}

#[test]
fn corrupt_and_truncated_files_name_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let full = output::to_json(&rank_profile(0));
    let f = dir.path().join("metron-rank0.json");
    std::fs::write(&f, &full[..full.len() / 2]).unwrap();
    let e = analysis::load(&f).unwrap_err().to_string();
    assert!(e.contains("metron-rank0.json:"), "{e}");
    assert!(e.contains("not a metron-probe profile"), "{e}");

    std::fs::write(&f, "{\"format\": \"something-else\"}").unwrap();
    let e = analysis::load(&f).unwrap_err().to_string();
    assert!(
        e.contains("something-else") && e.contains("metron-rank0.json"),
        "{e}"
    );

    let empty = tempfile::tempdir().unwrap();
    let e = analysis::load(empty.path()).unwrap_err().to_string();
    assert!(e.contains("no metron-probe profiles"), "{e}");
}
