//! SIGINT and SIGTERM while a program is measured: passed on to the measured child, which the
//! runner then reaps as usual; the experiment stops after that run and does not record it.
//!
//! Without this, Ctrl-C or a batch system's SIGTERM would kill metron and leave the child
//! running as an orphan. The handler only does async-signal-safe work (atomics and `kill`).

use std::sync::atomic::{AtomicI32, Ordering};

/// The child being measured (0: none). Set by the runner between fork and release.
static CHILD: AtomicI32 = AtomicI32::new(0);
/// The first SIGINT/SIGTERM received since [`forward_to_children`] (0: none).
static RECEIVED: AtomicI32 = AtomicI32::new(0);
/// Bit `sig` is set when this module handles `sig` (and a forked child must reset it).
static HANDLED: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(sig: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    let _ = RECEIVED.compare_exchange(0, sig, Ordering::SeqCst, Ordering::SeqCst);
    let pid = CHILD.load(Ordering::SeqCst);
    // Ctrl-C at a terminal (si_code SI_KERNEL) already reached the whole foreground process
    // group, the child included: a second copy could cut short the child's own clean-up.
    // SAFETY: the kernel passes a valid siginfo to an SA_SIGINFO handler.
    let from_terminal = !info.is_null() && unsafe { (*info).si_code } == libc::SI_KERNEL;
    // pid 0 would signal our whole process group: never.
    if pid > 0 && !from_terminal {
        // SAFETY: kill is async-signal-safe.
        unsafe { libc::kill(pid, sig) };
    }
}

/// While it lives, SIGINT and SIGTERM are forwarded to the measured child instead of killing
/// this process, and [`received`] tells the caller to stop; dropping it restores the previous
/// handlers (a later Ctrl-C ends the program again).
#[must_use = "signals are forwarded only while the guard lives"]
pub struct Forwarding {
    previous: Vec<(libc::c_int, libc::sigaction)>,
}

impl Drop for Forwarding {
    fn drop(&mut self) {
        for (sig, old) in &self.previous {
            // SAFETY: restoring a disposition read by sigaction itself.
            unsafe { libc::sigaction(*sig, old, std::ptr::null_mut()) };
            HANDLED.fetch_and(!(1 << sig), Ordering::SeqCst);
        }
    }
}

/// Starts forwarding SIGINT and SIGTERM to the measured child. For programs that measure (the
/// CLI), not for libraries linked into others.
pub fn forward_to_children() -> Forwarding {
    RECEIVED.store(0, Ordering::SeqCst);
    let mut previous = Vec::new();
    for sig in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: zeroed sigactions with a plain handler and an empty mask are valid; no
        // SA_RESTART, so blocking calls see EINTR and the runner's loops retry them.
        unsafe {
            let mut old: libc::sigaction = std::mem::zeroed();
            libc::sigaction(sig, std::ptr::null(), &mut old);
            // A signal the shell told us to ignore (`cmd &`, nohup) stays ignored, for the
            // child too.
            if old.sa_sigaction == libc::SIG_IGN {
                continue;
            }
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = on_signal
                as extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void)
                as usize;
            sa.sa_flags = libc::SA_SIGINFO;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
            previous.push((sig, old));
        }
        HANDLED.fetch_or(1 << sig, Ordering::SeqCst);
    }
    Forwarding { previous }
}

/// In a forked child before its exec: the default action for the signals handled here, so
/// that a signal forwarded before the exec ends the child instead of running our handler.
/// Async-signal-safe.
pub(crate) fn reset_in_child() {
    let handled = HANDLED.load(Ordering::SeqCst);
    for sig in [libc::SIGINT, libc::SIGTERM] {
        if handled & (1 << sig) != 0 {
            // SAFETY: signal() with SIG_DFL is async-signal-safe.
            unsafe { libc::signal(sig, libc::SIG_DFL) };
        }
    }
}

/// The signal that asked metron to stop, if any.
pub fn received() -> Option<i32> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// Registers `pid` as the child to forward to. If a signal came before this (between the
/// fork and now), it is delivered to the child at once.
pub(crate) fn set_child(pid: libc::pid_t) {
    CHILD.store(pid, Ordering::SeqCst);
    if let Some(sig) = received() {
        // SAFETY: pid is our own unreaped child.
        unsafe { libc::kill(pid, sig) };
    }
}

/// The child has been reaped: its pid may be reused and must not be signalled any more.
pub(crate) fn clear_child() {
    CHILD.store(0, Ordering::SeqCst);
}
