//! The timer semantics of 002 §2.1-2.2 through the public API. Expected values come from the
//! structure of the programs (counted by independent brute force), never from the probe.

use std::collections::HashMap;

use metron_probe::recorder::{Recorder, ROOT};
use metron_probe::{region, Stopwatch};

/// Internal (non-base) calls of the thesis's fib, counted by plain recursion.
fn internal_calls(x: u32) -> u64 {
    if x <= 1 {
        0
    } else {
        1 + internal_calls(x - 1) + internal_calls(x - 2)
    }
}

const TIMER1: u32 = 0;
const TIMER2: u32 = 1;
const HEAVY: u64 = 40;

/// 002 Listing 2.25 on a deterministic clock: only `heavy` moves time.
fn fib(x: u32, r: &mut Recorder, clock: &mut u64) -> u64 {
    if x == 1 || x == 0 {
        return 1;
    }
    r.enter(TIMER1, *clock, true);
    *clock += HEAVY; // heavy(40)
    r.exit(TIMER1, *clock);
    r.enter(TIMER2, *clock, true);
    let tt = fib(x - 1, r, clock) + fib(x - 2, r, clock);
    r.exit(TIMER2, *clock);
    tt
}

#[test]
fn fibonacci_parent_time_is_sum_of_children() {
    let mut r = Recorder::new();
    let mut clock = 1_000u64;
    fib(10, &mut r, &mut clock);
    let n = internal_calls(10);
    assert_eq!(n, 88);

    // Flat timers: Timer1 is never nested in itself; Timer2 is an inclusive recursion, so only
    // the outermost activation (in fib(10)) is timed and counted (002 Listing 2.12).
    let t1 = &r.regions[TIMER1 as usize];
    assert_eq!((t1.count, t1.total), (n, HEAVY * n));
    let t2 = &r.regions[TIMER2 as usize];
    assert_eq!((t2.count, t2.total), (1, HEAVY * (n - 1)));

    // 002 §2.4: the time of each Timer2 node is spent entirely in its children.
    let mut checked = 0;
    for (i, node) in r.nodes.iter().enumerate().skip(1) {
        let children: u64 = node
            .children
            .iter()
            .map(|&(_, c)| r.nodes[c as usize].total)
            .sum();
        if node.region == TIMER2 {
            assert_eq!(node.total, children, "node {i}");
            checked += 1;
        } else {
            assert!(node.children.is_empty());
            assert_eq!(node.total, HEAVY * node.count);
        }
    }
    // One Timer2 node per recursion level of an internal call along the longest chain,
    // fib(10) down to fib(2) (whose Timer2 holds only base cases and so has no children).
    assert_eq!(checked, 9);
    // The root's children: one Timer1 and one Timer2 entry (002 Listing 2.26, first lines).
    let root: HashMap<u32, u32> = r.nodes[ROOT as usize].children.iter().copied().collect();
    assert_eq!(r.nodes[root[&TIMER1] as usize].count, 1);
    assert_eq!(r.nodes[root[&TIMER2] as usize].count, 1);
    // At level 1 Timer1 runs twice, in fib(9) and fib(8): "same CallEntity is called more than
    // once at one recurrence level" (002 footnote 2).
    let lvl1 = &r.nodes[root[&TIMER2] as usize];
    let t1_lvl1 = lvl1
        .children
        .iter()
        .find(|(reg, _)| *reg == TIMER1)
        .unwrap()
        .1;
    assert_eq!(r.nodes[t1_lvl1 as usize].count, 2);
}

fn recurse_inclusive(depth: u32) {
    let _r = region!("sem.recursive");
    if depth > 1 {
        recurse_inclusive(depth - 1);
    }
}

#[test]
fn region_macro_nested_looped_and_recursive() {
    {
        let _outer = region!("sem.outer");
        for _ in 0..10 {
            let _inner = region!("sem.inner");
        }
    }
    for _ in 0..3 {
        recurse_inclusive(5);
    }
    assert_eq!(Stopwatch::new("sem.outer").count(), 1);
    assert_eq!(Stopwatch::new("sem.inner").count(), 10);
    // Three outermost entries, whatever the recursion depth.
    let rec = Stopwatch::new("sem.recursive");
    assert_eq!(rec.count(), 3);
    assert_eq!(rec.errors(), 0);
    assert!(Stopwatch::new("sem.outer").total() >= Stopwatch::new("sem.inner").total());
}

#[test]
fn stopwatch_api_and_stop_before_start() {
    let sw = Stopwatch::new("sem.stopwatch");
    assert_eq!(sw.name(), "sem.stopwatch");
    sw.stop(); // before any start
    assert_eq!(sw.errors(), 1);
    assert_eq!(sw.count(), 0);
    for _ in 0..4 {
        sw.start();
        std::thread::sleep(std::time::Duration::from_millis(1));
        sw.stop();
    }
    assert_eq!(sw.count(), 4);
    assert!(sw.total() >= std::time::Duration::from_millis(4));
    assert!(sw.mean() >= std::time::Duration::from_millis(1));
    // mean = total / count, up to the rounding of ticks to nanoseconds.
    let diff = sw.mean().abs_diff(sw.total() / 4);
    assert!(diff <= std::time::Duration::from_nanos(2), "{diff:?}");
    sw.reset();
    assert_eq!((sw.count(), sw.total()), (0, std::time::Duration::ZERO));
}

