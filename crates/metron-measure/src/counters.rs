//! perf_event counters for measured child processes.
//!
//! As `perf stat` does it: the runner forks, the child waits on a pipe before its `exec`, the
//! counters are opened on the child's pid with `enable_on_exec` and `inherit`, and then the
//! child is released. Counting starts at the measured program's first instruction, follows its
//! own children, and never includes metron's work (forking, waiting, writing the store).
//! (Opening inherited counters once on metron itself and diffing reads is simpler, but the
//! kernel's context-swap optimisation stops such counters after a couple of children.)
//!
//! Software counters work on virtual machines without a PMU; hardware ones are opened when the
//! machine has one. What cannot be opened is reported in one line and never fails a measurement.

use perf_event::events::{Hardware, Software};
use perf_event::{Builder, Counter};
use serde::{Deserialize, Serialize};

use crate::units::Unit;

/// A counter metron knows how to open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CounterKind {
    /// Name as `perf list` prints it; also the metric name.
    pub name: &'static str,
    pub hardware: bool,
    source: Source,
    /// User space only (perf's `:u` modifier): what instruction-level tools such as callgrind
    /// see.
    user_only: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Sw(u64),
    Hw(u64),
}

const fn sw(name: &'static str, e: Software) -> CounterKind {
    CounterKind {
        name,
        hardware: false,
        source: Source::Sw(e.0),
        user_only: false,
    }
}

const fn hw(name: &'static str, e: Hardware) -> CounterKind {
    CounterKind {
        name,
        hardware: true,
        source: Source::Hw(e.0),
        user_only: false,
    }
}

/// Retired user-space instructions (`perf stat -e instructions:u`).
pub const INSTRUCTIONS_USER: CounterKind = CounterKind {
    name: "instructions:u",
    hardware: true,
    source: Source::Hw(Hardware::INSTRUCTIONS.0),
    user_only: true,
};

/// The default set, in display order.
pub const DEFAULT: &[CounterKind] = &[
    sw("task-clock", Software::TASK_CLOCK),
    sw("page-faults", Software::PAGE_FAULTS),
    sw("context-switches", Software::CONTEXT_SWITCHES),
    sw("cpu-migrations", Software::CPU_MIGRATIONS),
    hw("instructions", Hardware::INSTRUCTIONS),
    hw("cycles", Hardware::CPU_CYCLES),
    hw("cache-references", Hardware::CACHE_REFERENCES),
    hw("cache-misses", Hardware::CACHE_MISSES),
    hw("branches", Hardware::BRANCH_INSTRUCTIONS),
    hw("branch-misses", Hardware::BRANCH_MISSES),
];

/// Looks up a counter by its `perf list` name.
pub fn by_name(name: &str) -> Option<CounterKind> {
    DEFAULT
        .iter()
        .chain([&INSTRUCTIONS_USER])
        .copied()
        .find(|c| c.name == name)
}

/// What could and could not be opened on this machine.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Availability {
    pub available: Vec<String>,
    pub unavailable: Vec<Unavailable>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unavailable {
    pub name: String,
    pub reason: String,
}

impl Availability {
    /// One line per group of missing counters, e.g.
    /// "hardware counters: not available on this machine (no PMU)".
    pub fn notes(&self) -> Vec<String> {
        let (hw, sw): (Vec<_>, Vec<_>) = self
            .unavailable
            .iter()
            .partition(|u| by_name(&u.name).is_some_and(|c| c.hardware));
        let mut notes = Vec::new();
        if !hw.is_empty() {
            let all_hw = DEFAULT.iter().filter(|c| c.hardware).count() == hw.len();
            let names: Vec<&str> = hw.iter().map(|u| u.name.as_str()).collect();
            let what = if all_hw {
                "hardware counters".to_string()
            } else {
                format!("hardware counters {}", names.join(", "))
            };
            notes.push(format!(
                "{what}: not available on this machine ({})",
                hw[0].reason
            ));
        }
        for u in sw {
            notes.push(format!("{}: not available ({})", u.name, u.reason));
        }
        notes
    }
}

/// The counters of one measurement session: which of the requested ones this machine can
/// open. Each run attaches fresh counters to its child (see [`CounterSet::attach`]).
pub struct CounterSet {
    kinds: Vec<CounterKind>,
    availability: Availability,
}

/// Counters attached to one child process.
pub struct Attached {
    open: Vec<(CounterKind, Counter)>,
}

