use std::path::PathBuf;

/// Everything that can go wrong in static analysis; each names the file and what was expected.
#[derive(Debug, thiserror::Error)]
pub enum StaticError {
    #[error("{path}: cannot read: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: cannot write: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: not an ELF file this tool can read ({reason}); expected an x86-64 ELF executable or shared object")]
    NotElf { path: PathBuf, reason: String },
    #[error("{path}: {machine} binaries are not supported; expected x86-64")]
    Architecture { path: PathBuf, machine: String },
    #[error("{path}: no DWARF debug information (.debug_info/.debug_line); rebuild with -g (e.g. `cc -g -O2 ...`)")]
    NoDebugInfo { path: PathBuf },
    #[error("{path}: split DWARF (-gsplit-dwarf): functions and inline frames are in {dwo}, which metron does not read; rebuild without -gsplit-dwarf (plain -g)")]
    SplitDwarf { path: PathBuf, dwo: String },
    #[error("{path}: malformed DWARF: {reason}")]
    Dwarf { path: PathBuf, reason: String },
    #[error("{path}: malformed section {section}: {reason}")]
    Section {
        path: PathBuf,
        section: String,
        reason: String,
    },
    #[error(
        "{path}: function `{name}` not found; the binary's functions with debug lines are: {known}"
    )]
    NoSuchFunction {
        path: PathBuf,
        name: String,
        known: String,
    },
    #[error("{path}:{line}: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error(transparent)]
    Tool(#[from] metron_measure::tool::ToolError),
    #[error("{0}")]
    Run(String),
    #[error("{0}")]
    Symbolic(#[from] metron_symbolic::Error),
}

pub type Result<T> = std::result::Result<T, StaticError>;
