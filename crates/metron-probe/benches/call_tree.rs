//! `metron profile show` on deep recursions (issue 16): reading a profile whose call tree is
//! a chain DEPTH deep, and building the flat table and the merged call tree, in release mode.
//! The CLI adds only the table printing (linear); `scripts/profile-show-bench` times the binary.
//!
//! Run: `cargo bench -p metron-probe --bench call_tree [-- DEPTH...]`

use std::time::Instant;

use metron_probe::analysis::{self, Strategy};
use metron_probe::clock::ClockInfo;
use metron_probe::output;
use metron_probe::profile::{NodeRecord, Profile, RegionRecord, ThreadProfile, FORMAT};

fn chain(depth: u32) -> Profile {
    let tree = (1..=depth)
        .map(|id| NodeRecord {
            id,
            parent: id - 1,
            depth: id - 1,
            name: "fib".into(),
            total_ns: f64::from(depth - id + 1) * 1e3,
            count: 1,
            open_at_exit: false,
        })
        .collect();
    Profile {
        format: FORMAT.into(),
        version: 1,
        rank: None,
        host: "bench".into(),
        pid: 1,
        cmdline: vec!["fib".into()],
        start_time_unix_ns: 0,
        clock: ClockInfo {
            name: "tsc".into(),
            ticks_per_ns: 1.0,
            calibration: "startup".into(),
            granularity_ns: 1.0,
        },
        call_tree: true,
        threads: vec![ThreadProfile {
            index: 0,
            tid: 1,
            name: None,
            regions: vec![RegionRecord {
                name: "fib".into(),
                total_ns: f64::from(depth) * 1e3,
                count: 1,
                mean_ns: f64::from(depth) * 1e3,
                min_ns: 1.0,
                max_ns: f64::from(depth) * 1e3,
                errors: 0,
                open_at_exit: false,
            }],
            tree,
            tree_errors: 0,
            timeline_events: 0,
            timeline_dropped: 0,
        }],
    }
}

fn main() {
    let depths: Vec<u32> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let depths = if depths.is_empty() {
        vec![1_000, 10_000, 100_000, 1_000_000]
    } else {
        depths
    };
    let dir = std::env::temp_dir().join(format!("metron-call-tree-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    println!(
        "{:>9} {:>12} {:>10} {:>10} {:>10} {:>10}",
        "depth", "bytes", "load s", "flat s", "tree s", "total s"
    );
    for depth in depths {
        let file = dir.join("deep.json");
        std::fs::write(&file, output::to_json(&chain(depth))).unwrap();
        let bytes = std::fs::metadata(&file).unwrap().len();
        let t0 = Instant::now();
        let set = analysis::load(&file).unwrap();
        let t1 = Instant::now();
        let flat = analysis::flat_table(&set, Strategy::Max);
        let t2 = Instant::now();
        let tree = analysis::call_tree(&set, Strategy::Max);
        let t3 = Instant::now();
        assert_eq!(tree.len(), depth as usize);
        assert_eq!(flat.rows.len(), 1);
        let s = |a: Instant, b: Instant| (b - a).as_secs_f64();
        println!(
            "{depth:>9} {bytes:>12} {:>10.3} {:>10.3} {:>10.3} {:>10.3}",
            s(t0, t1),
            s(t1, t2),
            s(t2, t3),
            s(t0, t3)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
