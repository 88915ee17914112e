//! The one wrapper around `pypy3`: finds it, or says how to install it, and records a PYPYLOG.
//! It runs through metron-measure's runner, like every program metron starts.

use std::path::{Path, PathBuf};

use metron_measure::counters::CounterSet;
use metron_measure::runner::{self, OutputPolicy};

use crate::error::JitError;

/// The sections metron reads: optimised traces, counters and the summary.
pub const DEFAULT_SECTIONS: &str = "jit-log-opt,jit-backend-counts,jit-summary";

pub use metron_measure::tool::PYPY3;

/// Finds `pypy3` on the PATH, or says how to install it.
pub fn locate() -> Result<PathBuf, JitError> {
    PYPY3.locate().map_err(|e| JitError::Tool(e.to_string()))
}

/// How [`record_with`] runs the program.
#[derive(Debug, Clone, Default)]
pub struct RecordOptions {
    /// PYPYLOG sections ([`DEFAULT_SECTIONS`] when empty).
    pub sections: String,
    /// `pypy3 --jit OPTIONS` (e.g. `threshold=10,loop_longevity=4`).
    pub jit: Option<String>,
    /// Where the program's own output goes.
    pub output: OutputPolicy,
}

/// Runs `pypy3 script args...` with `PYPYLOG=sections:log`, output of the program discarded.
/// Fails when pypy3 is missing or the program exits unsuccessfully.
pub fn record(script: &Path, args: &[String], log: &Path, sections: &str) -> Result<(), JitError> {
    let options = RecordOptions {
        sections: sections.to_string(),
        ..RecordOptions::default()
    };
    record_with(script, args, log, &options)
}

/// As [`record`], with `--jit` options and a choice of where the program's output goes.
/// The log file is created first, so an unwritable path fails before the program runs
/// (PyPy itself would silently write no log).
pub fn record_with(
    script: &Path,
    args: &[String],
    log: &Path,
    options: &RecordOptions,
) -> Result<(), JitError> {
    let pypy = locate()?;
    std::fs::File::create(log).map_err(|source| JitError::Io {
        path: log.to_path_buf(),
        source,
    })?;
    let mut argv = vec![pypy.display().to_string()];
    if let Some(jit) = &options.jit {
        argv.push("--jit".to_string());
        argv.push(jit.clone());
    }
    argv.push(script.display().to_string());
    argv.extend(args.iter().cloned());
    let sections = if options.sections.is_empty() {
        DEFAULT_SECTIONS
    } else {
        &options.sections
    };
    let env = [(
        "PYPYLOG".to_string(),
        format!("{sections}:{}", log.display()),
    )];
    // Recording only: the counters and timings of this run are not wanted.
    let outcome = runner::run_once_with_env(&argv, &env, options.output, &CounterSet::none())
        .map_err(|e| JitError::Tool(e.to_string()))?;
    if outcome.exit.success() {
        Ok(())
    } else {
        Err(JitError::Failed {
            what: format!("{} {}", pypy.display(), script.display()),
            status: format!("exit status {}", outcome.exit.status()),
        })
    }
}
