//! The C ABI declared in `include/metron_probe.h`. Every function is safe to call from any
//! thread; none unwinds into C (panics are caught and reported).

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{c_char, c_int, CStr};

use crate::global::{self, RegionId};
use crate::{Config, ProbeError};

/// `int metron_probe_init(void)`: configure from the `METRON_*` environment, choose the clock,
/// write the profile at exit. Returns 0.
#[no_mangle]
pub extern "C" fn metron_probe_init() -> c_int {
    std::panic::catch_unwind(|| {
        crate::init(Config::from_env());
        0
    })
    .unwrap_or(-1)
}

fn flush_status(r: Result<Vec<std::path::PathBuf>, ProbeError>) -> c_int {
    let ok = r.is_ok();
    crate::report_flush(r);
    if ok {
        0
    } else {
        -1
    }
}

/// `int metron_probe_finalize(void)`: write the profile now (not again at exit). 0 on success,
/// -1 if it could not be written (one message on stderr).
#[no_mangle]
pub extern "C" fn metron_probe_finalize() -> c_int {
    std::panic::catch_unwind(|| flush_status(crate::finalize())).unwrap_or(-1)
}

/// `int metron_probe_flush(void)`: write the profile now; it is written again later.
#[no_mangle]
pub extern "C" fn metron_probe_flush() -> c_int {
    std::panic::catch_unwind(|| flush_status(crate::flush())).unwrap_or(-1)
}

/// Region name from C; invalid UTF-8 is replaced rather than rejected.
///
/// # Safety
/// `name` must be NULL or a NUL-terminated string.
unsafe fn name_of<'a>(name: *const c_char) -> Option<std::borrow::Cow<'a, str>> {
    if name.is_null() {
        return None;
    }
    Some(CStr::from_ptr(name).to_string_lossy())
}

/// `uint32_t metron_probe_register(const char *name)`: id for the fast path. A NULL name
/// registers "(null)".
///
/// # Safety
/// `name` must be NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn metron_probe_register(name: *const c_char) -> u32 {
    let n = name_of(name);
    global::register(n.as_deref().unwrap_or("(null)")).0
}

thread_local! {
    /// Name -> id, per thread, so that enter-by-name takes no lock after the first time.
    static BY_NAME: RefCell<HashMap<Box<[u8]>, u32>> = RefCell::new(HashMap::new());
    /// Before hashing: the last names seen at each of a few pointer slots. C programs pass
    /// string literals, whose address does not change, so a pointer hit confirmed by comparing
    /// the bytes with the registered name (no hashing, no strlen first) finds the id.
    static BY_POINTER: RefCell<[PointerSlot; POINTER_SLOTS]> =
        const { RefCell::new([PointerSlot::EMPTY; POINTER_SLOTS]) };
}

const POINTER_SLOTS: usize = 64;

#[derive(Clone, Copy)]
struct PointerSlot {
    ptr: usize,
    id: u32,
    /// The registered name (see `global::name_bytes`).
    name: *const u8,
    len: usize,
}

impl PointerSlot {
    const EMPTY: PointerSlot = PointerSlot {
        ptr: 0,
        id: 0,
        name: std::ptr::null(),
        len: 0,
    };
}

fn pointer_slot(name: *const c_char) -> usize {
    (name as usize >> 3) % POINTER_SLOTS
}

/// The id of the NUL-terminated `name`, by pointer slot when it is there.
///
/// # Safety
/// `name` must be a NUL-terminated string.
unsafe fn id_of(name: *const c_char) -> u32 {
    let hit = BY_POINTER
        .try_with(|slots| {
            let s = slots.borrow()[pointer_slot(name)];
            if s.ptr != name as usize || s.name.is_null() {
                return None;
            }
            // SAFETY: s.name points at s.len bytes of a registered name that lives for the
            // rest of the process; `name` is NUL-terminated, so the comparison stops at its
            // end (a shorter string differs at its NUL, which no registered name contains).
            let same =
                (0..s.len).all(|i| *name.add(i) as u8 == *s.name.add(i)) && *name.add(s.len) == 0;
            same.then_some(s.id)
        })
        .ok()
        .flatten();
    if let Some(id) = hit {
        return id;
    }
    let id = id_by_name(CStr::from_ptr(name).to_bytes());
    if let Some((bytes, len)) = global::name_bytes(id) {
        let _ = BY_POINTER.try_with(|slots| {
            slots.borrow_mut()[pointer_slot(name)] = PointerSlot {
                ptr: name as usize,
                id,
                name: bytes,
                len,
            }
        });
    }
    id
}

fn id_by_name(bytes: &[u8]) -> u32 {
    let cached = BY_NAME
        .try_with(|m| m.borrow().get(bytes).copied())
        .ok()
        .flatten();
    if let Some(id) = cached {
        return id;
    }
    let id = global::register(&String::from_utf8_lossy(bytes)).0;
    let _ = BY_NAME.try_with(|m| m.borrow_mut().insert(bytes.into(), id));
    id
}

/// `void metron_probe_enter(const char *name)`.
///
/// # Safety
/// `name` must be NULL (ignored) or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn metron_probe_enter(name: *const c_char) {
    if name.is_null() {
        return;
    }
    global::enter(RegionId(id_of(name)));
}

/// `void metron_probe_exit(const char *name)`.
///
/// # Safety
/// `name` must be NULL (ignored) or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn metron_probe_exit(name: *const c_char) {
    if name.is_null() {
        return;
    }
    global::exit(RegionId(id_of(name)));
}

/// `void metron_probe_enter_id(uint32_t id)`: fast path, id from `metron_probe_register`.
#[no_mangle]
pub extern "C" fn metron_probe_enter_id(id: u32) {
    if global::is_registered(id) {
        global::enter(RegionId(id));
    }
}

/// `void metron_probe_exit_id(uint32_t id)`.
#[no_mangle]
pub extern "C" fn metron_probe_exit_id(id: u32) {
    if global::is_registered(id) {
        global::exit(RegionId(id));
    }
}

/// `void metron_probe_set_call_tree(int on)`.
#[no_mangle]
pub extern "C" fn metron_probe_set_call_tree(on: c_int) {
    global::set_call_tree(on != 0);
}
