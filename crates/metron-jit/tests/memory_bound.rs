//! Issue 6: "Large logs (hundreds of MB) stream in bounded memory." Checked with a counting
//! allocator (bytes live at the peak), not with RSS or timings, so it holds on a busy machine.
//! One test per binary: the allocator counts every thread.

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Write as _;
use std::sync::atomic::{AtomicUsize, Ordering};

use metron_jit::cost::{analyze, CostModel};
use metron_jit::log::parse_file;
use metron_jit::op_class::OpClassTable;
use metron_jit::stream::analyze_file;

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Bytes allocated at the peak of `f` beyond what was live before it.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let base = LIVE.load(Ordering::Relaxed);
    PEAK.store(base, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed) - base)
}

/// A log of `traces` loops of `ops` operations each (one label, guards without bridges, a
/// merge point every 10 ops, a jump) plus one loop of `largest` ops, with counters.
fn synthetic_log(traces: usize, ops: usize, largest: usize) -> String {
    let mut s = String::new();
    let mut counts = String::new();
    let tail = "x".repeat(40); // arguments the reader must skip, as in real logs
    for i in 0..=traces {
        let n = if i == traces { largest } else { ops };
        let token = 1000 + i;
        let _ = writeln!(s, "[{:x}] {{jit-log-opt-loop", 10 + i);
        let _ = writeln!(s, "# Loop {i} (f;/s.py:1-2~#0 X) : loop with {n} ops");
        let _ = writeln!(s, "[p0, i1]");
        let _ = writeln!(s, "+0: label(p0, i1, descr=TargetToken({token}))");
        for k in 1..n - 1 {
            if k % 10 == 0 {
                let _ = writeln!(
                    s,
                    "debug_merge_point(0, 0, 'f;/s.py:1-{}~#{k} BINARY_ADD')",
                    2 + k / 10
                );
            } else if k % 10 == 5 {
                let _ = writeln!(
                    s,
                    "+{k}: guard_true(i{k}, descr=<Guard0x{:x}>) [p0, i1, i2, i3]",
                    (i << 20) + k
                );
            } else {
                let _ = writeln!(
                    s,
                    "+{k}: i{} = int_add(i{k}, 1, descr=<Tail {tail}>)",
                    k + 1
                );
            }
        }
        let _ = writeln!(s, "+{n}: jump(p0, i1, descr=TargetToken({token}))");
        let _ = writeln!(s, "+{}: --end of the loop--", n + 1);
        let _ = writeln!(s, "[{:x}] jit-log-opt-loop}}", 10 + i);
        let _ = writeln!(counts, "entry {i}:1\nTargetToken({token}):1000");
    }
    let _ = writeln!(
        s,
        "[ffff0] {{jit-backend-counts\n{counts}[ffff1] jit-backend-counts}}"
    );
    s
}

#[test]
fn streaming_memory_is_bounded_by_the_largest_trace() {
    let dir = tempfile::tempdir().unwrap();
    let classes = OpClassTable::default_table();
    let model = CostModel::Cmc;
    const OPS: usize = 2_000;
    const LARGEST: usize = 6_000;
    let mut peaks = Vec::new();
    for traces in [40usize, 200] {
        let text = synthetic_log(traces, OPS, LARGEST);
        let path = dir.path().join(format!("many-{traces}.log"));
        std::fs::write(&path, &text).unwrap();
        let (streamed, stream_peak) = peak_of(|| analyze_file(&path, &classes, &model).unwrap());
        assert!(
            streamed.log.warnings.is_empty(),
            "{:?}",
            streamed.log.warnings
        );
        assert_eq!(streamed.loops, traces + 1);
        // the reader never held more than the largest trace, although the log has many more
        assert_eq!(streamed.max_retained_ops, LARGEST);
        let (in_memory, memory_peak) = peak_of(|| {
            let log = parse_file(&path).unwrap();
            analyze(&log, &classes, &model)
        });
        // same answer both ways
        assert_eq!(streamed.analysis.gamma, in_memory.gamma);
        assert_eq!(streamed.analysis.gamma, Some(gamma_by_hand(traces)));
        peaks.push((traces, stream_peak, memory_peak));
    }
    eprintln!("(traces, streaming peak bytes, in-memory peak bytes): {peaks:?}");
    let (small, large) = (peaks[0], peaks[1]);
    let more_traces = large.0 - small.0;
    let trace_bytes = OPS * std::mem::size_of::<metron_jit::trace::Op>();
    // Keeping the traces costs at least their ops for every extra trace ...
    assert!(
        large.2 - small.2 >= more_traces * trace_bytes,
        "in memory: {peaks:?}"
    );
    // ... streaming only the fragment and trace summaries, a small fraction of that.
    assert!(
        large.1.saturating_sub(small.1) < more_traces * trace_bytes / 4,
        "streaming: {peaks:?} (bytes of one trace's ops: {trace_bytes})"
    );
}

/// Per loop, CMC's γ of the label-to-jump fragment times the label's count 1000: every op
/// but the label, the jump and the merge points costs 1.
fn gamma_by_hand(traces: usize) -> f64 {
    let gamma = |n: usize| (1..n - 1).filter(|k| k % 10 != 0).count() as f64;
    (traces as f64 * gamma(2_000) + gamma(6_000)) * 1000.0
}
