//! ns per enter/exit pair, all in one run on one machine (issue 3, "Speed: a benchmark").
//!
//! Each case runs `N` pairs in a loop, timed from outside with `Instant`; the figure is the
//! median (and minimum) over `REPS` repetitions of elapsed / N. Ratios are to the floor, two raw
//! TSC reads, which is what any TSC-based region timer must at least do.
//!
//! Run: `cargo bench -p metron-probe --bench overhead` (add `-- --n 2000000` to change N).

use std::cell::Cell;
use std::hint::black_box;
use std::time::Instant;

use metron_probe::clock::{read_tsc, ClockKind, ClockSource, Tsc};
use metron_probe::{region, RegionId};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

const REPS: usize = 31;

/// A clock that does not move: the probe's bookkeeping alone, without the two TSC reads.
struct ConstClock;

impl ClockSource for ConstClock {
    const KIND: ClockKind = ClockKind::Monotonic;
    #[inline(always)]
    fn now() -> u64 {
        black_box(7)
    }
}

/// Enables every span and does nothing else: the least a `tracing` span can cost.
struct NoopSubscriber;

impl Subscriber for NoopSubscriber {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, _: &Event<'_>) {}
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

thread_local! {
    static SPAN_START: Cell<u64> = const { Cell::new(0) };
    static SPAN_TOTAL: Cell<u64> = const { Cell::new(0) };
}

/// The smallest subscriber that times spans: a TSC read on enter and exit, a thread-local sum.
struct TimingSubscriber;

impl Subscriber for TimingSubscriber {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, _: &Event<'_>) {}
    fn enter(&self, _: &Id) {
        SPAN_START.with(|s| s.set(read_tsc()));
    }
    fn exit(&self, _: &Id) {
        let now = read_tsc();
        SPAN_START.with(|s| SPAN_TOTAL.with(|t| t.set(t.get() + now - s.get())));
    }
}

struct Case {
    name: &'static str,
    median_ns: f64,
    min_ns: f64,
}

type Body<'a> = Box<dyn FnMut(u64) + 'a>;

/// Runs the cases round-robin, one repetition of each in turn, so that a change in the load of
/// the (shared) machine hits every case alike instead of whichever ran at that moment.
fn measure_all(n: u64, cases: &mut [(&'static str, Body<'_>)]) -> Vec<Case> {
    for (_, f) in cases.iter_mut() {
        f(n / 10); // warm-up: caches, branch predictors, lazy registration
    }
    let mut per: Vec<Vec<f64>> = vec![Vec::with_capacity(REPS); cases.len()];
    for _ in 0..REPS {
        for (i, (_, f)) in cases.iter_mut().enumerate() {
            let t = Instant::now();
            f(n);
            per[i].push(t.elapsed().as_nanos() as f64 / n as f64);
        }
    }
    cases
        .iter()
        .zip(per)
        .map(|((name, _), mut v)| {
            v.sort_by(f64::total_cmp);
            Case {
                name,
                median_ns: v[REPS / 2],
                min_ns: v[0],
            }
        })
        .collect()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: u64 = args
        .iter()
        .position(|a| a == "--n")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(200_000);
    let clock = metron_probe::init(metron_probe::Config {
        write_at_exit: false,
        ..metron_probe::Config::default()
    });
    println!("metron-probe overhead, {n} pairs x {REPS} repetitions, process clock {clock:?}");

    let id: RegionId = metron_probe::register("bench.static");
    let noop = tracing::Dispatch::new(NoopSubscriber);
    let timing = tracing::Dispatch::new(TimingSubscriber);
    let prebuilt = tracing::dispatcher::with_default(&noop, || tracing::info_span!("inner"));
    let span_loop = |n: u64| {
        for _ in 0..n {
            let _s = black_box(tracing::info_span!("inner").entered());
        }
    };
    // The probe runs inside an outer region, so the inner node hangs below a parent as in
    // real use. The call-tree switch is set inside each case because the cases interleave.
    let probe_loop = |tree: bool| {
        move |n: u64| {
            metron_probe::set_call_tree(tree);
            let _outer = region!("bench.outer");
            for _ in 0..n {
                let _r = black_box(region!("bench.inner"));
            }
        }
    };
    let mut bodies: Vec<(&'static str, Body<'_>)> = vec![
        (
            "floor: 2 raw TSC reads",
            Box::new(|n| {
                for _ in 0..n {
                    black_box(read_tsc());
                    black_box(read_tsc());
                }
            }),
        ),
        (
            "metron-probe region!, call tree",
            Box::new(probe_loop(true)),
        ),
        (
            "metron-probe region!, no call tree",
            Box::new(probe_loop(false)),
        ),
        (
            "metron-probe enter/exit<Tsc>, call tree",
            Box::new(|n| {
                metron_probe::set_call_tree(true);
                for _ in 0..n {
                    let id = black_box(id);
                    metron_probe::enter_with::<Tsc>(id);
                    metron_probe::exit_with::<Tsc>(id);
                }
            }),
        ),
        (
            "metron-probe bookkeeping only (no clock), tree",
            Box::new(|n| {
                metron_probe::set_call_tree(true);
                for _ in 0..n {
                    let id = black_box(id);
                    metron_probe::enter_with::<ConstClock>(id);
                    metron_probe::exit_with::<ConstClock>(id);
                }
            }),
        ),
        (
            "tracing span, no-op subscriber",
            Box::new(|n| tracing::dispatcher::with_default(&noop, || span_loop(n))),
        ),
        (
            "tracing span, TSC-timing subscriber",
            Box::new(|n| tracing::dispatcher::with_default(&timing, || span_loop(n))),
        ),
        (
            "tracing pre-built span enter/exit, no-op",
            Box::new(|n| {
                tracing::dispatcher::with_default(&noop, || {
                    for _ in 0..n {
                        let _e = black_box(prebuilt.enter());
                    }
                })
            }),
        ),
        (
            "2 x Instant::now()",
            Box::new(|n| {
                for _ in 0..n {
                    black_box(Instant::now());
                    black_box(Instant::now());
                }
            }),
        ),
    ];
    let cases = measure_all(n, &mut bodies);

    let floor = cases[0].median_ns;
    println!(
        "\n{:<44} {:>12} {:>10} {:>14}",
        "case", "median ns", "min ns", "x floor (med)"
    );
    for c in &cases {
        println!(
            "{:<44} {:>12.2} {:>10.2} {:>14.2}",
            c.name,
            c.median_ns,
            c.min_ns,
            c.median_ns / floor
        );
    }
    // Keep the timing subscriber's sum observable so its work is not optimised away.
    black_box(SPAN_TOTAL.with(|t| t.get()));
}
