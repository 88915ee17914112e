//! Running programs as experiments (000 App. A and C, done properly): warm-up and repeated
//! runs, per-run wall/user/sys time, peak RSS and perf_event counters, environment capture,
//! bootstrap statistics, parameter sweeps, alternating comparisons, and the experiment store.
//!
//! Every metron capability that times or counts a program goes through [`runner`] and
//! summarises with [`stats`]; external tools are found through [`tool`].

pub mod counters;
pub mod environment;
pub mod experiment;
pub mod export;
pub mod metric;
pub mod params;
pub mod persist;
pub mod report;
pub mod runner;
pub mod signals;
pub mod stats;
pub mod tool;
pub mod units;
pub mod valgrind;

use std::path::PathBuf;

/// Errors of this crate. Every variant names what it is about.
#[derive(Debug, thiserror::Error)]
pub enum MeasureError {
    #[error("cannot start `{program}`: {reason}")]
    Spawn { program: String, reason: String },
    #[error("empty command: nothing to measure (give it after `--`)")]
    EmptyCommand,
    #[error("{0}")]
    Params(#[from] params::ParamError),
    #[error("{0}")]
    Tool(#[from] tool::ToolError),
    #[error("{0}")]
    Store(#[from] metron_store::StoreError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    Invalid(String),
}

pub type Result<T, E = MeasureError> = std::result::Result<T, E>;
