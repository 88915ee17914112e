//! Clocks the probe reads on every enter and exit (002 §2.3, §2.5).
//!
//! The thesis hides the clock behind `TIMER_NOW` macros and converts RDTSC ticks with a
//! hand-set `FREQ` (002 Listings 2.23-2.24). Here the clock is chosen once at initialisation,
//! timestamps stay raw ticks on the hot path, and ticks become nanoseconds only at flush, with a
//! TSC frequency calibrated against `CLOCK_MONOTONIC` instead of typed in.

use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::Once;
use std::time::{Duration, Instant};

/// Which clock produced the timestamps of a profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ClockKind {
    /// x86-64 time-stamp counter, used only when CPUID reports it invariant.
    Tsc,
    /// `CLOCK_MONOTONIC` (NTP-slewed, vDSO, nanoseconds).
    Monotonic,
    /// `CLOCK_MONOTONIC_RAW` (not slewed, vDSO on recent kernels, nanoseconds).
    MonotonicRaw,
}

impl ClockKind {
    pub fn name(self) -> &'static str {
        match self {
            ClockKind::Tsc => "tsc",
            ClockKind::Monotonic => "monotonic",
            ClockKind::MonotonicRaw => "monotonic_raw",
        }
    }

    pub fn from_name(s: &str) -> Option<ClockKind> {
        match s {
            "tsc" => Some(ClockKind::Tsc),
            "monotonic" => Some(ClockKind::Monotonic),
            "monotonic_raw" | "monotonic-raw" => Some(ClockKind::MonotonicRaw),
            _ => None,
        }
    }

    /// Every clock this machine can read, best first.
    pub fn available() -> Vec<ClockKind> {
        let mut v = Vec::new();
        if invariant_tsc() {
            v.push(ClockKind::Tsc);
        }
        v.push(ClockKind::Monotonic);
        v.push(ClockKind::MonotonicRaw);
        v
    }

    /// Reads this clock in its own ticks.
    #[inline(always)]
    pub fn read(self) -> u64 {
        match self {
            ClockKind::Tsc => Tsc::now(),
            ClockKind::Monotonic => Monotonic::now(),
            ClockKind::MonotonicRaw => MonotonicRaw::now(),
        }
    }
}

/// A clock that the probe can be monomorphised over, so that the hot path has no dispatch.
pub trait ClockSource {
    const KIND: ClockKind;
    fn now() -> u64;
}

pub struct Tsc;
pub struct Monotonic;
pub struct MonotonicRaw;

impl ClockSource for Tsc {
    const KIND: ClockKind = ClockKind::Tsc;
    #[inline(always)]
    fn now() -> u64 {
        read_tsc()
    }
}

impl ClockSource for Monotonic {
    const KIND: ClockKind = ClockKind::Monotonic;
    #[inline(always)]
    fn now() -> u64 {
        clock_gettime_ns(libc::CLOCK_MONOTONIC)
    }
}

impl ClockSource for MonotonicRaw {
    const KIND: ClockKind = ClockKind::MonotonicRaw;
    #[inline(always)]
    fn now() -> u64 {
        clock_gettime_ns(libc::CLOCK_MONOTONIC_RAW)
    }
}

#[inline(always)]
fn clock_gettime_ns(id: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; both clock ids exist on every Linux >= 2.6.28.
    unsafe { libc::clock_gettime(id, &mut ts) };
    (ts.tv_sec as u64)
        .wrapping_mul(1_000_000_000)
        .wrapping_add(ts.tv_nsec as u64)
}

/// Raw TSC read. Plain `rdtsc` without a fence, as in 002 Listing 2.24: a fence would order it
/// against the measured code but costs more than the read itself.
#[inline(always)]
pub fn read_tsc() -> u64 {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: rdtsc exists on every x86-64 CPU.
        unsafe { core::arch::x86_64::_rdtsc() }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        // No TSC: `ClockKind::available` never offers it here, this only keeps the type total.
        clock_gettime_ns(libc::CLOCK_MONOTONIC)
    }
}