#[test]
fn unwinding_closes_the_region() {
    let result = std::panic::catch_unwind(|| {
        let _r = region!("sem.unwind");
        let _inner = region!("sem.unwind.inner");
        panic!("test panic");
    });
    assert!(result.is_err());
    let sw = Stopwatch::new("sem.unwind");
    assert_eq!((sw.count(), sw.errors()), (1, 0));
    // Closed, so a later activation is a fresh outermost one.
    {
        let _r = region!("sem.unwind");
    }
    assert_eq!(sw.count(), 2);
    let p = metron_probe::snapshot();
    let me = p
        .threads
        .iter()
        .find(|t| t.regions.iter().any(|r| r.name == "sem.unwind"))
        .unwrap();
    let r = me.regions.iter().find(|r| r.name == "sem.unwind").unwrap();
    assert!(!r.open_at_exit);
}

#[test]
fn threads_record_separately_and_merge_at_collection() {
    let handles: Vec<_> = (1..=4u64)
        .map(|k| {
            std::thread::spawn(move || {
                for _ in 0..k * 10 {
                    let _r = region!("sem.thread.work");
                    let _c = region!("sem.thread.child");
                }
                // Left open on purpose: closed and flagged when the thread ends.
                Stopwatch::new("sem.thread.open").start();
                k * 10
            })
        })
        .collect();
    let mut expected: Vec<u64> = handles.into_iter().map(|h| h.join().unwrap()).collect();
    expected.sort();
    let threads = metron_probe::collect_threads();
    let names = metron_probe::region_names();
    let work = names.iter().position(|n| n == "sem.thread.work").unwrap();
    let open = names.iter().position(|n| n == "sem.thread.open").unwrap();
    let mut counts: Vec<u64> = threads
        .iter()
        .filter_map(|t| t.recorder.regions.get(work).map(|r| r.count))
        .filter(|&c| c > 0)
        .collect();
    counts.sort();
    assert_eq!(counts, expected);
    for t in threads
        .iter()
        .filter(|t| t.recorder.regions.get(work).is_some_and(|r| r.count > 0))
    {
        let o = &t.recorder.regions[open];
        assert!(o.open_at_exit && o.count == 1, "{o:?}");
    }
    let tids: std::collections::HashSet<u64> = threads.iter().map(|t| t.tid).collect();
    assert_eq!(tids.len(), threads.len(), "one entry per OS thread");
}

#[test]
fn flush_writes_json_csv_folded_and_unwritable_dir_is_an_error() {
    {
        let _a = region!("sem.flush.a");
        let _b = region!("sem.flush.b");
    }
    let dir = tempfile::tempdir().unwrap();
    let files = metron_probe::flush_to(
        dir.path(),
        metron_probe::Formats {
            csv: true,
            folded: true,
        },
    )
    .unwrap();
    assert_eq!(files.len(), 4);
    let json = files
        .iter()
        .find(|f| f.extension().unwrap() == "json")
        .unwrap();
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
    assert_eq!(v["format"], "metron-probe-profile");
    assert!(v["clock"]["granularity_ns"].as_f64().unwrap() > 0.0);
    assert!(v["clock"]["ticks_per_ns"].as_f64().unwrap() > 0.0);
    assert!(!v["host"].as_str().unwrap().is_empty());
    assert!(v["start_time_unix_ns"].as_u64().unwrap() > 1_600_000_000_000_000_000);
    let thread = v["threads"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| {
            t["regions"]
                .as_array()
                .unwrap()
                .iter()
                .any(|r| r["name"] == "sem.flush.a")
        })
        .unwrap();
    let tree = thread["tree"].as_array().unwrap();
    let a = tree.iter().find(|n| n["name"] == "sem.flush.a").unwrap();
    let b = tree.iter().find(|n| n["name"] == "sem.flush.b").unwrap();
    assert_eq!(b["parent"], a["id"]);
    assert_eq!(
        b["depth"].as_u64().unwrap(),
        a["depth"].as_u64().unwrap() + 1
    );
    let folded = std::fs::read_to_string(
        files
            .iter()
            .find(|f| f.to_string_lossy().ends_with(".folded"))
            .unwrap(),
    )
    .unwrap();
    assert!(
        folded
            .lines()
            .any(|l| l.starts_with("sem.flush.a;sem.flush.b ")),
        "{folded}"
    );
    let csv = std::fs::read_to_string(
        files
            .iter()
            .find(|f| f.to_string_lossy().ends_with(".callstack.csv"))
            .unwrap(),
    )
    .unwrap();
    // 002 Listing 2.35: depth;NAME;total_ms; with the child right after its parent.
    assert!(csv.contains(";sem.flush.a;"), "{csv}");

    let file = dir.path().join("not-a-dir");
    std::fs::write(&file, "x").unwrap();
    let err =
        metron_probe::flush_to(&file.join("sub"), metron_probe::Formats::default()).unwrap_err();
    assert!(err.to_string().contains("not-a-dir"), "{err}");
}
