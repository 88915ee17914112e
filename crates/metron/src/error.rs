//! The one place where errors become messages and exit codes (ARCHITECTURE.md, Conventions).

use std::fmt;
use std::process::ExitCode;

/// What went wrong, sorted by the exit code it earns.
#[derive(Debug)]
pub enum CliError {
    /// Usage or input error: a wrong flag, a malformed file, a missing tool. Exit code 2.
    Input(String),
    /// The analysed thing failed (a measured command that never succeeded, a validation that
    /// did not hold). Exit code 1.
    Failure(String),
    /// Stopped by a signal (SIGINT, SIGTERM) after cleaning up. Exit code 128 + the signal,
    /// as a shell reports a program killed by it.
    Interrupted { signal: i32, message: String },
    /// The program under analysis raised an error of its own (e.g. in Octave), as opposed to
    /// results that differ. Exit code 3.
    Program(String),
}

impl CliError {
    pub fn input(msg: impl fmt::Display) -> Self {
        CliError::Input(msg.to_string())
    }

    pub fn failure(msg: impl fmt::Display) -> Self {
        CliError::Failure(msg.to_string())
    }

    pub fn exit_code(&self) -> ExitCode {
        match self {
            CliError::Input(_) => ExitCode::from(2),
            CliError::Failure(_) => ExitCode::from(1),
            CliError::Interrupted { signal, .. } => {
                ExitCode::from((128 + signal).clamp(1, 255) as u8)
            }
            CliError::Program(_) => ExitCode::from(3),
        }
    }
}

impl fmt::Display for CliError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CliError::Input(m) | CliError::Failure(m) | CliError::Program(m) => f.write_str(m),
            CliError::Interrupted { message, .. } => f.write_str(message),
        }
    }
}

pub type CliResult<T = ()> = Result<T, CliError>;
