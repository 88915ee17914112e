//! Running a program under a valgrind tool (callgrind for metron static's validation, lackey
//! or others for exact counts), through the one process runner.
//!
//! valgrind 3.19 (Debian 12) cannot read the DWARF 5 that clang 14 writes by default for a
//! program of several source files: it stops before the program runs, with "Possibly
//! corrupted debuginfo file". Counts are per instruction address, which debug information
//! does not change, so metron then runs a copy without debug information (`objcopy
//! --strip-debug`) and reports the counts under the original's name. Symbols stay, so
//! function names in valgrind's output are unchanged.

use std::path::{Path, PathBuf};

use crate::counters::CounterSet;
use crate::runner::{run_once_with_env, Exit, OutputPolicy};
use crate::tool::{self, ToolError};

#[derive(Debug, thiserror::Error)]
pub enum ValgrindError {
    #[error("{0}")]
    Tool(#[from] ToolError),
    #[error("valgrind could not start: {0}")]
    Start(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// valgrind gave up on the debug information even of the copy without it.
    #[error("valgrind cannot read the debug information of {binary} ({log_tail}); rebuild it with -gdwarf-4")]
    Debuginfo { binary: PathBuf, log_tail: String },
}

/// One finished run under valgrind.
#[derive(Debug, Clone)]
pub struct ValgrindRun {
    /// The program's exit (valgrind passes it through).
    pub exit: Exit,
    /// valgrind's own messages (`--log-file`), apart from the program's output.
    pub log: String,
    /// The file valgrind ran: the program, or its copy without debug information, whose
    /// path then stands in valgrind's output where the program's would.
    pub ran: PathBuf,
}

impl ValgrindRun {
    /// Whether valgrind ran a debug-info-free copy (see the module doc).
    pub fn ran_copy(&self, program: &Path) -> bool {
        self.ran != program
    }
}

/// What to run: `valgrind TOOL_ARGS... PROGRAM ARGS...` with `env` added, in `work` (where the
/// log and, if needed, the stripped copy go).
pub struct Invocation<'a> {
    pub tool_args: &'a [String],
    pub program: &'a Path,
    pub args: &'a [String],
    pub env: &'a [(String, String)],
    pub work: &'a Path,
}

/// Runs the invocation; falls back to a debug-info-free copy when valgrind cannot read the
/// program's debug information (module doc).
pub fn run(inv: &Invocation) -> Result<ValgrindRun, ValgrindError> {
    let first = run_as(inv, inv.program)?;
    if !gave_up_on_debuginfo(&first.log) {
        return Ok(first);
    }
    let copy = strip_debug(inv.program, inv.work)?;
    let second = run_as(inv, &copy)?;
    if gave_up_on_debuginfo(&second.log) {
        return Err(ValgrindError::Debuginfo {
            binary: inv.program.to_path_buf(),
            log_tail: tail(&second.log),
        });
    }
    Ok(second)
}

fn run_as(inv: &Invocation, program: &Path) -> Result<ValgrindRun, ValgrindError> {
    let valgrind = tool::VALGRIND.locate()?;
    let log_file = inv.work.join("valgrind.log");
    let mut argv = vec![
        valgrind.display().to_string(),
        format!("--log-file={}", log_file.display()),
    ];
    argv.extend(inv.tool_args.iter().cloned());
    argv.push(program.display().to_string());
    argv.extend(inv.args.iter().cloned());
    let outcome = run_once_with_env(&argv, inv.env, OutputPolicy::Discard, &CounterSet::none())
        .map_err(|e| ValgrindError::Start(e.to_string()))?;
    let log = std::fs::read_to_string(&log_file).unwrap_or_default();
    Ok(ValgrindRun {
        exit: outcome.exit,
        log,
        ran: program.to_path_buf(),
    })
}

fn gave_up_on_debuginfo(log: &str) -> bool {
    log.contains("Possibly corrupted debuginfo") || log.contains("debuginfo reader: ")
}

/// `objcopy --strip-debug PROGRAM WORK/nodebug/NAME`: same file name, so that tools matching
/// objects by name still find it.
fn strip_debug(program: &Path, work: &Path) -> Result<PathBuf, ValgrindError> {
    let dir = work.join("nodebug");
    std::fs::create_dir_all(&dir).map_err(|source| ValgrindError::Io {
        path: dir.clone(),
        source,
    })?;
    let name = program.file_name().unwrap_or(program.as_os_str());
    let copy = dir.join(name);
    tool::OBJCOPY.run(
        [
            std::ffi::OsStr::new("--strip-debug"),
            program.as_os_str(),
            copy.as_os_str(),
        ],
        None,
    )?;
    Ok(copy)
}

/// The last lines of valgrind's log, for a message.
fn tail(log: &str) -> String {
    let lines: Vec<&str> = log
        .lines()
        .map(|l| {
            l.trim_start_matches(|c: char| c == '=' || c.is_ascii_digit())
                .trim()
        })
        .filter(|l| !l.is_empty())
        .collect();
    lines[lines.len().saturating_sub(2)..].join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dwarf5_message_is_recognised() {
        let log = "==1754== Valgrind: debuginfo reader: Possibly corrupted debuginfo file.\n\
                   ==1754== Valgrind: I can't recover.  Giving up.  Sorry.\n";
        assert!(gave_up_on_debuginfo(log));
        assert_eq!(
            tail(log),
            "Valgrind: debuginfo reader: Possibly corrupted debuginfo file. Valgrind: I can't recover.  Giving up.  Sorry."
        );
        assert!(!gave_up_on_debuginfo("==1== I   refs: 132,349\n"));
    }
}
