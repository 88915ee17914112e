//! metron-probe: region timers with call-context trees, for Rust and C, at the cost of a clock
//! read (002 Ch. 2, "Stopwatch").
//!
//! ```
//! fn solve() {
//!     let _r = metron_probe::region!("solve");
//!     for _ in 0..3 {
//!         let _s = metron_probe::region!("sweep");
//!     }
//! }
//! solve();
//! let sw = metron_probe::Stopwatch::new("sweep");
//! assert_eq!(sw.count(), 3);
//! ```
//!
//! Semantics (002 §2.1, Listings 2.10-2.11): nested and looped regions each have their own
//! timer; an inclusive recursion times only its outermost activation and counts outermost
//! entries; a stop without a start is counted as an error. The call-context tree (002 §2.2)
//! keys nodes by (parent, region), so a recursion shows as nested levels.
//!
//! Output is written at exit when [`init`] was called or `METRON_PROFILE_DIR` is set, or at
//! any time by [`flush`]. Environment: `METRON_PROFILE_DIR`, `METRON_CLOCK`
//! (`tsc|monotonic|monotonic_raw`), `METRON_CALL_TREE=0`, `METRON_TIMELINE=<events per thread>`,
//! `METRON_FORMATS` (comma list of `json,csv,folded`; `json` is always written), and the rank
//! variables of [`profile::rank_from_env`].

pub mod calibrate;
pub mod clock;
mod ffi;
mod global;
pub mod output;
pub mod profile;
pub mod recorder;

#[cfg(feature = "analysis")]
pub mod analysis;

use std::fmt;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, Once, OnceLock};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

pub use clock::{ClockInfo, ClockKind};
pub use global::{
    call_tree_enabled, clear, collect_threads, enter, enter_with, exit, exit_with, region_names,
    register, set_call_tree, set_timeline, LazyRegion, RegionId, ThreadSnapshot,
};
pub use profile::Profile;

/// Times the rest of the enclosing scope as region `name` (a string literal). The region's id
/// is registered once and cached in a static, so an entry does no string work. The region is
/// closed when the guard drops, also while a panic unwinds.
#[macro_export]
macro_rules! region {
    ($name:expr) => {{
        static __METRON_REGION: $crate::LazyRegion = $crate::LazyRegion::new($name);
        $crate::Guard::enter(__METRON_REGION.id())
    }};
}

/// Closes its region on drop. Not `Send`: a region is entered and exited on one thread.
#[must_use = "the region closes when the guard is dropped; bind it with `let _r = ...`"]
pub struct Guard {
    id: RegionId,
    _thread_bound: PhantomData<*const ()>,
}

impl Guard {
    #[inline(always)]
    pub fn enter(id: RegionId) -> Guard {
        global::enter(id);
        Guard {
            id,
            _thread_bound: PhantomData,
        }
    }
}

impl Drop for Guard {
    #[inline(always)]
    fn drop(&mut self) {
        global::exit(self.id);
    }
}

/// The explicit timer of 002 Listing 2.9. Measurements are per thread: the queries answer for
/// the calling thread (all threads are merged only at flush).
#[derive(Debug, Clone)]
pub struct Stopwatch {
    id: RegionId,
    name: String,
}

impl Stopwatch {
    pub fn new(name: &str) -> Stopwatch {
        Stopwatch {
            id: register(name),
            name: name.to_string(),
        }
    }

