//! The one process runner of metron: runs a command once and reports what it cost.
//!
//! Commands are executed directly, without a shell, so that no shell start-up is measured;
//! write `sh -c '...'` to get shell features. User and system time and peak RSS come from the
//! kernel's rusage of the reaped child (`wait4`), which std's `Child::wait` throws away; the
//! fork is done here rather than by `std::process::Command` because counters must be attached
//! between fork and exec (see `counters`).

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
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
///
/// Wall time spans the child's release (just before its `exec`) to its reaping; the fork and
/// the attaching of counters happen before the clock starts.
pub fn run_once(argv: &[String], output: OutputPolicy, counters: &CounterSet) -> Result<Outcome> {
    run_once_with_env(argv, &[], output, counters)
}

/// [`run_once`] with extra environment variables (they override inherited ones).
pub fn run_once_with_env(
    argv: &[String],
    env: &[(String, String)],
    output: OutputPolicy,
    counters: &CounterSet,
) -> Result<Outcome> {
    run_once_attaching(argv, env, output, counters, |_| ()).map(|(o, ())| o)
}

/// [`run_once_with_env`] that also calls `attach` with the pid of the child while it is
/// stopped before its `exec`, for perf_event files the caller opens itself (metron-pep's
/// sampled groups, with `enable_on_exec`); what `attach` returns comes back with the outcome.
pub fn run_once_attaching<T>(
    argv: &[String],
    env: &[(String, String)],
    output: OutputPolicy,
    counters: &CounterSet,
    attach: impl FnOnce(libc::pid_t) -> T,
) -> Result<(Outcome, T)> {
    let program = argv.first().ok_or(MeasureError::EmptyCommand)?;
    let spawn_error = |reason: String| MeasureError::Spawn {
        program: program.clone(),
        reason,
    };
    let path = resolve_program(program)?;
    let exec = ExecImage::new(&path, argv, env).map_err(spawn_error)?;
    let child = fork_stopped(&exec, output).map_err(|e| spawn_error(e.to_string()))?;
    crate::signals::set_child(child.pid);
    let attached = counters.attach(child.pid);
    let extra = attach(child.pid);
    let start = Instant::now();
    let pid = child.pid;
    let exec_errno = child.release();
    let reaped = reap(pid);
    crate::signals::clear_child();
    let (status, usage) = reaped.map_err(|e| spawn_error(format!("waiting for it failed: {e}")))?;
    let wall = start.elapsed();
    if let Some(errno) = exec_errno {
        return Err(spawn_error(spawn_reason(
            &std::io::Error::from_raw_os_error(errno),
        )));
    }
    let outcome = Outcome {
        exit: decode_status(status),
        wall,
        user: timeval(usage.ru_utime),
        sys: timeval(usage.ru_stime),
        // Linux reports ru_maxrss in KiB.
        max_rss_bytes: (usage.ru_maxrss.max(0) as u64) * 1024,
        counters: attached.read(),
    };
    Ok((outcome, extra))
}

/// The file `program` names (a path, or a name looked up on PATH), or an error that says
/// why it cannot be run: missing, a directory, not executable.
pub fn resolve_program(program: &str) -> Result<std::path::PathBuf> {
    if let Some(path) = crate::tool::find_on_path(program) {
        return Ok(path);
    }
    let err = |reason: String| MeasureError::Spawn {
        program: program.to_string(),
        reason,
    };
    let candidate = std::path::Path::new(program);
    if program.contains('/') {
        return Err(err(match std::fs::metadata(candidate) {
            Ok(m) if m.is_dir() => "it is a directory, not a program".into(),
            Ok(_) => format!("the file is not executable (chmod +x {program})"),
            Err(_) => "no such file".into(),
        }));
    }
    let mut reason = "no such program on PATH".to_string();
    if candidate.is_file() {
        reason.push_str(&format!(
            "; a file `{program}` is in the current directory: write ./{program} to run it"
        ));
    }
    Err(err(reason))
}

/// Everything `execve` needs, built before the fork: after it, the child may only make
/// async-signal-safe calls (no allocation).
struct ExecImage {
    path: CString,
    _args: Vec<CString>,
    argv: Vec<*const libc::c_char>,
    _env: Vec<CString>,
    envp: Vec<*const libc::c_char>,
}

