//! PMU-specific event names (`MEM_INST_RETIRED:ALL_LOADS`, `perf::PERF_COUNT_SW_PAGE_FAULTS`)
//! through libpfm4's tables, as PAPI's native events and mPAPI used them (000 App. B.1.1).
//! libpfm.so.4 is loaded at run time, so metron builds and runs without it; when it is there,
//! `pfm_get_os_event_encoding` turns a name into the perf_event type and config words.

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::sync::OnceLock;

/// The perf_event words of an encoded event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Encoding {
    pub type_: u32,
    pub config: u64,
    pub config1: u64,
    pub config2: u64,
}

/// `pfm_perf_encode_arg_t` of perfmon/pfmlib_perf_event.h.
#[repr(C)]
struct EncodeArg {
    attr: *mut c_void,
    fstr: *mut *mut c_char,
    size: usize,
    idx: c_int,
    cpu: c_int,
    flags: c_int,
    pad0: c_int,
}

type Encode = unsafe extern "C" fn(*const c_char, c_int, c_int, *mut c_void) -> c_int;
type StrError = unsafe extern "C" fn(c_int) -> *const c_char;

struct Lib {
    encode: Encode,
    strerror: StrError,
}

const PFM_PLM0: c_int = 1; // kernel
const PFM_PLM3: c_int = 8; // user
const PFM_OS_PERF_EVENT: c_int = 1;

fn lib() -> Option<&'static Lib> {
    static LIB: OnceLock<Option<Lib>> = OnceLock::new();
    LIB.get_or_init(|| {
        // SAFETY: dlopen/dlsym with NUL-terminated names; the handle is never closed, so the
        // symbols stay valid for the life of the process; the signatures are libpfm4's.
        unsafe {
            let h = libc::dlopen(c"libpfm.so.4".as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL);
            if h.is_null() {
                return None;
            }
            let init = libc::dlsym(h, c"pfm_initialize".as_ptr());
            let encode = libc::dlsym(h, c"pfm_get_os_event_encoding".as_ptr());
            let strerror = libc::dlsym(h, c"pfm_strerror".as_ptr());
            if init.is_null() || encode.is_null() || strerror.is_null() {
                return None;
            }
            let init: unsafe extern "C" fn() -> c_int = std::mem::transmute(init);
            if init() != 0 {
                return None;
            }
            Some(Lib {
                encode: std::mem::transmute::<*mut c_void, Encode>(encode),
                strerror: std::mem::transmute::<*mut c_void, StrError>(strerror),
            })
        }
    })
    .as_ref()
}

/// Whether libpfm.so.4 could be loaded and initialised.
pub fn available() -> bool {
    lib().is_some()
}

/// `None` without libpfm4; otherwise the encoding, or libpfm4's reason for refusing the name.
pub fn encode(name: &str) -> Option<Result<Encoding, String>> {
    let lib = lib()?;
    let Ok(cname) = CString::new(name) else {
        return Some(Err("the name contains a NUL byte".into()));
    };
    // A perf_event_attr, zeroed and larger than any version of it; libpfm4 fills type (at
    // byte 0), config (8), config1 (56) and config2 (64).
    let mut attr = [0u64; 32];
    let mut arg = EncodeArg {
        attr: attr.as_mut_ptr().cast(),
        fstr: std::ptr::null_mut(),
        size: std::mem::size_of::<EncodeArg>(),
        idx: 0,
        cpu: 0,
        flags: 0,
        pad0: 0,
    };
    // SAFETY: valid pointers to live locals, of the sizes libpfm4 expects.
    let r = unsafe {
        (lib.encode)(
            cname.as_ptr(),
            PFM_PLM0 | PFM_PLM3,
            PFM_OS_PERF_EVENT,
            (&mut arg as *mut EncodeArg).cast(),
        )
    };
    if r != 0 {
        // SAFETY: pfm_strerror returns a static string.
        let msg = unsafe { CStr::from_ptr((lib.strerror)(r)) };
        return Some(Err(format!("libpfm4: {}", msg.to_string_lossy())));
    }
    Some(Ok(Encoding {
        type_: (attr[0] & 0xffff_ffff) as u32,
        config: attr[1],
        config1: attr[7],
        config2: attr[8],
    }))
}