    pub fn id(&self) -> RegionId {
        self.id
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    #[inline]
    pub fn start(&self) {
        global::enter(self.id);
    }

    #[inline]
    pub fn stop(&self) {
        global::exit(self.id);
    }

    /// Forgets this thread's past measurements of the region (an open activation stays open).
    pub fn reset(&self) {
        global::with_local(|r| r.reset_region(self.id.0));
    }

    fn timer(&self) -> recorder::RegionTimer {
        global::with_local(|r| r.regions.get(self.id.0 as usize).cloned())
            .flatten()
            .unwrap_or_default()
    }

    /// Time of completed outermost activations.
    pub fn total(&self) -> Duration {
        ticks_to_duration(self.timer().total)
    }

    /// Outermost entries (002 Listing 2.10's `_total_entries`).
    pub fn count(&self) -> u64 {
        self.timer().count
    }

    /// total / count; zero before the first stop.
    pub fn mean(&self) -> Duration {
        let t = self.timer();
        t.total
            .checked_div(t.count)
            .map_or(Duration::ZERO, ticks_to_duration)
    }

    /// Stops that came without a start.
    pub fn errors(&self) -> u64 {
        self.timer().errors
    }
}

fn ticks_to_duration(ticks: u64) -> Duration {
    Duration::from_nanos((ticks as f64 / clock::global_ticks_per_ns()) as u64)
}

// ----- configuration, flush, exit --------------------------------------------------------

/// Which files a flush writes, besides the JSON profile.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Formats {
    /// `<stem>.timers.csv` and `<stem>.callstack.csv` (002 Listings 2.34-2.35).
    pub csv: bool,
    /// `<stem>.folded`.
    pub folded: bool,
}

#[derive(Debug, Clone)]
pub struct Config {
    /// `None`: best available (invariant TSC, else monotonic).
    pub clock: Option<ClockKind>,
    pub call_tree: bool,
    /// Events kept per thread for the timeline; 0 = no timeline.
    pub timeline_events: usize,
    /// Where profiles go; `None` = current directory.
    pub dir: Option<PathBuf>,
    pub formats: Formats,
    pub write_at_exit: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            clock: None,
            call_tree: true,
            timeline_events: 0,
            dir: None,
            formats: Formats::default(),
            write_at_exit: true,
        }
    }
}

impl Config {
    /// Defaults overridden by the `METRON_*` environment variables.
    pub fn from_env() -> Config {
        let var = |k: &str| std::env::var(k).ok().filter(|s| !s.is_empty());
        let mut c = Config {
            clock: var("METRON_CLOCK").and_then(|s| ClockKind::from_name(&s)),
            ..Config::default()
        };
        if let Some(v) = var("METRON_CALL_TREE") {
            c.call_tree = !matches!(v.as_str(), "0" | "off" | "false" | "no");
        }
        if let Some(n) = var("METRON_TIMELINE").and_then(|s| s.parse().ok()) {
            c.timeline_events = n;
        }
        c.dir = var("METRON_PROFILE_DIR").map(PathBuf::from);
        if let Some(f) = var("METRON_FORMATS") {
            for part in f.split(',') {
                match part.trim() {
                    "csv" => c.formats.csv = true,
                    "folded" => c.formats.folded = true,
                    _ => {}
                }
            }
        }
        c
    }
}

fn config() -> &'static Mutex<Config> {
    static CONFIG: OnceLock<Mutex<Config>> = OnceLock::new();
    CONFIG.get_or_init(|| Mutex::new(Config::from_env()))
}

static START_UNIX_NS: OnceLock<u64> = OnceLock::new();
static AT_EXIT: Once = Once::new();
static WRITTEN: AtomicBool = AtomicBool::new(false);

fn start_unix_ns() -> u64 {
    *START_UNIX_NS.get_or_init(|| {
        SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    })
}

/// Chooses the clock, applies the switches and (if `write_at_exit`) arranges for the profile
/// to be written when the process exits. Returns the clock in use: the first call decides it.
pub fn init(cfg: Config) -> ClockKind {
    start_unix_ns();
    let kind = clock::init_global(cfg.clock);
    set_call_tree(cfg.call_tree);
    set_timeline(cfg.timeline_events);
    if cfg.write_at_exit {
        AT_EXIT.call_once(|| {
            // SAFETY: registering a plain extern "C" fn with no captured state.
            unsafe { libc::atexit(write_at_exit) };
        });
    }
    *config().lock().unwrap_or_else(|p| p.into_inner()) = cfg;
    kind
}

