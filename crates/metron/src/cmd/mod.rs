//! One module per subcommand; each exposes its clap arguments and a `run` function.

pub mod build_opts;
pub mod contention;
pub mod demo;
pub mod doctor;
pub mod history;
pub mod jit;
pub mod matlab;
pub mod measure;
pub mod memory;
pub mod pep;
pub mod plot;
pub mod probe;
pub mod profile;
pub mod report;
pub mod static_;
pub mod tune;
pub mod tune_show;

use std::path::PathBuf;

use crate::error::CliError;

/// Store errors are the user's input (a wrong `--store` file), so they exit 2.
pub fn open_store(path: &std::path::Path) -> Result<metron_store::Store, CliError> {
    metron_store::Store::open(path).map_err(CliError::input)
}

/// For commands that write to a store that must exist; reading commands use
/// [`open_store_read_only`].
#[allow(dead_code)]
pub fn open_existing_store(path: &std::path::Path) -> Result<metron_store::Store, CliError> {
    metron_store::Store::open_existing(path).map_err(CliError::input)
}

/// Reading commands open the store read-only: an archived store may not be writable, and
/// reading must never change it.
pub fn open_store_read_only(path: &std::path::Path) -> Result<metron_store::Store, CliError> {
    metron_store::Store::open_read_only(path).map_err(CliError::input)
}

pub fn default_store() -> PathBuf {
    PathBuf::from(metron_store::DEFAULT_PATH)
}
