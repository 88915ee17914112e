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

/// The call tree merged by full paths, written independently of `analysis::call_tree` (the
/// quadratic way it used to be done): path -> (per-unit inclusive, per-unit exclusive, count),
/// in depth-first order of first appearance.
type Oracle = Vec<(Vec<String>, Vec<Option<f64>>, Vec<Option<f64>>, u64)>;

fn oracle_tree(set: &analysis::ProfileSet) -> Oracle {
    let threads: Vec<&ThreadProfile> = set.profiles.iter().flat_map(|p| &p.threads).collect();
    let n = threads.len();
    let mut acc: Oracle = Vec::new();
    for (u, t) in threads.iter().enumerate() {
        let mut paths: Vec<Vec<String>> = Vec::new();
        for node in &t.tree {
            let mut path = if node.parent == 0 {
                Vec::new()
            } else {
                paths[node.parent as usize - 1].clone()
            };
            path.push(node.name.clone());
            let kids: f64 = t
                .tree
                .iter()
                .filter(|c| c.parent == node.id)
                .map(|c| c.total_ns)
                .sum();
            let i = match acc.iter().position(|(p, ..)| *p == path) {
                Some(i) => i,
                None => {
                    acc.push((path.clone(), vec![None; n], vec![None; n], 0));
                    acc.len() - 1
                }
            };
            let e = &mut acc[i];
            e.1[u] = Some(e.1[u].unwrap_or(0.0) + node.total_ns);
            e.2[u] = Some(e.2[u].unwrap_or(0.0) + (node.total_ns - kids).max(0.0));
            e.3 += node.count;
            paths.push(path);
        }
    }
    // Depth-first: a path sorts by the first-appearance ranks of its prefixes.
    let rank = |p: &[String]| acc.iter().position(|(q, ..)| q.as_slice() == p).unwrap();
    let key = |p: &Vec<String>| (1..=p.len()).map(|k| rank(&p[..k])).collect::<Vec<_>>();
    let mut sorted = acc.clone();
    sorted.sort_by_key(|(p, ..)| key(p));
    sorted
}

/// A random pre-order tree: each node's parent is an ancestor on the current stack.
fn random_thread(seed: &mut u64, index: u32, nodes: usize) -> ThreadProfile {
    let mut next = || {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    };
    let mut tree: Vec<NodeRecord> = Vec::new();
    let mut stack: Vec<u32> = Vec::new();
    for id in 1..=nodes as u32 {
        let pops = (next() % 3) as usize;
        for _ in 0..pops.min(stack.len()) {
            stack.pop();
        }
        let parent = stack.last().copied().unwrap_or(0);
        let depth = stack.len() as u32;
        let name = ["a", "b", "c", "d"][(next() % 4) as usize];
        // Siblings with one name would be one node in a real profile; keep them distinct.
        if tree.iter().any(|n| n.parent == parent && n.name == name) {
            continue;
        }
        let total = 1000.0 * (1 + next() % 100) as f64;
        tree.push(node(id, parent, depth, name, total / 1e6, 1 + next() % 5));
        stack.push(id);
    }
    // Renumber densely (skipped ids) keeping parents.
    let ids: Vec<u32> = tree.iter().map(|n| n.id).collect();
    for n in &mut tree {
        n.id = ids.iter().position(|&i| i == n.id).unwrap() as u32 + 1;
        if n.parent != 0 {
            n.parent = ids.iter().position(|&i| i == n.parent).unwrap() as u32 + 1;
        }
    }
    // Parents include their children's time.
    for i in (0..tree.len()).rev() {
        let p = tree[i].parent;
        if p != 0 {
            let t = tree[i].total_ns;
            tree[p as usize - 1].total_ns += t;
        }
    }
    let mut t = rank_profile(0).threads.remove(0);
    t.index = index;
    t.tree = tree;
    t
}

#[test]
fn call_tree_agrees_with_the_path_keyed_oracle_on_random_trees() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for case in 0..40 {
        let mut set = analysis::ProfileSet::default();
        for r in 0..(1 + case % 3) {
            let mut p = rank_profile(r);
            p.threads = (0..(1 + case % 2))
                .map(|i| random_thread(&mut seed, i, 5 + case as usize * 2))
                .collect();
            set.profiles.push(p);
        }
        let rows = analysis::call_tree(&set, Strategy::Sum);
        let want = oracle_tree(&set);
        assert_eq!(rows.len(), want.len(), "case {case}");
        for (i, (row, (path, inc, exc, count))) in rows.iter().zip(&want).enumerate() {
            // Rebuild the row's path through its parents.
            let mut got = vec![row.name.clone()];
            let mut p = row.parent;
            while let Some(j) = p {
                assert!(j < i, "a parent comes before its children");
                got.insert(0, rows[j].name.clone());
                p = rows[j].parent;
            }
            assert_eq!(&got, path, "case {case} row {i}");
            assert_eq!(row.depth as usize, path.len() - 1);
            assert_eq!(row.count, *count);
            assert_eq!(&row.per_unit_inclusive_ns, inc);
            let sum = |v: &[Option<f64>]| v.iter().flatten().sum::<f64>();
            assert!((row.inclusive_ns - sum(inc)).abs() < 1e-6);
            assert!((row.exclusive_ns - sum(exc)).abs() < 1e-6);
        }
    }
}

#[test]
fn a_recursion_20000_deep_is_one_chain() {
    const DEPTH: u32 = 20_000;
    let mut p = rank_profile(0);
    p.threads[0].tree = (1..=DEPTH)
        .map(|id| node(id, id - 1, id - 1, "fib", (DEPTH - id + 1) as f64 * 1e-3, 1))
        .collect();
    let set = analysis::ProfileSet {
        format: analysis::SET_FORMAT.into(),
        profiles: vec![p],
    };
    let rows = analysis::call_tree(&set, Strategy::Max);
    assert_eq!(rows.len(), DEPTH as usize);
    let last = rows.last().unwrap();
    assert_eq!(
        (last.depth, last.parent),
        (DEPTH - 1, Some(DEPTH as usize - 2))
    );
    // Each level's exclusive time is the microsecond its child does not cover.
    assert!(rows.iter().all(|r| (r.exclusive_ns - 1e3).abs() < 1e-6));
}
