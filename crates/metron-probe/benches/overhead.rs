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
use std::sync::atomic::{AtomicU32, Ordering};

use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

// The C ABI, called as a C program calls it (an extern call; the id cached per call site as
// `METRON_ENTER` in include/metron_probe.h does).
extern "C" {
    fn metron_probe_register(name: *const std::ffi::c_char) -> u32;
    fn metron_probe_enter_id(id: u32);
    fn metron_probe_exit_id(id: u32);
    fn metron_probe_enter(name: *const std::ffi::c_char);
    fn metron_probe_exit(name: *const std::ffi::c_char);
}

/// `metron_probe_site_id_` of the C header: a static slot per call site, 0 until registered.
#[inline(always)]
fn site_id(slot: &AtomicU32, name: &std::ffi::CStr) -> u32 {
    match slot.load(Ordering::Relaxed) {
        0 => {
            // SAFETY: a NUL-terminated literal.
            let v = unsafe { metron_probe_register(name.as_ptr()) } + 1;
            slot.store(v, Ordering::Relaxed);
            v - 1
        }
        v => v - 1,
    }
}

/// The usual way to time spans with `tracing-subscriber`: a layer on the Registry that keeps
/// the start in the span's extensions and adds the elapsed ticks on exit.
struct TimingLayer;
struct SpanStart(u64);

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for TimingLayer {
    fn on_enter(&self, id: &Id, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().replace(SpanStart(read_tsc()));
        }
    }
    fn on_exit(&self, id: &Id, ctx: Context<'_, S>) {
        let now = read_tsc();
        if let Some(span) = ctx.span(id) {
            if let Some(SpanStart(s)) = span.extensions().get::<SpanStart>() {
                SPAN_TOTAL.with(|t| t.set(t.get() + now - s));
            }
        }
    }
}

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

fn metron_probe_set_call_tree_on() {
    metron_probe::set_call_tree(true);
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
    let registry = tracing::Dispatch::new(tracing_subscriber::registry());
    let registry_timing = tracing::Dispatch::new(tracing_subscriber::registry().with(TimingLayer));
    static ENTER_SITE: AtomicU32 = AtomicU32::new(0);
    static EXIT_SITE: AtomicU32 = AtomicU32::new(0);
    let c_outer = c"bench.outer";
    let c_inner = c"bench.inner";
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
            "C ABI: METRON_ENTER/EXIT (id cached per site)",
            Box::new(|n| {
                // SAFETY: NUL-terminated literals; ids from metron_probe_register.
                unsafe {
                    metron_probe_set_call_tree_on();
                    metron_probe_enter(c_outer.as_ptr());
                    for _ in 0..n {
                        metron_probe_enter_id(site_id(&ENTER_SITE, c_inner));
                        metron_probe_exit_id(site_id(&EXIT_SITE, c_inner));
                    }
                    metron_probe_exit(c_outer.as_ptr());
                }
            }),
        ),
        (
            "C ABI: metron_probe_enter/exit(name), lookup",
            Box::new(|n| {
                // SAFETY: NUL-terminated literals.
                unsafe {
                    metron_probe_set_call_tree_on();
                    metron_probe_enter(c_outer.as_ptr());
                    for _ in 0..n {
                        metron_probe_enter(black_box(c_inner).as_ptr());
                        metron_probe_exit(black_box(c_inner).as_ptr());
                    }
                    metron_probe_exit(c_outer.as_ptr());
                }
            }),
        ),
        (
            "tracing span, Registry (no layer)",
            Box::new(|n| tracing::dispatcher::with_default(&registry, || span_loop(n))),
        ),
        (
            "tracing span, Registry + timing layer",
            Box::new(|n| tracing::dispatcher::with_default(&registry_timing, || span_loop(n))),
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
