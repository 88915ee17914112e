//! Process-wide state: the region-name registry, each thread's recorder, and the list of
//! recorders of threads that have ended. The enter/exit path touches only the calling thread's
//! recorder, so it takes no lock (002 §2.2 keeps one global tracker; that would need one).

use std::cell::{Cell, RefCell, UnsafeCell};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};

use crate::clock::{self, ClockSource};
use crate::recorder::{Recorder, RegionIndex};

/// A registered region. Cheap to copy; the fast path of the C ABI passes it as a `uint32_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RegionId(pub RegionIndex);

#[derive(Default)]
struct Registry {
    names: Vec<String>,
    index: HashMap<String, RegionIndex>,
}

fn registry() -> MutexGuard<'static, Registry> {
    static REG: OnceLock<Mutex<Registry>> = OnceLock::new();
    let m = REG.get_or_init(|| Mutex::new(Registry::default()));
    // A panic while holding this lock leaves the registry consistent (push then insert).
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// Registers a region name (idempotent) and returns its id. Takes a lock: call it once per
/// region, as `region!` and the C `metron_probe_register` do, not per entry.
pub fn register(name: &str) -> RegionId {
    crate::auto_init();
    let mut reg = registry();
    if let Some(&i) = reg.index.get(name) {
        return RegionId(i);
    }
    let i = reg.names.len() as RegionIndex;
    reg.names.push(name.to_string());
    REGION_COUNT.store(i + 1, Ordering::Release);
    reg.index.insert(name.to_string(), i);
    RegionId(i)
}

static REGION_COUNT: AtomicU32 = AtomicU32::new(0);

/// Is `id` one that [`register`] handed out? (The C fast path receives bare integers.)
#[inline]
pub fn is_registered(id: RegionIndex) -> bool {
    id < REGION_COUNT.load(Ordering::Relaxed)
}

/// Where the registered name of `id` lives, for caches that compare against it without the
/// lock: a registered name's heap buffer is never freed or moved (names are only appended to
/// the registry, and moving a `String` does not move its buffer).
pub(crate) fn name_bytes(id: RegionIndex) -> Option<(*const u8, usize)> {
    registry()
        .names
        .get(id as usize)
        .map(|n| (n.as_ptr(), n.len()))
}

/// Names of all registered regions, indexed by id.
pub fn region_names() -> Vec<String> {
    registry().names.clone()
}

/// The id cache behind `region!`: registration happens on first use only, afterwards an entry
/// costs one relaxed atomic load.
pub struct LazyRegion {
    name: &'static str,
    /// id + 1; 0 means not registered yet.
    id: AtomicU32,
}

impl LazyRegion {
    pub const fn new(name: &'static str) -> LazyRegion {
        LazyRegion {
            name,
            id: AtomicU32::new(0),
        }
    }

    #[inline(always)]
    pub fn id(&self) -> RegionId {
        match self.id.load(Ordering::Relaxed) {
            0 => self.register(),
            v => RegionId(v - 1),
        }
    }

    #[cold]
    fn register(&self) -> RegionId {
        let id = register(self.name);
        self.id.store(id.0 + 1, Ordering::Relaxed);
        id
    }
}

// ----- switches --------------------------------------------------------------------------

static CALL_TREE: AtomicBool = AtomicBool::new(true);
static TIMELINE_CAPACITY: AtomicUsize = AtomicUsize::new(0);

/// Turns the call-context tree on or off at run time (on by default). Flat timers keep running.
pub fn set_call_tree(on: bool) {
    CALL_TREE.store(on, Ordering::Relaxed);
}

pub fn call_tree_enabled() -> bool {
    CALL_TREE.load(Ordering::Relaxed)
}

/// Keeps the first `events_per_thread` enter/exit events of every thread that starts recording
/// afterwards, for a Chrome trace-event timeline. 0 turns the timeline off.
pub fn set_timeline(events_per_thread: usize) {
    TIMELINE_CAPACITY.store(events_per_thread, Ordering::Relaxed);
}

pub(crate) fn timeline_capacity() -> usize {
    TIMELINE_CAPACITY.load(Ordering::Relaxed)
}

// ----- per-thread recorders --------------------------------------------------------------

/// One thread's recorder, taken out of the thread for writing.
#[derive(Debug, Clone)]
pub struct ThreadSnapshot {
    /// Order in which threads first entered a region; the main thread is usually 0.
    pub index: u32,
    pub tid: u64,
    pub name: Option<String>,
    pub recorder: Recorder,
}

static THREAD_COUNTER: AtomicU32 = AtomicU32::new(0);

fn finished() -> MutexGuard<'static, Vec<ThreadSnapshot>> {
    static FINISHED: Mutex<Vec<ThreadSnapshot>> = Mutex::new(Vec::new());
    FINISHED.lock().unwrap_or_else(|p| p.into_inner())
}

