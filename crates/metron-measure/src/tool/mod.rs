//! One rule for finding external tools (ARCHITECTURE.md): every program metron runs (clang,
//! opt, valgrind, octave-cli, pypy3, ...) is a [`Tool`] in the [`catalogue`], found by
//! [`Tool::resolve`], and when it is missing the error carries the Debian install line.
//!
//! The rule: the plain name first (`clang`), then the versioned names Debian installs
//! (`clang-14`, `clang-15`, ... up to the newest on `PATH`), keeping the first whose version
//! is in the tool's accepted range. The library, `metron doctor`, the demo and the tests all
//! resolve through it, so a tool found by one is found by all.

pub mod catalogue;
mod doctor;
pub mod testing;

use std::collections::HashMap;
use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

use serde::Serialize;

pub use catalogue::*;
pub use doctor::{doctor, Doctor, ToolStatus};

/// Which versions of a tool metron accepts, and whether Debian's versioned names count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum VersionRule {
    /// Any version, under its plain name only.
    Any,
    /// An LLVM tool (`clang`, `clang++`, `opt`, `llvm-*`): the plain name or `NAME-N`, with
    /// major version N in `min..=max`.
    Llvm { min: u32, max: u32 },
}

/// An external program metron calls, with the Debian package that provides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Tool {
    /// The plain name, as a user would type it.
    pub program: &'static str,
    pub debian_package: &'static str,
    /// What metron needs it for, for the error message.
    pub purpose: &'static str,
    /// The metron commands (and tests) that cannot work without it.
    pub needed_by: &'static [&'static str],
    pub versions: VersionRule,
}

/// A tool found on this machine.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Resolved {
    pub path: PathBuf,
    /// The first dotted number the tool printed for `--version` (e.g. `14.0.6`), if any.
    pub version: Option<String>,
}

impl Resolved {
    /// The major version, when the tool printed one.
    pub fn major(&self) -> Option<u32> {
        self.version.as_deref()?.split('.').next()?.parse().ok()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("`{program}` is not installed (needed for {purpose}); install it with: apt-get install -y {package}")]
    Missing {
        program: &'static str,
        package: &'static str,
        purpose: &'static str,
    },
    /// Boxed: a tool error travels inside many crates' error enums, which should stay small.
    #[error("{0}")]
    WrongVersion(Box<VersionMismatch>),
    #[error("`{program}` could not be run: {source}")]
    Run {
        program: String,
        source: std::io::Error,
    },
    #[error("`{command}` failed with {status}: {stderr}")]
    Failed {
        command: String,
        status: String,
        stderr: String,
    },
}

/// A tool present in a version metron does not accept.
#[derive(Debug, thiserror::Error)]
#[error("`{program}` at {path} is version {found}, but metron needs {wanted} (needed for {purpose}); install it with: apt-get install -y {package}", path = .path.display())]
pub struct VersionMismatch {
    pub program: &'static str,
    pub path: PathBuf,
    pub found: String,
    pub wanted: String,
    pub package: &'static str,
    pub purpose: &'static str,
}

impl ToolError {
    /// Whether the tool is absent (or unusable) rather than having failed on its input.
    pub fn is_missing(&self) -> bool {
        matches!(self, ToolError::Missing { .. } | ToolError::WrongVersion(_))
    }
}

impl Tool {
    /// A tool found under its plain name, any version.
    pub const fn new(
        program: &'static str,
        debian_package: &'static str,
        purpose: &'static str,
    ) -> Tool {
        Tool {
            program,
            debian_package,
            purpose,
            needed_by: &[],
            versions: VersionRule::Any,
        }
    }