impl ExecImage {
    fn new(
        path: &std::path::Path,
        argv: &[String],
        extra_env: &[(String, String)],
    ) -> Result<ExecImage, String> {
        let cstr =
            |b: &[u8]| CString::new(b).map_err(|_| "an argument contains a NUL byte".to_string());
        let path = cstr(path.as_os_str().as_bytes())?;
        let args = argv
            .iter()
            .map(|a| cstr(a.as_bytes()))
            .collect::<Result<Vec<_>, _>>()?;
        let overridden = |k: &std::ffi::OsStr| extra_env.iter().any(|(e, _)| k == e.as_str());
        let env = std::env::vars_os()
            .filter(|(k, _)| !overridden(k))
            .chain(extra_env.iter().map(|(k, v)| (k.into(), v.into())))
            .map(|(k, v)| {
                let mut kv = k.as_bytes().to_vec();
                kv.push(b'=');
                kv.extend_from_slice(v.as_bytes());
                cstr(&kv)
            })
            .collect::<Result<Vec<_>, _>>()?;
        let ptrs = |v: &[CString]| -> Vec<*const libc::c_char> {
            v.iter()
                .map(|c| c.as_ptr())
                .chain(std::iter::once(std::ptr::null()))
                .collect()
        };
        Ok(ExecImage {
            path,
            argv: ptrs(&args),
            envp: ptrs(&env),
            _args: args,
            _env: env,
        })
    }
}

/// A forked child blocked before its `exec`, waiting for [`StoppedChild::release`].
struct StoppedChild {
    pid: libc::pid_t,
    go: OwnedFd,
    exec_error: OwnedFd,
}

impl StoppedChild {
    /// Lets the child exec; returns its errno if the exec failed.
    fn release(self) -> Option<i32> {
        let byte = [1u8];
        // SAFETY: writing one byte from a live buffer to our own pipe.
        unsafe { libc::write(self.go.as_raw_fd(), byte.as_ptr().cast(), 1) };
        drop(self.go);
        // The pipe is close-on-exec: EOF means the exec succeeded, four bytes are its errno.
        let mut buf = [0u8; 4];
        let mut got = 0;
        while got < 4 {
            // SAFETY: reading into the unfilled tail of a live buffer.
            let n = unsafe {
                libc::read(
                    self.exec_error.as_raw_fd(),
                    buf[got..].as_mut_ptr().cast(),
                    4 - got,
                )
            };
            if n > 0 {
                got += n as usize;
            } else if n == 0
                || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
            {
                break;
            }
        }
        (got == 4).then(|| i32::from_ne_bytes(buf))
    }
}

fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: fds is a valid two-element array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: pipe2 returned two fresh descriptors that nothing else owns.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

fn dev_null() -> std::io::Result<OwnedFd> {
    let f = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")?;
    Ok(OwnedFd::from(f))
}

fn fork_stopped(exec: &ExecImage, output: OutputPolicy) -> std::io::Result<StoppedChild> {
    let (go_r, go_w) = pipe()?;
    let (err_r, err_w) = pipe()?;
    let null = dev_null()?;
    // SAFETY: getpid has no preconditions.
    let parent = unsafe { libc::getpid() };
    // SAFETY: the child only calls async-signal-safe functions (read, dup2, execve, write,
    // _exit) on data prepared before the fork.
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if pid == 0 {
        unsafe {
            crate::signals::reset_in_child();
            // If metron dies (even by SIGKILL), the measured program must not live on as an
            // orphan; checked once more after the prctl in case metron died before it.
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            if libc::getppid() != parent {
                libc::_exit(127);
            }
            let mut b = 0u8;
            while libc::read(go_r.as_raw_fd(), (&mut b as *mut u8).cast(), 1) < 0 {}
            libc::dup2(null.as_raw_fd(), 0);
            if output == OutputPolicy::Discard {
                libc::dup2(null.as_raw_fd(), 1);
                libc::dup2(null.as_raw_fd(), 2);
            }
            libc::execve(exec.path.as_ptr(), exec.argv.as_ptr(), exec.envp.as_ptr());
            let errno = *libc::__errno_location();
            let bytes = errno.to_ne_bytes();
            libc::write(err_w.as_raw_fd(), bytes.as_ptr().cast(), 4);
            libc::_exit(127);
        }
    }
    drop((go_r, err_w, null));
    Ok(StoppedChild {
        pid,
        go: go_w,
        exec_error: err_r,
    })
}

