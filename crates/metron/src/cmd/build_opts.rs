//! Options shared by the commands that compile the user's code and count with parameters
//! (`metron memory`, and `metron static` at merge): `--param`, `--cflags`,
//! `--compile-commands`. One parser, so `--param` means the same everywhere.

use std::path::PathBuf;

use clap::Args;
use metron_symbolic::Binding;

use crate::error::{CliError, CliResult};

#[derive(Args, Debug, Clone, Default)]
pub struct BuildOpts {
    /// Value of a parameter (a function argument, or trip_<loop> for an unknown count);
    /// a name that no analysed function has is an error.
    #[arg(long, short = 'p', value_name = "NAME=INT")]
    pub param: Vec<String>,
    /// Extra clang flags for every source, as one shell-quoted string (repeatable):
    /// --cflags "-Iinclude -DN=100 -std=c99".
    #[arg(long, value_name = "FLAGS", allow_hyphen_values = true)]
    pub cflags: Vec<String>,
    /// A compilation database (CMake's CMAKE_EXPORT_COMPILE_COMMANDS, Bear): each source is
    /// compiled with its recorded -I/-D/-U/-std flags, in its recorded directory. Without
    /// FILE arguments, every file of the database is analysed as one program.
    #[arg(long, value_name = "compile_commands.json")]
    pub compile_commands: Option<PathBuf>,
}

impl BuildOpts {
    /// `--param` values; malformed entries are input errors naming the entry.
    pub fn binding(&self) -> CliResult<Binding> {
        parse_params(&self.param)
    }

    /// `--cflags` split like a shell would.
    pub fn cflags(&self) -> CliResult<Vec<String>> {
        let mut out = Vec::new();
        for f in &self.cflags {
            out.extend(
                shell_words::split(f)
                    .map_err(|e| CliError::input(format!("--cflags `{f}`: {e}")))?,
            );
        }
        Ok(out)
    }

    /// Names given with `--param` that are not among `known`: an error listing the known ones.
    pub fn check_known<'a>(
        &self,
        binding: &Binding,
        known: impl IntoIterator<Item = &'a String>,
    ) -> CliResult<()> {
        let known: std::collections::BTreeSet<&String> = known.into_iter().collect();
        let unknown: Vec<&String> = binding.keys().filter(|k| !known.contains(k)).collect();
        if unknown.is_empty() {
            return Ok(());
        }
        let list: Vec<&str> = known.iter().map(|s| s.as_str()).collect();
        Err(CliError::input(format!(
            "--param {}: no such parameter (the parameters are: {})",
            unknown
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            if list.is_empty() {
                "none".to_string()
            } else {
                list.join(", ")
            }
        )))
    }
}

/// `NAME=INTEGER` values: malformed entries and a name given twice are input errors naming
/// the entry. The one `--param` parser of `metron memory` and `metron static`.
pub fn parse_params(params: &[String]) -> CliResult<Binding> {
    let mut b = Binding::new();
    for p in params {
        let (k, v) = p
            .split_once('=')
            .ok_or_else(|| CliError::input(format!("--param `{p}`: expected NAME=INTEGER")))?;
        let v: i64 = v
            .trim()
            .parse()
            .map_err(|_| CliError::input(format!("--param `{p}`: `{v}` is not an integer")))?;
        if b.insert(k.trim().to_string(), v).is_some() {
            return Err(CliError::input(format!(
                "--param `{}` is given twice",
                k.trim()
            )));
        }
    }
    Ok(b)
}
