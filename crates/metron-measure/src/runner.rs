//! The one process runner of metron: runs a command once and reports what it cost.
//!
//! Commands are executed directly, without a shell, so that no shell start-up is measured;
//! write `sh -c '...'` to get shell features. Wall time spans spawn to reap; user and system
//! time and peak RSS come from the kernel's rusage of the reaped child (`wait4`).

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::counters::{CounterSet, CounterValue};
use crate::{MeasureError, Result};

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    Code(i32),
    Signal(i32),
}

impl Exit {
    pub fn success(self) -> bool {
        self == Exit::Code(0)
    }

    /// The shell's convention: the exit code, or 128 + the signal number.
    pub fn status(self) -> i32 {
        match self {
            Exit::Code(c) => c,
            Exit::Signal(s) => 128 + s,
        }
    }
}

/// Everything measured in one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub exit: Exit,
    pub wall: Duration,
    pub user: Duration,
    pub sys: Duration,
    pub max_rss_bytes: u64,
    pub counters: Vec<CounterValue>,
}

/// Where the measured program's output goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OutputPolicy {
    /// Discarded, as hyperfine does: printing costs time that is not the program's.
    #[default]
    Discard,
    /// Shown on metron's own stdout/stderr.
    Inherit,
}

/// Runs `argv` once. Fails only when the program cannot be started; a program that runs and
/// fails is an `Outcome` with a non-zero exit.
pub fn run_once(
    argv: &[String],
    output: OutputPolicy,
    counters: &mut CounterSet,
) -> Result<Outcome> {
    let (program, args) = argv.split_first().ok_or(MeasureError::EmptyCommand)?;
    let mut cmd = Command::new(program);
    cmd.args(args).stdin(Stdio::null());
    if output == OutputPolicy::Discard {
        cmd.stdout(Stdio::null()).stderr(Stdio::null());
    }
    counters.mark();
    let start = Instant::now();
    let child = cmd.spawn().map_err(|e| MeasureError::Spawn {
        program: program.clone(),
        reason: spawn_reason(&e),
    })?;
    let (status, usage) = reap(child.id() as libc::pid_t).map_err(|e| MeasureError::Spawn {
        program: program.clone(),
        reason: format!("waiting for it failed: {e}"),
    })?;
    let wall = start.elapsed();
    Ok(Outcome {
        exit: decode_status(status),
        wall,
        user: timeval(usage.ru_utime),
        sys: timeval(usage.ru_stime),
        // Linux reports ru_maxrss in KiB.
        max_rss_bytes: (usage.ru_maxrss.max(0) as u64) * 1024,
        counters: counters.since_mark(),
    })
}

fn spawn_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => {
            "no such program (not on PATH, or the path is wrong)".into()
        }
        std::io::ErrorKind::PermissionDenied => "permission denied (is it executable?)".into(),
        _ => e.to_string(),
    }
}

/// Waits for `pid` and returns its raw wait status and resource usage. std's `Child::wait`
/// discards the rusage, which is why the child is reaped here instead.
fn reap(pid: libc::pid_t) -> std::io::Result<(libc::c_int, libc::rusage)> {
    let mut status: libc::c_int = 0;
    // SAFETY: rusage is plain old data; all-zero is a valid value.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: valid pointers to locals; pid is our own unreaped child.
        let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
        if r == pid {
            return Ok((status, usage));
        }
        let err = std::io::Error::last_os_error();
        if err.kind() != std::io::ErrorKind::Interrupted {
            return Err(err);
        }
    }
}

fn decode_status(status: libc::c_int) -> Exit {
    if libc::WIFSIGNALED(status) {
        Exit::Signal(libc::WTERMSIG(status))
    } else {
        Exit::Code(libc::WEXITSTATUS(status))
    }
}

fn timeval(tv: libc::timeval) -> Duration {
    Duration::from_secs(tv.tv_sec.max(0) as u64) + Duration::from_micros(tv.tv_usec.max(0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(s: &[&str]) -> Vec<String> {
        s.iter().map(|x| x.to_string()).collect()
    }

    #[test]
    fn measures_a_sleep() {
        let mut c = CounterSet::none();
        let o = run_once(&argv(&["sleep", "0.02"]), OutputPolicy::Discard, &mut c).unwrap();
        assert!(o.exit.success());
        assert!(o.wall >= Duration::from_millis(20), "{:?}", o.wall);
        assert!(o.max_rss_bytes > 0);
    }

    #[test]
    fn cpu_time_of_a_busy_child_is_user_time() {
        let mut c = CounterSet::none();
        let busy = argv(&[
            "sh",
            "-c",
            "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done",
        ]);
        let o = run_once(&busy, OutputPolicy::Discard, &mut c).unwrap();
        assert!(o.user + o.sys > Duration::ZERO);
        assert!(o.user + o.sys <= o.wall + Duration::from_millis(20));
    }

    #[test]
    fn failing_and_killed_programs_are_outcomes() {
        let mut c = CounterSet::none();
        let o = run_once(
            &argv(&["sh", "-c", "exit 3"]),
            OutputPolicy::Discard,
            &mut c,
        )
        .unwrap();
        assert_eq!(o.exit, Exit::Code(3));
        let o = run_once(
            &argv(&["sh", "-c", "kill -9 $$"]),
            OutputPolicy::Discard,
            &mut c,
        )
        .unwrap();
        assert_eq!(o.exit, Exit::Signal(9));
        assert_eq!(o.exit.status(), 137);
    }

    #[test]
    fn a_program_that_cannot_start_is_an_error_naming_it() {
        let mut c = CounterSet::none();
        let e = run_once(
            &argv(&["metron-no-such-program"]),
            OutputPolicy::Discard,
            &mut c,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("metron-no-such-program"), "{e}");
    }

    #[test]
    fn software_counters_count_the_child_only() {
        let mut c = CounterSet::open(crate::counters::DEFAULT);
        if !c.availability().available.iter().any(|n| n == "task-clock") {
            eprintln!(
                "skipped: perf_event_open is not permitted here: {:?}",
                c.availability()
            );
            return;
        }
        let busy = argv(&[
            "sh",
            "-c",
            "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done",
        ]);
        let o = run_once(&busy, OutputPolicy::Discard, &mut c).unwrap();
        let task = o.counters.iter().find(|v| v.name == "task-clock").unwrap();
        let cpu = (o.user + o.sys).as_secs_f64();
        // task-clock and rusage measure the same CPU time by different kernel paths.
        assert!(
            task.value > 0.5 * cpu && task.value < 2.0 * cpu + 0.005,
            "{task:?} vs {cpu}"
        );
        // A second, trivial run must not carry over the first one's counts.
        let o2 = run_once(&argv(&["true"]), OutputPolicy::Discard, &mut c).unwrap();
        let task2 = o2.counters.iter().find(|v| v.name == "task-clock").unwrap();
        assert!(task2.value < task.value / 5.0, "{task2:?} after {task:?}");
    }
}
