//! One small wrapper per external tool (ARCHITECTURE.md): find it on PATH, and when it is not
//! there say exactly how to install it.

use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// An external program metron calls, with the Debian package that provides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tool {
    pub program: &'static str,
    pub debian_package: &'static str,
    /// What metron needs it for, for the error message.
    pub purpose: &'static str,
}

pub const GIT: Tool = Tool {
    program: "git",
    debian_package: "git",
    purpose: "recording the project's commit",
};
pub const CC: Tool = Tool {
    program: "cc",
    debian_package: "build-essential",
    purpose: "building the bundled C examples",
};

#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("`{program}` is not installed (needed for {purpose}); install it with: apt-get install -y {package}")]
    Missing {
        program: &'static str,
        package: &'static str,
        purpose: &'static str,
    },
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

impl Tool {
    /// Full path of the program, or the install line.
    pub fn locate(&self) -> Result<PathBuf, ToolError> {
        find_on_path(self.program).ok_or(ToolError::Missing {
            program: self.program,
            package: self.debian_package,
            purpose: self.purpose,
        })
    }

    pub fn is_available(&self) -> bool {
        self.locate().is_ok()
    }

    /// Runs the tool to completion and returns its output; a non-zero exit is an error that
    /// carries the tool's stderr.
    pub fn run<I, S>(&self, args: I, cwd: Option<&Path>) -> Result<Output, ToolError>
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        let path = self.locate()?;
        let args: Vec<_> = args.into_iter().map(|a| a.as_ref().to_owned()).collect();
        let mut cmd = Command::new(&path);
        cmd.args(&args);
        if let Some(dir) = cwd {
            cmd.current_dir(dir);
        }
        let out = cmd.output().map_err(|source| ToolError::Run {
            program: self.program.to_string(),
            source,
        })?;
        if !out.status.success() {
            let shown: Vec<String> = std::iter::once(self.program.to_string())
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
}

/// Looks a program up the way a shell does: a name with a slash is a path, anything else is
/// searched for in `$PATH`.
pub fn find_on_path(program: &str) -> Option<PathBuf> {
    let is_exe = |p: &Path| {
        p.metadata()
            .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
            .unwrap_or(false)
    };
    if program.contains('/') {
        let p = PathBuf::from(program);
        return is_exe(&p).then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| is_exe(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_tool_names_its_package() {
        let t = Tool {
            program: "metron-no-such-tool",
            debian_package: "metron-pkg",
            purpose: "testing",
        };
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
}