/// `init(Config::from_env())` if `METRON_PROFILE_DIR` is set and nobody called [`init`]: lets a
/// program that only uses `region!` be profiled by setting one variable.
pub(crate) fn auto_init() {
    static AUTO: Once = Once::new();
    AUTO.call_once(|| {
        start_unix_ns();
        if std::env::var_os("METRON_PROFILE_DIR").is_some() && !AT_EXIT.is_completed() {
            init(Config::from_env());
        }
    });
}

extern "C" fn write_at_exit() {
    let _ = std::panic::catch_unwind(|| {
        if WRITTEN.swap(true, Ordering::SeqCst) {
            return;
        }
        report_flush(flush());
    });
}

/// One message on stderr for a failed write; the host program goes on.
pub(crate) fn report_flush(r: Result<Vec<PathBuf>, ProbeError>) {
    match r {
        Ok(_) => {}
        Err(e) => eprintln!("metron-probe: {e}"),
    }
}

/// Writing a profile failed.
#[derive(Debug)]
pub struct ProbeError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

impl fmt::Display for ProbeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cannot write profile {}: {} (set METRON_PROFILE_DIR to a writable directory)",
            self.path.display(),
            self.source
        )
    }
}

impl std::error::Error for ProbeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.source)
    }
}

/// The profile of this process now: the calling thread and all ended threads.
pub fn snapshot() -> Profile {
    start_unix_ns();
    let threads = collect_threads();
    profile::build(
        &profile::ProcessInfo::current(start_unix_ns()),
        clock::global_clock_info(),
        call_tree_enabled(),
        &region_names(),
        &threads,
    )
}

/// File stem of this process's outputs: one file per rank (or per pid without a rank), so that
/// the processes of one job can share `METRON_PROFILE_DIR`.
pub fn file_stem(rank: Option<u32>, pid: u32) -> String {
    match rank {
        Some(r) => format!("metron-rank{r}"),
        None => format!("metron-pid{pid}"),
    }
}

/// Writes the profile (and the configured extra formats and timeline) now, into the configured
/// directory. Returns the files written.
pub fn flush() -> Result<Vec<PathBuf>, ProbeError> {
    let cfg = config().lock().unwrap_or_else(|p| p.into_inner()).clone();
    let dir = cfg.dir.clone().unwrap_or_else(|| PathBuf::from("."));
    flush_to(&dir, cfg.formats)
}

/// [`flush`] into an explicit directory.
pub fn flush_to(dir: &Path, formats: Formats) -> Result<Vec<PathBuf>, ProbeError> {
    let threads = collect_threads();
    let names = region_names();
    let p = profile::build(
        &profile::ProcessInfo::current(start_unix_ns()),
        clock::global_clock_info(),
        call_tree_enabled(),
        &names,
        &threads,
    );
    let stem = file_stem(p.rank, p.pid);
    let mut files = vec![(format!("{stem}.json"), output::to_json(&p))];
    if formats.csv {
        files.push((format!("{stem}.timers.csv"), output::to_csv_timers(&p)));
        files.push((
            format!("{stem}.callstack.csv"),
            output::to_csv_callstack(&p),
        ));
    }
    if formats.folded {
        files.push((format!("{stem}.folded"), output::to_folded(&p)));
    }
    if threads.iter().any(|t| t.recorder.timeline.is_some()) {
        files.push((
            format!("{stem}.trace.json"),
            output::timeline_chrome(
                &threads,
                &names,
                p.clock.ticks_per_ns,
                clock::global_start_ticks(),
                p.rank,
            ),
        ));
    }
    let err = |path: PathBuf| move |source| ProbeError { path, source };
    std::fs::create_dir_all(dir).map_err(err(dir.to_path_buf()))?;
    let mut written = Vec::new();
    for (name, text) in files {
        let path = dir.join(name);
        std::fs::write(&path, text).map_err(err(path.clone()))?;
        written.push(path);
    }
    for problem in p.problems() {
        eprintln!("metron-probe: {problem}");
    }
    Ok(written)
}

/// Writes the profile now and marks it written, so the exit handler does not write it again.
pub fn finalize() -> Result<Vec<PathBuf>, ProbeError> {
    WRITTEN.store(true, Ordering::SeqCst);
    flush()
}