fn spawn_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => {
            "no such program (not on PATH, or the path is wrong)".into()
        }
        std::io::ErrorKind::PermissionDenied => "permission denied (is it executable?)".into(),
        _ if e.raw_os_error() == Some(libc::ENOEXEC) => {
            "not a program this machine can run (a script without a #! line, or a binary for another system)".into()
        }
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
        let c = CounterSet::none();
        let o = run_once(&argv(&["sleep", "0.02"]), OutputPolicy::Discard, &c).unwrap();
        assert!(o.exit.success());
        assert!(o.wall >= Duration::from_millis(20), "{:?}", o.wall);
        assert!(o.max_rss_bytes > 0);
    }

    #[test]
    fn cpu_time_of_a_busy_child_is_user_time() {
        let c = CounterSet::none();
        let busy = argv(&[
            "sh",
            "-c",
            "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done",
        ]);
        let o = run_once(&busy, OutputPolicy::Discard, &c).unwrap();
        assert!(o.user + o.sys > Duration::ZERO);
        assert!(o.user + o.sys <= o.wall + Duration::from_millis(20));
    }

    #[test]
    fn failing_and_killed_programs_are_outcomes() {
        let c = CounterSet::none();
        let o = run_once(&argv(&["sh", "-c", "exit 3"]), OutputPolicy::Discard, &c).unwrap();
        assert_eq!(o.exit, Exit::Code(3));
        let o = run_once(
            &argv(&["sh", "-c", "kill -9 $$"]),
            OutputPolicy::Discard,
            &c,
        )
        .unwrap();
        assert_eq!(o.exit, Exit::Signal(9));
        assert_eq!(o.exit.status(), 137);
    }

    #[test]
    fn extra_environment_reaches_the_child() {
        let c = CounterSet::none();
        let env = [("METRON_TEST_VAR".to_string(), "42".to_string())];
        let check = argv(&["sh", "-c", "[ \"$METRON_TEST_VAR\" = 42 ]"]);
        let o = run_once_with_env(&check, &env, OutputPolicy::Discard, &c).unwrap();
        assert!(o.exit.success());
        let o = run_once(&check, OutputPolicy::Discard, &c).unwrap();
        assert!(!o.exit.success());
    }

    #[test]
    fn a_program_that_cannot_start_is_an_error_naming_it() {
        let c = CounterSet::none();
        let e = run_once(
            &argv(&["metron-no-such-program"]),
            OutputPolicy::Discard,
            &c,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("metron-no-such-program"), "{e}");
    }

    #[test]
    fn software_counters_count_the_child_only() {
        let c = CounterSet::open(crate::counters::DEFAULT);
        if !c.availability().available.iter().any(|n| n == "task-clock") {
            crate::tool::testing::skip(&format!(
                "perf_event_open is not permitted here: {:?}",
                c.availability()
            ));
            return;
        }
        let busy = argv(&[
            "sh",
            "-c",
            "i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done",
        ]);
        let o = run_once(&busy, OutputPolicy::Discard, &c).unwrap();
        let task = o.counters.iter().find(|v| v.name == "task-clock").unwrap();
        let cpu = (o.user + o.sys).as_secs_f64();
        // task-clock and rusage measure the same CPU time by different kernel paths.
        assert!(
            task.value > 0.5 * cpu && task.value < 2.0 * cpu + 0.005,
            "{task:?} vs {cpu}"
        );
        // Every run is counted, not only the first ones (the failure of inherited counters).
        for _ in 0..5 {
            let o = run_once(&argv(&["true"]), OutputPolicy::Discard, &c).unwrap();
            let task2 = o.counters.iter().find(|v| v.name == "task-clock").unwrap();
            assert!(
                task2.value > 0.0 && task2.value < task.value,
                "{task2:?} after {task:?}"
            );
        }
    }
}
