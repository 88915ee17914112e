//! What the machine was doing and what it was, recorded with every experiment (000 App. A.1 and
//! Table A.1): a measurement without its machine cannot be compared with anything.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::tool;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Environment {
    pub hostname: String,
    pub os: Option<String>,
    pub kernel: String,
    pub arch: String,
    pub cpu_model: Option<String>,
    /// Logical CPUs the kernel reports online.
    pub cores: usize,
    /// CPUs this process may run on (affinity, cgroup quota aside).
    pub available_parallelism: usize,
    /// `scaling_governor` of cpu0, when the machine exposes cpufreq (000 App. A.1 asks for
    /// `performance`).
    pub governor: Option<String>,
    pub memory_bytes: Option<u64>,
    /// 1, 5 and 15 minute load averages when the experiment started.
    pub load_average: Option<[f64; 3]>,
    pub git: Option<GitState>,
    pub metron_version: String,
    pub captured_at_unix: u64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GitState {
    pub commit: String,
    /// Uncommitted changes to tracked files.
    pub dirty: bool,
}

impl Environment {
    /// Reads the environment; anything unreadable is left `None` rather than failing.
    pub fn capture(cwd: &Path) -> Environment {
        let uname = uname();
        Environment {
            hostname: uname.nodename,
            os: os_release(),
            kernel: uname.release,
            arch: uname.machine,
            cpu_model: cpu_model(),
            cores: online_cpus(),
            available_parallelism: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            governor: read_trimmed("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"),
            memory_bytes: mem_total(),
            load_average: load_average(),
            git: git_state(cwd),
            metron_version: env!("CARGO_PKG_VERSION").to_string(),
            captured_at_unix: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
        }
    }
}

/// This machine's host name, as experiments record it.
pub fn hostname() -> String {
    uname().nodename
}

fn read_trimmed(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

struct Uname {
    nodename: String,
    release: String,
    machine: String,
}

fn uname() -> Uname {
    // SAFETY: utsname is plain old data, uname fills it with NUL-terminated strings.
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    let ok = unsafe { libc::uname(&mut u) } == 0;
    let field = |f: &[libc::c_char]| -> String {
        if !ok {
            return "unknown".into();
        }
        let bytes: Vec<u8> = f
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    Uname {
        nodename: field(&u.nodename),
        release: field(&u.release),
        machine: field(&u.machine),
    }
}

fn os_release() -> Option<String> {
    let text = std::fs::read_to_string("/etc/os-release").ok()?;
    let line = text.lines().find(|l| l.starts_with("PRETTY_NAME="))?;
    Some(line["PRETTY_NAME=".len()..].trim_matches('"').to_string())
}

fn cpu_model() -> Option<String> {
    let text = std::fs::read_to_string("/proc/cpuinfo").ok()?;
    // x86 says "model name"; arm64 kernels often only have "CPU part", so fall back to it.
    ["model name", "Model", "cpu model", "CPU part"]
        .iter()
        .find_map(|key| {
            text.lines()
                .find(|l| l.split(':').next().map(str::trim) == Some(key))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
}

fn online_cpus() -> usize {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    if n > 0 {
        n as usize
    } else {
        1
    }
}

fn mem_total() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn load_average() -> Option<[f64; 3]> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let mut it = text.split_whitespace().map(|v| v.parse::<f64>().ok());
    Some([it.next()??, it.next()??, it.next()??])
}

fn git_state(cwd: &Path) -> Option<GitState> {
    let commit = tool::GIT.run(["rev-parse", "HEAD"], Some(cwd)).ok()?;
    let commit = String::from_utf8_lossy(&commit.stdout).trim().to_string();
    let status = tool::GIT
        .run(["status", "--porcelain", "--untracked-files=no"], Some(cwd))
        .ok()?;
    Some(GitState {
        commit,
        dirty: !status.stdout.is_empty(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captures_this_machine() {
        let env = Environment::capture(Path::new("."));
        assert!(env.cores >= 1);
        assert!(!env.kernel.is_empty() && env.kernel != "unknown");
        // The kernel's own view, read independently of the code above.
        let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap();
        assert_eq!(env.kernel, release.trim());
        assert!(env.load_average.is_some());
    }

    #[test]
    fn git_commit_inside_a_checkout() {
        if tool::testing::require(&tool::GIT).is_none() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let git = |args: &[&str]| {
            let ok = std::process::Command::new("git")
                .args(args)
                .current_dir(dir.path())
                .env("GIT_AUTHOR_NAME", "t")
                .env("GIT_AUTHOR_EMAIL", "t@t")
                .env("GIT_COMMITTER_NAME", "t")
                .env("GIT_COMMITTER_EMAIL", "t@t")
                .output()
                .unwrap();
            assert!(ok.status.success(), "{ok:?}");
            String::from_utf8(ok.stdout).unwrap()
        };
        assert_eq!(git_state(dir.path()), None, "not a checkout yet");
        git(&["init", "-q"]);
        std::fs::write(dir.path().join("f"), "1").unwrap();
        git(&["add", "f"]);
        git(&["commit", "-qm", "x"]);
        let head = git(&["rev-parse", "HEAD"]);
        let state = git_state(dir.path()).unwrap();
        assert_eq!(state.commit, head.trim());
        assert!(!state.dirty);
        std::fs::write(dir.path().join("f"), "2").unwrap();
        assert!(git_state(dir.path()).unwrap().dirty);
    }
}
