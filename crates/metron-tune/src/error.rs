//! Errors of metron-tune. Bad input names the file and the line; failures of a unit are not
//! errors (a unit that fails gets fitness +inf, 002 Ch. 4) and are recorded, not raised.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum TuneError {
    /// A project, table or `.gp` file that does not say what metron needs.
    #[error("{path}:{line}: {message}")]
    Input {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Store(#[from] metron_store::StoreError),
    /// The unit library on disk disagrees with itself or with the store.
    #[error("unit library {path}: {message}")]
    Inconsistent { path: PathBuf, message: String },
    #[error(transparent)]
    Tool(#[from] metron_measure::tool::ToolError),
    #[error("slurm: {0}")]
    Slurm(String),
    /// A fitness that cannot be read from a run that succeeded: the project is wrong, not the unit.
    #[error("{unit}: {message}")]
    Fitness { unit: PathBuf, message: String },
}

impl TuneError {
    /// An input error at `line` (1-based; 0 when the whole file is meant).
    pub fn input(path: impl Into<PathBuf>, line: usize, message: impl Into<String>) -> Self {
        TuneError::Input {
            path: path.into(),
            line,
            message: message.into(),
        }
    }

    pub fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> TuneError {
        let path = path.into();
        move |source| TuneError::Io { path, source }
    }

    /// True when the user's input is at fault (exit code 2 in the CLI).
    pub fn is_input(&self) -> bool {
        matches!(
            self,
            TuneError::Input { .. }
                | TuneError::Inconsistent { .. }
                | TuneError::Tool(_)
                | TuneError::Fitness { .. }
        )
    }
}

pub type Result<T, E = TuneError> = std::result::Result<T, E>;
