//! Errors of the JIT analysis. Each names the file, the line where there is one, and what was
//! expected.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum JitError {
    #[error("{}: cannot read: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "{}:{line}: not a PYPYLOG file: expected a section start such as \
         `[8a6af8093f] {{jit-log-opt-loop`, found `{found}` \
         (record one with PYPYLOG=jit-log-opt,jit-backend-counts,jit-summary:FILE pypy3 prog.py)",
        path.display()
    )]
    NotPypylog {
        path: PathBuf,
        line: usize,
        found: String,
    },
    #[error("{}: empty file: expected a PYPYLOG log", path.display())]
    Empty { path: PathBuf },
    #[error("{}:{line}: {what}", path.display())]
    Table {
        path: PathBuf,
        line: usize,
        what: String,
    },
    /// A missing or unstartable external tool; the message carries the install line.
    #[error("{0}")]
    Tool(String),
    /// metron-measure could not run or time a program.
    #[error("{0}")]
    Measure(String),
    /// A task or corpus description that cannot be used, naming the file and what was expected.
    #[error("{}: {what}", path.display())]
    Spec { path: PathBuf, what: String },
    #[error("{what} failed: {status}")]
    Failed { what: String, status: String },
}

/// The whole text of a file the user named (a weights table, a class table, a task script, a
/// model file), with the path in the error.
pub(crate) fn read_text(path: &std::path::Path) -> Result<String, JitError> {
    std::fs::read_to_string(path).map_err(|source| JitError::Io {
        path: path.to_path_buf(),
        source,
    })
}
