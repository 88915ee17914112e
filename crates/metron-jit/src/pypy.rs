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

/// Runs `pypy3 script args...` with `PYPYLOG=sections:log`, output of the program discarded.
/// Fails when pypy3 is missing or the program exits unsuccessfully.
pub fn record(script: &Path, args: &[String], log: &Path, sections: &str) -> Result<(), JitError> {
    let pypy = locate()?;
    let argv: Vec<String> = [pypy.display().to_string(), script.display().to_string()]
        .into_iter()
        .chain(args.iter().cloned())
        .collect();
    let env = [(
        "PYPYLOG".to_string(),
        format!("{sections}:{}", log.display()),
    )];
    // Recording only: the counters and timings of this run are not wanted.
    let outcome =
        runner::run_once_with_env(&argv, &env, OutputPolicy::Discard, &CounterSet::none())
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