    /// The same tool, recorded as needed by these commands (shown by `metron doctor`).
    pub const fn needed_by(mut self, commands: &'static [&'static str]) -> Tool {
        self.needed_by = commands;
        self
    }

    /// The same tool as an LLVM tool, accepted in major versions `min..=max`.
    pub const fn llvm(mut self, min: u32, max: u32) -> Tool {
        self.versions = VersionRule::Llvm { min, max };
        self
    }

    /// The install line for this tool.
    pub fn install_line(&self) -> String {
        format!("apt-get install -y {}", self.debian_package)
    }

    /// Finds the tool by the one rule (module doc); the result is cached per process.
    pub fn resolve(&self) -> Result<Resolved, ToolError> {
        let (min, max) = match self.versions {
            VersionRule::Any => (0, u32::MAX),
            VersionRule::Llvm { min, max } => (min, max),
        };
        self.resolve_in(min, max)
    }

    /// Like [`Tool::resolve`], but only major version `major`: how `opt` is matched to the
    /// `clang` whose IR it reads.
    pub fn resolve_major(&self, major: u32) -> Result<Resolved, ToolError> {
        self.resolve_in(major, major)
    }

    fn resolve_in(&self, min: u32, max: u32) -> Result<Resolved, ToolError> {
        let key = format!("{}\0{min}\0{max}", self.program);
        let cache = CACHE.get_or_init(Default::default);
        if let Some(hit) = cache.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return hit.ok_or_else(|| self.not_found(min, max));
        }
        let found = self.search(min, max);
        if let Ok(mut c) = cache.lock() {
            c.insert(key, found.clone());
        }
        found.ok_or_else(|| self.not_found(min, max))
    }

    fn search(&self, min: u32, max: u32) -> Option<Resolved> {
        candidates(self.program, self.versions, min, max)
            .into_iter()
            .map(|path| Resolved {
                version: version_of(&path),
                path,
            })
            .find(|r| self.accepts(r, min, max))
    }

    fn accepts(&self, r: &Resolved, min: u32, max: u32) -> bool {
        match self.versions {
            VersionRule::Any if (min, max) == (0, u32::MAX) => true,
            _ => r.major().is_some_and(|m| (min..=max).contains(&m)),
        }
    }

    /// The error for a tool not found: a present but unaccepted version is named as such.
    fn not_found(&self, min: u32, max: u32) -> ToolError {
        if let Some(path) = find_on_path(self.program) {
            if let Some(found) = version_of(&path) {
                let wanted = if min == max {
                    format!("version {min}")
                } else if max == u32::MAX {
                    format!("version {min} or newer")
                } else {
                    format!("a version from {min} to {max}")
                };
                return ToolError::WrongVersion(Box::new(VersionMismatch {
                    program: self.program,
                    path,
                    found,
                    wanted,
                    package: self.debian_package,
                    purpose: self.purpose,
                }));
            }
        }
        ToolError::Missing {
            program: self.program,
            package: self.debian_package,
            purpose: self.purpose,
        }
    }

    /// Full path of the program, or the install line.
    pub fn locate(&self) -> Result<PathBuf, ToolError> {
        self.resolve().map(|r| r.path)
    }

    pub fn is_available(&self) -> bool {
        self.resolve().is_ok()
    }

    /// Runs the tool to completion and returns its output; a non-zero exit is an error that
    /// carries the tool's stderr.
    pub fn run<I, S>(&self, args: I, cwd: Option<&Path>) -> Result<Output, ToolError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        run_path(self.program, &self.locate()?, args, cwd)
    }
}

/// Runs `path` (a resolved tool called `program` in messages) to completion; a non-zero exit
/// is an error that carries its stderr.
pub fn run_path<I, S>(
    program: &str,
    path: &Path,
    args: I,
    cwd: Option<&Path>,
) -> Result<Output, ToolError>
where
    I: IntoIterator<Item = S>,
    S: AsRef<OsStr>,
{
    let args: Vec<_> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
    let mut cmd = Command::new(path);
    cmd.args(&args);
    if let Some(dir) = cwd {
        cmd.current_dir(dir);
    }
    let out = cmd.output().map_err(|source| ToolError::Run {
        program: program.to_string(),
        source,
    })?;
    if !out.status.success() {
        let shown: Vec<String> = std::iter::once(program.to_string())
            .chain(args.iter().map(|a| a.to_string_lossy().into_owned()))
            .collect();
        return Err(ToolError::Failed {
            command: shown.join(" "),
            status: out.status.to_string(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        });
    }
    Ok(out)
}

type Cache = Mutex<HashMap<String, Option<Resolved>>>;
static CACHE: OnceLock<Cache> = OnceLock::new();

/// The paths to try, in order: the plain name, then (for LLVM tools) `NAME-N` for every N in
/// `min..=max` present on `PATH`, lowest first: the version metron was tested on wins.
fn candidates(program: &str, rule: VersionRule, min: u32, max: u32) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = find_on_path(program).into_iter().collect();
    if matches!(rule, VersionRule::Llvm { .. }) {
        let mut versioned: Vec<(u32, PathBuf)> = path_dirs()
            .iter()
            .flat_map(|dir| versioned_in(dir, program))
            .filter(|(n, _)| (min..=max).contains(n))
            .collect();
        versioned.sort_by_key(|(n, _)| *n);
        out.extend(versioned.into_iter().map(|(_, p)| p));
    }
    out
}

