//! The one wrapper around `pypy3`: finds it, or says how to install it, and records a PYPYLOG.
//! Timing runs go through metron-measure; this only records logs.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::error::JitError;

/// The sections metron reads: optimised traces, counters and the summary.
pub const DEFAULT_SECTIONS: &str = "jit-log-opt,jit-backend-counts,jit-summary";
pub const INSTALL_HINT: &str = "apt-get install pypy3";

/// Finds `pypy3` (or `$METRON_PYPY3`) on the PATH.
pub fn locate() -> Result<PathBuf, JitError> {
    if let Some(p) = std::env::var_os("METRON_PYPY3") {
        let p = PathBuf::from(p);
        if p.is_file() {
            return Ok(p);
        }
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("pypy3"))
        .find(|p| p.is_file())
        .ok_or(JitError::MissingTool {
            tool: "pypy3",
            install: INSTALL_HINT,
        })
}

/// Runs `pypy3 script args...` with `PYPYLOG=sections:log`, output of the program discarded.
/// Fails when pypy3 is missing or the program exits unsuccessfully.
pub fn record(script: &Path, args: &[String], log: &Path, sections: &str) -> Result<(), JitError> {
    let pypy = locate()?;
    let status = Command::new(&pypy)
        .arg(script)
        .args(args)
        .env("PYPYLOG", format!("{sections}:{}", log.display()))
        .stdout(Stdio::null())
        .status()
        .map_err(|source| JitError::Io {
            path: pypy.clone(),
            source,
        })?;
    if status.success() {
        Ok(())
    } else {
        Err(JitError::Failed {
            what: format!("{} {}", pypy.display(), script.display()),
            status: status.to_string(),
        })
    }
}