/// A counter's value over one run. Multiplexed hardware counters are scaled by
/// enabled/running time, as `perf stat` does.
#[derive(Debug, Clone, PartialEq)]
pub struct CounterValue {
    pub name: &'static str,
    pub value: f64,
    pub unit: Unit,
}

impl CounterSet {
    /// Finds out which of `kinds` this machine can count (by opening each on metron itself,
    /// disabled); never fails.
    pub fn open(kinds: &[CounterKind]) -> CounterSet {
        let mut ok = Vec::new();
        let mut availability = Availability::default();
        for &kind in kinds {
            match open_one(kind, 0) {
                Ok(_) => {
                    availability.available.push(kind.name.to_string());
                    ok.push(kind);
                }
                Err(reason) => availability.unavailable.push(Unavailable {
                    name: kind.name.to_string(),
                    reason,
                }),
            }
        }
        CounterSet {
            kinds: ok,
            availability,
        }
    }

    /// No counters at all (`--no-counters`).
    pub fn none() -> CounterSet {
        CounterSet {
            kinds: Vec::new(),
            availability: Availability::default(),
        }
    }

    pub fn availability(&self) -> &Availability {
        &self.availability
    }

    /// Attaches the available counters to `pid`, a child stopped before its `exec`. They
    /// start counting at the exec and follow its own children (`inherit`).
    pub fn attach(&self, pid: libc::pid_t) -> Attached {
        Attached {
            open: self
                .kinds
                .iter()
                .filter_map(|&k| open_one(k, pid).ok().map(|c| (k, c)))
                .collect(),
        }
    }
}

impl Attached {
    /// Final values, read after the child has been reaped.
    pub fn read(mut self) -> Vec<CounterValue> {
        self.open
            .iter_mut()
            .filter_map(|(kind, counter)| {
                let data = counter.read_full().ok()?;
                let count = data.count() as f64;
                let enabled = data.time_enabled().map_or(0, |d| d.as_nanos());
                let running = data.time_running().map_or(0, |d| d.as_nanos());
                let scaled = if running > 0 && running < enabled {
                    count * enabled as f64 / running as f64
                } else {
                    count
                };
                Some(to_value(*kind, scaled))
            })
            .collect()
    }
}

fn to_value(kind: CounterKind, raw: f64) -> CounterValue {
    // task-clock counts nanoseconds; metron keeps times in seconds.
    if kind.source == Source::Sw(Software::TASK_CLOCK.0) {
        return CounterValue {
            name: kind.name,
            value: raw * 1e-9,
            unit: Unit::Seconds,
        };
    }
    CounterValue {
        name: kind.name,
        value: raw,
        unit: Unit::Count,
    }
}

/// Opens `kind` on `pid` (0: metron itself), disabled until the process execs.
fn open_one(kind: CounterKind, pid: libc::pid_t) -> Result<Counter, String> {
    let build = |include_kernel: bool| {
        let mut b = match kind.source {
            Source::Sw(c) => Builder::new(Software(c)),
            Source::Hw(c) => Builder::new(Hardware(c)),
        };
        if pid == 0 {
            b.observe_self();
        } else {
            b.observe_pid(pid);
        }
        b.any_cpu()
            .inherit(true)
            .enable_on_exec(true)
            .enabled(false)
            .exclude_kernel(!include_kernel);
        b.build()
    };
    // Kernel time belongs to the program (page faults, syscalls), but unprivileged users may
    // only count user space: fall back to it rather than to nothing.
    let first = build(!kind.user_only);
    let first = if kind.user_only {
        first
    } else {
        first.or_else(|_| build(false))
    };
    first.map_err(|e| explain(kind, e))
}

fn explain(kind: CounterKind, e: std::io::Error) -> String {
    explain_open_error(kind.hardware, &e)
}

/// Why `perf_event_open` refused an event, in words (shared with metron-pep's groups).
pub fn explain_open_error(hardware: bool, e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::ENOENT) | Some(libc::EOPNOTSUPP) | Some(libc::ENODEV) if hardware => {
            "no PMU".into()
        }
        Some(libc::EACCES) | Some(libc::EPERM) => {
            "permission denied: lower /proc/sys/kernel/perf_event_paranoid".into()
        }
        Some(libc::ENOSYS) => "the kernel has no perf_event_open".into(),
        _ => e.to_string(),
    }
}