/// CPUID leaf 0x8000_0007, EDX bit 8: the TSC ticks at a constant rate in every P-, C- and
/// T-state. Without it, ticks are not time (002 §2.5 on dynamic frequency).
pub fn invariant_tsc() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::__cpuid;
        // SAFETY: cpuid exists on every x86-64 CPU; leaf 0x8000_0000 reports the highest
        // extended leaf, which we check before asking for 0x8000_0007.
        #[allow(unused_unsafe)]
        let max_ext = unsafe { __cpuid(0x8000_0000) }.eax;
        if max_ext < 0x8000_0007 {
            return false;
        }
        #[allow(unused_unsafe)]
        let edx = unsafe { __cpuid(0x8000_0007) }.edx;
        edx & (1 << 8) != 0
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Ticks per nanosecond of a clock: measured for the TSC, exactly 1 for the POSIX clocks.
pub fn calibrate_ticks_per_ns(kind: ClockKind, window: Duration) -> f64 {
    match kind {
        ClockKind::Tsc => {
            let (t0, m0) = paired_read();
            let start = Instant::now();
            while start.elapsed() < window {
                std::hint::spin_loop();
            }
            let (t1, m1) = paired_read();
            ratio(t1.wrapping_sub(t0), m1.wrapping_sub(m0))
        }
        ClockKind::Monotonic | ClockKind::MonotonicRaw => 1.0,
    }
}

/// A TSC reading and a monotonic reading taken as close together as possible: the pair with the
/// shortest bracket out of a few tries, so a preemption between the reads does not skew the ratio.
pub fn paired_read() -> (u64, u64) {
    let mut best = (0u64, 0u64, u64::MAX);
    for _ in 0..5 {
        let a = read_tsc();
        let m = Monotonic::now();
        let b = read_tsc();
        let width = b.wrapping_sub(a);
        if width < best.2 {
            best = (a + width / 2, m, width);
        }
    }
    (best.0, best.1)
}

fn ratio(ticks: u64, ns: u64) -> f64 {
    if ns == 0 {
        1.0
    } else {
        ticks as f64 / ns as f64
    }
}

/// Smallest nonzero step the clock reports, in nanoseconds (002 Listing 2.33), as the minimum
/// over `trials` runs of the thesis's spin-until-it-changes loop: one run catches a preemption.
pub fn granularity_ns(kind: ClockKind, ticks_per_ns: f64, trials: usize) -> f64 {
    let mut best = u64::MAX;
    for _ in 0..trials.max(1) {
        let start = kind.read();
        let mut stop = kind.read();
        while stop == start {
            stop = kind.read();
        }
        best = best.min(stop.wrapping_sub(start));
    }
    best as f64 / ticks_per_ns
}

// ----- the process-wide clock ------------------------------------------------------------

const UNSET: u8 = 0;
static CLOCK: AtomicU8 = AtomicU8::new(UNSET);
static INIT: Once = Once::new();
/// f64 bits of the start-up calibration.
static TICKS_PER_NS: AtomicU64 = AtomicU64::new(0);
/// TSC and monotonic reading at start-up; at flush they give a whole-run calibration.
static START_TICKS: AtomicU64 = AtomicU64::new(0);
static START_MONO: AtomicU64 = AtomicU64::new(0);

fn encode(kind: ClockKind) -> u8 {
    match kind {
        ClockKind::Tsc => 1,
        ClockKind::Monotonic => 2,
        ClockKind::MonotonicRaw => 3,
    }
}

fn decode(v: u8) -> Option<ClockKind> {
    match v {
        1 => Some(ClockKind::Tsc),
        2 => Some(ClockKind::Monotonic),
        3 => Some(ClockKind::MonotonicRaw),
        _ => None,
    }
}

/// The clock named by `METRON_CLOCK`, if it is usable here, else the best one available.
fn default_kind() -> ClockKind {
    let wanted = std::env::var("METRON_CLOCK")
        .ok()
        .and_then(|s| ClockKind::from_name(&s));
    match wanted {
        Some(ClockKind::Tsc) if !invariant_tsc() => ClockKind::Monotonic,
        Some(k) => k,
        None if invariant_tsc() => ClockKind::Tsc,
        None => ClockKind::Monotonic,
    }
}

