//! For tests: how a test that needs an external tool asks for it.
//!
//! Under CI (`METRON_REQUIRE_TOOLS=1`, or `CI=true` as CI services set it) a missing tool is a
//! failure that names the install line: CI installs every tool, so a missing one means the
//! install step is broken, and a green run would test nothing. Elsewhere the test is skipped,
//! visibly: the line goes to the terminal past cargo's output capture, and to the file named
//! by `METRON_SKIP_LOG`, which `make test` prints as a summary at the end.

use std::io::Write;
use std::path::PathBuf;

use super::{by_name, Tool};

/// Whether a missing tool fails the test instead of skipping it.
pub fn tools_required() -> bool {
    let set = |name: &str, yes: &[&str]| {
        std::env::var(name).is_ok_and(|v| yes.contains(&v.trim().to_ascii_lowercase().as_str()))
    };
    set("METRON_REQUIRE_TOOLS", &["1", "true", "yes"]) || set("CI", &["1", "true"])
}

/// The tool's path; `None` after a visible skip when it is missing outside CI.
///
/// # Panics
/// Under CI, when the tool is missing, with the install line.
pub fn require(tool: &Tool) -> Option<PathBuf> {
    match tool.locate() {
        Ok(path) => Some(path),
        Err(e) if tools_required() => panic!(
            "{e}\n(this test needs `{}`; CI must install it: add `{}` to scripts/install-deps)",
            tool.program, tool.debian_package
        ),
        Err(e) => {
            skip(&e.to_string());
            None
        }
    }
}

/// [`require`] for a catalogue tool named by its plain name (`"gcc"`, `"clang++"`).
///
/// # Panics
/// When the name is not in the catalogue (a mistake in the test), or as [`require`] does.
pub fn require_named(program: &str) -> Option<PathBuf> {
    let tool = by_name(program)
        .unwrap_or_else(|| panic!("`{program}` is not in metron_measure::tool::catalogue"));
    require(tool)
}

/// Requires every tool; `None` (after the skip of the first missing one) if any is missing.
pub fn require_all(tools: &[&Tool]) -> Option<Vec<PathBuf>> {
    tools.iter().map(|t| require(t)).collect()
}

/// Records that the running test did not run its checks, and why: printed past cargo's
/// output capture and appended to `METRON_SKIP_LOG`. For what no install can fix (no AVX2, no
/// invariant TSC); a missing tool goes through [`require`].
pub fn skip(reason: &str) {
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let line = format!("SKIPPED {test}: {reason}\n");
    // Written to the stream itself, not through eprint!, which the test harness captures.
    let _ = std::io::stderr().write_all(line.as_bytes());
    if let Some(path) = std::env::var_os("METRON_SKIP_LOG") {
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
        {
            let _ = f.write_all(line.as_bytes());
        }
    }
}

/// A `Command` for the catalogue tool named `program` (`"clang"` runs `clang-14` where that is
/// what the rule finds); a name outside the catalogue or unresolved is run as given, so that
/// the spawn itself fails loudly.
pub fn command(program: &str) -> std::process::Command {
    let path = by_name(program)
        .and_then(|t| t.locate().ok())
        .unwrap_or_else(|| PathBuf::from(program));
    std::process::Command::new(path)
}
