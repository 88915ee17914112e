//! The metrics a run records. Counter names follow `perf list`, so perf users read them as
//! they expect; values are in base units (seconds, bytes, counts).

use crate::units::Unit;

pub const WALL_TIME: &str = "wall-time";
pub const USER_TIME: &str = "user-time";
pub const SYS_TIME: &str = "sys-time";
/// User plus system time: the CPU the program consumed, which a loaded machine inflates far
/// less than wall time.
pub const CPU_TIME: &str = "cpu-time";
pub const MAX_RSS: &str = "max-rss";
/// Exit code, or 128 + signal number for a run killed by a signal (the shell's convention).
pub const EXIT_STATUS: &str = "exit-status";

/// Display order and units of the metrics metron knows; unknown ones sort last, as counts.
pub const KNOWN: &[(&str, Unit)] = &[
    (WALL_TIME, Unit::Seconds),
    (USER_TIME, Unit::Seconds),
    (SYS_TIME, Unit::Seconds),
    (CPU_TIME, Unit::Seconds),
    (MAX_RSS, Unit::Bytes),
    ("task-clock", Unit::Seconds),
    ("page-faults", Unit::Count),
    ("context-switches", Unit::Count),
    ("cpu-migrations", Unit::Count),
    ("instructions", Unit::Count),
    ("cycles", Unit::Count),
    ("cache-references", Unit::Count),
    ("cache-misses", Unit::Count),
    ("branches", Unit::Count),
    ("branch-misses", Unit::Count),
];

pub fn unit_of(metric: &str) -> Unit {
    KNOWN
        .iter()
        .find(|(m, _)| *m == metric)
        .map(|(_, u)| *u)
        .unwrap_or(Unit::Count)
}

/// Sort key that puts known metrics in their display order.
pub fn rank(metric: &str) -> usize {
    KNOWN
        .iter()
        .position(|(m, _)| *m == metric)
        .unwrap_or(KNOWN.len())
}

/// Human name for tables: "wall time" rather than "wall-time" for the time metrics.
pub fn label(metric: &str) -> String {
    match metric {
        WALL_TIME => "wall time".into(),
        USER_TIME => "user time".into(),
        SYS_TIME => "sys time".into(),
        CPU_TIME => "cpu time".into(),
        MAX_RSS => "max RSS".into(),
        other => other.into(),
    }
}