/// Chooses the process clock once. Later calls (and a different `preferred`) do nothing: mixing
/// timestamps of two clocks in one profile would be meaningless.
pub(crate) fn init_global(preferred: Option<ClockKind>) -> ClockKind {
    INIT.call_once(|| {
        let kind = match preferred {
            Some(ClockKind::Tsc) if !invariant_tsc() => ClockKind::Monotonic,
            Some(k) => k,
            None => default_kind(),
        };
        // 2 ms is enough for a first estimate (error ~ clock-read jitter / window); the
        // whole-run calibration at flush refines it.
        let tpn = calibrate_ticks_per_ns(kind, Duration::from_millis(2));
        TICKS_PER_NS.store(tpn.to_bits(), Ordering::Relaxed);
        let (t, m) = match kind {
            ClockKind::Tsc => paired_read(),
            other => (other.read(), Monotonic::now()),
        };
        START_TICKS.store(t, Ordering::Relaxed);
        START_MONO.store(m, Ordering::Relaxed);
        CLOCK.store(encode(kind), Ordering::Release);
    });
    global_kind()
}

/// The process clock; chooses the default on first use.
#[inline]
pub fn global_kind() -> ClockKind {
    match decode(CLOCK.load(Ordering::Acquire)) {
        Some(k) => k,
        None => init_global(None),
    }
}

/// Reads the process clock.
#[inline(always)]
pub fn now() -> u64 {
    match CLOCK.load(Ordering::Relaxed) {
        1 => read_tsc(),
        2 => Monotonic::now(),
        3 => MonotonicRaw::now(),
        _ => global_kind().read(),
    }
}

/// How ticks of the process clock became nanoseconds in a profile.
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "analysis", derive(serde::Serialize, serde::Deserialize))]
pub struct ClockInfo {
    pub name: String,
    pub ticks_per_ns: f64,
    /// `startup` (2 ms window) or `whole_run` (first to last reading, when it spans >= 100 ms).
    pub calibration: String,
    pub granularity_ns: f64,
}

/// Ticks per nanosecond of the process clock, from the whole run when it is long enough.
pub(crate) fn global_clock_info() -> ClockInfo {
    let kind = global_kind();
    let startup = f64::from_bits(TICKS_PER_NS.load(Ordering::Relaxed));
    let (tpn, how) = match kind {
        ClockKind::Tsc => {
            let (t, m) = paired_read();
            let dm = m.wrapping_sub(START_MONO.load(Ordering::Relaxed));
            if dm >= 100_000_000 {
                (
                    ratio(t.wrapping_sub(START_TICKS.load(Ordering::Relaxed)), dm),
                    "whole_run",
                )
            } else {
                (startup, "startup")
            }
        }
        _ => (1.0, "exact"),
    };
    ClockInfo {
        name: kind.name().to_string(),
        ticks_per_ns: tpn,
        calibration: how.to_string(),
        granularity_ns: granularity_ns(kind, tpn, 200),
    }
}

/// Start-up ticks per nanosecond, for conversions in the middle of a run.
pub fn global_ticks_per_ns() -> f64 {
    global_kind();
    f64::from_bits(TICKS_PER_NS.load(Ordering::Relaxed))
}

/// Process-clock reading at initialisation: the zero of timeline timestamps.
pub(crate) fn global_start_ticks() -> u64 {
    global_kind();
    START_TICKS.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn posix_clocks_advance_and_have_sub_millisecond_granularity() {
        for kind in [ClockKind::Monotonic, ClockKind::MonotonicRaw] {
            let a = kind.read();
            let g = granularity_ns(kind, 1.0, 10);
            let b = kind.read();
            assert!(b > a, "{kind:?} did not advance");
            assert!(g > 0.0 && g < 1e6, "{kind:?} granularity {g} ns");
        }
    }

    #[test]
    fn tsc_calibration_agrees_with_sleep() {
        if !invariant_tsc() {
            metron_measure::tool::testing::skip("this CPU reports no invariant TSC");
            return;
        }
        let tpn = calibrate_ticks_per_ns(ClockKind::Tsc, Duration::from_millis(5));
        // Any real CPU runs its TSC between 0.1 and 10 GHz.
        assert!(tpn > 0.1 && tpn < 10.0, "ticks per ns {tpn}");
        // Independent check: a 20 ms sleep measured by TSC is at least 20 ms.
        let t0 = read_tsc();
        std::thread::sleep(Duration::from_millis(20));
        let ns = (read_tsc() - t0) as f64 / tpn;
        assert!(ns >= 19e6, "20 ms sleep measured as {ns} ns");
    }

    #[test]
    fn clock_names_round_trip() {
        for k in [
            ClockKind::Tsc,
            ClockKind::Monotonic,
            ClockKind::MonotonicRaw,
        ] {
            assert_eq!(ClockKind::from_name(k.name()), Some(k));
        }
        assert_eq!(ClockKind::from_name("wall"), None);
    }
}
