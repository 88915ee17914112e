//! Performance event profiles (000 Ch. 3, §4.2–4.3, App. B): counter groups sampled each
//! time a sampling event overflows, the mPAPI trace format, profiles and Δ, jitter against
//! Eq. 3.1, execution regions (predicates, Eq. 3.2's data copy, instruction-block starts,
//! PELT segmentation), proxy-profile costs and the alignment of separately measured groups.
//!
//! Recording uses `perf_event_open` on any process (the thesis used PAPI inside MATLAB);
//! [`ffi`] gives Octave the same through MEX functions.

pub mod align;
pub mod changepoint;
pub mod csv;
pub mod events;
pub mod execution_region;
pub mod ffi;
pub mod instruction_block;
pub mod libpfm;
pub mod profile;
pub mod record;
pub mod summary;
pub mod trace;

use std::path::PathBuf;

/// The external tools of metron pep, from the one catalogue (`metron doctor` lists them).
pub use metron_measure::tool::{MKOCTFILE, OCTAVE as OCTAVE_CLI, PERF};

/// Errors of this crate; each names the file, line, event or predicate it is about.
#[derive(Debug, thiserror::Error)]
pub enum PepError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("event `{event}` is not in this profile group (it has: {})", known.join(", "))]
    UnknownEvent { event: String, known: Vec<String> },
    #[error("predicate `{text}`: {message}")]
    Predicate { text: String, message: String },
    #[error("cannot align: {0}")]
    Align(String),
    #[error("{0}")]
    Event(#[from] events::EventError),
    #[error("recording: {0}")]
    Record(String),
    #[error("{0}")]
    Measure(#[from] metron_measure::MeasureError),
}

pub type Result<T, E = PepError> = std::result::Result<T, E>;
