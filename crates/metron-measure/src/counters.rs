//! perf_event counters for measured child processes.
//!
//! The counters are opened on metron itself, disabled, with `inherit` and `enable_on_exec`:
//! every child inherits a disabled copy that the kernel switches on at `exec`, so the count
//! starts at the measured program's first instruction and metron's own work (forking, waiting,
//! writing the store) is never counted. When the child exits, the kernel adds its counts into
//! metron's counter; the difference of two reads around a run is that run's count.
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
    }
}

const fn hw(name: &'static str, e: Hardware) -> CounterKind {
    CounterKind {
        name,
        hardware: true,
        source: Source::Hw(e.0),
    }
}

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
    DEFAULT.iter().copied().find(|c| c.name == name)
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

struct Open {
    kind: CounterKind,
    counter: Counter,
    last: Reading,
}

#[derive(Debug, Clone, Copy, Default)]
struct Reading {
    count: u64,
    enabled: u64,
    running: u64,
}

/// The open counters of one measurement session.
pub struct CounterSet {
    open: Vec<Open>,
    availability: Availability,
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
    /// Opens what it can of `kinds`; never fails.
    pub fn open(kinds: &[CounterKind]) -> CounterSet {
        let mut open = Vec::new();
        let mut availability = Availability::default();
        for &kind in kinds {
            match open_one(kind) {
                Ok(counter) => {
                    availability.available.push(kind.name.to_string());
                    open.push(Open {
                        kind,
                        counter,
                        last: Reading::default(),
                    });
                }
                Err(reason) => availability.unavailable.push(Unavailable {
                    name: kind.name.to_string(),
                    reason,
                }),
            }
        }
        let mut set = CounterSet { open, availability };
        set.mark();
        set
    }

    /// No counters at all (`--no-counters`).
    pub fn none() -> CounterSet {
        CounterSet {
            open: Vec::new(),
            availability: Availability::default(),
        }
    }

    pub fn availability(&self) -> &Availability {
        &self.availability
    }

    /// Remembers the current totals; the next [`CounterSet::since_mark`] is relative to them.
    pub fn mark(&mut self) {
        for o in &mut self.open {
            if let Some(r) = read(&mut o.counter) {
                o.last = r;
            }
        }
    }

    /// Counts accumulated since the last mark (by children that have exited), then marks.
    pub fn since_mark(&mut self) -> Vec<CounterValue> {
        let mut values = Vec::with_capacity(self.open.len());
        for o in &mut self.open {
            let Some(now) = read(&mut o.counter) else {
                continue;
            };
            let count = now.count.saturating_sub(o.last.count) as f64;
            let enabled = now.enabled.saturating_sub(o.last.enabled);
            let running = now.running.saturating_sub(o.last.running);
            o.last = now;
            let scaled = if running > 0 && running < enabled {
                count * enabled as f64 / running as f64
            } else {
                count
            };
            values.push(to_value(o.kind, scaled));
        }
        values
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

fn read(counter: &mut Counter) -> Option<Reading> {
    let data = counter.read_full().ok()?;
    Some(Reading {
        count: data.count(),
        enabled: data.time_enabled().map_or(0, |d| d.as_nanos() as u64),
        running: data.time_running().map_or(0, |d| d.as_nanos() as u64),
    })
}

fn open_one(kind: CounterKind) -> Result<Counter, String> {
    let build = |include_kernel: bool| {
        let mut b = match kind.source {
            Source::Sw(c) => Builder::new(Software(c)),
            Source::Hw(c) => Builder::new(Hardware(c)),
        };
        b.observe_self()
            .any_cpu()
            .inherit(true)
            .enable_on_exec(true)
            .enabled(false)
            .exclude_kernel(!include_kernel);
        b.build()
    };
    // Kernel time belongs to the program (page faults, syscalls), but unprivileged users may
    // only count user space: fall back to it rather than to nothing.
    build(true)
        .or_else(|_| build(false))
        .map_err(|e| explain(kind, e))
}

fn explain(kind: CounterKind, e: std::io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::ENOENT) | Some(libc::EOPNOTSUPP) | Some(libc::ENODEV) if kind.hardware => {
            "no PMU".into()
        }
        Some(libc::EACCES) | Some(libc::EPERM) => {
            "permission denied: lower /proc/sys/kernel/perf_event_paranoid".into()
        }
        Some(libc::ENOSYS) => "the kernel has no perf_event_open".into(),
        _ => e.to_string(),
    }
}