struct ThreadState {
    recorder: UnsafeCell<Recorder>,
    registered: Cell<bool>,
    index: Cell<u32>,
    tid: Cell<u64>,
    /// Taken at the first entry: `thread::current()` is not usable while TLS is torn down.
    name: RefCell<Option<String>>,
}

impl ThreadState {
    const fn new() -> ThreadState {
        ThreadState {
            recorder: UnsafeCell::new(Recorder::new()),
            registered: Cell::new(false),
            index: Cell::new(0),
            tid: Cell::new(0),
            name: RefCell::new(None),
        }
    }

    #[cold]
    fn register_thread(&self) {
        self.registered.set(true);
        self.index
            .set(THREAD_COUNTER.fetch_add(1, Ordering::Relaxed));
        self.tid.set(current_tid());
        *self.name.borrow_mut() = std::thread::current().name().map(str::to_string);
        let cap = timeline_capacity();
        if cap > 0 {
            // SAFETY: only this thread touches its recorder, and no reference to it is live.
            unsafe { (*self.recorder.get()).enable_timeline(cap) };
        }
    }

    /// SAFETY contract for callers: the closure must not re-enter the probe on this thread.
    #[inline(always)]
    fn with_recorder<R>(&self, f: impl FnOnce(&mut Recorder) -> R) -> R {
        if !self.registered.get() {
            self.register_thread();
        }
        // SAFETY: the recorder is thread-local, and the probe's own code (the only code that
        // runs inside `f`) never re-enters `with_recorder`, so this is the only reference.
        f(unsafe { &mut *self.recorder.get() })
    }

    fn snapshot(&self, now: u64) -> Option<ThreadSnapshot> {
        if !self.registered.get() {
            return None;
        }
        // SAFETY: as in `with_recorder`.
        let rec = unsafe { &*self.recorder.get() };
        Some(ThreadSnapshot {
            index: self.index.get(),
            tid: self.tid.get(),
            name: self.name.borrow().clone(),
            recorder: rec.closed_at(now),
        })
    }
}

impl Drop for ThreadState {
    /// A thread that ends hands its measurements to the process list, closing (and flagging)
    /// whatever it left open.
    fn drop(&mut self) {
        if let Some(s) = self.snapshot(clock::now()) {
            if !s.recorder.is_empty() {
                finished().push(s);
            }
        }
    }
}

thread_local! {
    static LOCAL: ThreadState = const { ThreadState::new() };
}

fn current_tid() -> u64 {
    // SAFETY: gettid has no preconditions.
    unsafe { libc::syscall(libc::SYS_gettid) as u64 }
}

/// Enters a region on the process clock.
#[inline]
pub fn enter(id: RegionId) {
    let now = clock::now();
    let tree = CALL_TREE.load(Ordering::Relaxed);
    let _ = LOCAL.try_with(|s| s.with_recorder(|r| r.enter(id.0, now, tree)));
}

/// Exits a region on the process clock.
#[inline]
pub fn exit(id: RegionId) {
    let now = clock::now();
    let _ = LOCAL.try_with(|s| s.with_recorder(|r| r.exit(id.0, now)));
}

/// Enter on a statically chosen clock: the same path as [`enter`] without the clock dispatch.
/// Meant for calibration and benchmarks; do not mix clocks within one profile.
#[inline]
pub fn enter_with<C: ClockSource>(id: RegionId) {
    let now = C::now();
    let tree = CALL_TREE.load(Ordering::Relaxed);
    let _ = LOCAL.try_with(|s| s.with_recorder(|r| r.enter(id.0, now, tree)));
}

#[inline]
pub fn exit_with<C: ClockSource>(id: RegionId) {
    let now = C::now();
    let _ = LOCAL.try_with(|s| s.with_recorder(|r| r.exit(id.0, now)));
}

/// Runs `f` on the calling thread's recorder (read-only use: Stopwatch queries).
pub(crate) fn with_local<R>(f: impl FnOnce(&mut Recorder) -> R) -> Option<R> {
    LOCAL.try_with(|s| s.with_recorder(f)).ok()
}

/// The calling thread's measurements plus those of every thread that has ended.
/// Threads still running elsewhere are not included: join them before flushing.
pub fn collect_threads() -> Vec<ThreadSnapshot> {
    let now = clock::now();
    let mut all: Vec<ThreadSnapshot> = finished().clone();
    if let Ok(Some(s)) = LOCAL.try_with(|s| s.snapshot(now)) {
        if !s.recorder.is_empty() {
            all.push(s);
        }
    }
    all.sort_by_key(|s| s.index);
    all
}

/// Forgets everything recorded so far by ended threads and by the calling thread.
pub fn clear() {
    finished().clear();
    let _ = LOCAL.try_with(|s| {
        // SAFETY: as in `with_recorder`.
        let rec = unsafe { &mut *s.recorder.get() };
        let cap = rec.timeline.as_ref().map(|t| t.capacity);
        *rec = Recorder::new();
        if let Some(c) = cap {
            rec.enable_timeline(c);
        }
    });
}