/// `dir/NAME-N` executables, with N.
fn versioned_in(dir: &Path, program: &str) -> Vec<(u32, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let prefix = format!("{program}-");
    entries
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let n: u32 = name.strip_prefix(&prefix)?.parse().ok()?;
            let p = e.path();
            is_executable(&p).then_some((n, p))
        })
        .collect()
}

/// The first dotted number (`14.0.6`, `3.19.0`, `7.3.0`) in the tool's `--version` output.
/// pypy3 prints the Python version first; that is the version of the language it runs.
fn version_of(path: &Path) -> Option<String> {
    let out = Command::new(path).arg("--version").output().ok()?;
    let text = format!(
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    first_dotted_number(&text)
}

fn first_dotted_number(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i].is_ascii_digit() && (i == 0 || !bytes[i - 1].is_ascii_alphanumeric()) {
            let start = i;
            while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'.') {
                i += 1;
            }
            let token = text[start..i].trim_end_matches('.');
            if token.contains('.') {
                return Some(token.to_string());
            }
        }
        i += 1;
    }
    None
}

fn path_dirs() -> Vec<PathBuf> {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default()
}

fn is_executable(p: &Path) -> bool {
    p.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Looks a program up the way a shell does: a name with a slash is a path, anything else is
/// searched for in `$PATH`.
pub fn find_on_path(program: &str) -> Option<PathBuf> {
    if program.contains('/') {
        let p = PathBuf::from(program);
        return is_executable(&p).then_some(p);
    }
    path_dirs()
        .into_iter()
        .map(|dir| dir.join(program))
        .find(|p| is_executable(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_tool_names_its_package() {
        let t = Tool::new("metron-no-such-tool", "metron-pkg", "testing");
        let msg = t.locate().unwrap_err().to_string();
        assert!(msg.contains("apt-get install -y metron-pkg"), "{msg}");
        assert!(msg.contains("metron-no-such-tool"), "{msg}");
    }

    #[test]
    fn finds_sh() {
        assert!(find_on_path("sh").is_some());
        assert!(find_on_path("/bin/sh").is_some());
        assert!(find_on_path("/nonexistent/sh").is_none());
    }

    #[test]
    fn versions_are_the_first_dotted_number() {
        let cases = [
            (
                "Debian clang version 14.0.6\nTarget: x86_64",
                Some("14.0.6"),
            ),
            (
                "LLVM (http://llvm.org/):\n  LLVM version 14.0.6\n",
                Some("14.0.6"),
            ),
            ("valgrind-3.19.0", Some("3.19.0")),
            (
                "GNU Octave, version 7.3.0\nCopyright (C) 1993-2022",
                Some("7.3.0"),
            ),
            (
                "Python 3.9.16 (7.3.11+dfsg-2, Feb 06 2023)\n[PyPy 7.3.11]",
                Some("3.9.16"),
            ),
            (
                "x86_64-linux-gnu-gcc-12 (Debian 12.2.0-14) 12.2.0",
                Some("12.2.0"),
            ),
            ("no version here 42", None),
        ];
        for (text, want) in cases {
            assert_eq!(first_dotted_number(text).as_deref(), want, "{text}");
        }
    }

    /// A fake `clang-N` that prints its version, in a directory of its own.
    fn fake_llvm(dir: &Path, name: &str, version: &str) {
        let p = dir.join(name);
        std::fs::write(
            &p,
            format!("#!/bin/sh\necho 'Debian clang version {version}'\n"),
        )
        .unwrap();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn versioned_names_are_tried_lowest_first_within_the_range() {
        let dir = tempfile::tempdir().unwrap();
        fake_llvm(dir.path(), "fakeclang-13", "13.0.1");
        fake_llvm(dir.path(), "fakeclang-15", "15.0.7");
        fake_llvm(dir.path(), "fakeclang-16", "16.0.6");
        let found = candidates("fakeclang", VersionRule::Llvm { min: 14, max: 99 }, 14, 99);
        assert!(found.is_empty(), "not on PATH yet: {found:?}");
        let names: Vec<_> = versioned_in(dir.path(), "fakeclang")
            .into_iter()
            .map(|(n, _)| n)
            .collect();
        assert_eq!(names.len(), 3);
        let t = Tool::new("fakeclang", "clang", "testing").llvm(14, 99);
        let r = Resolved {
            path: dir.path().join("fakeclang-15"),
            version: version_of(&dir.path().join("fakeclang-15")),
        };
        assert_eq!(r.major(), Some(15));
        assert!(t.accepts(&r, 14, 99));
        assert!(!t.accepts(&r, 16, 16));
    }
}
