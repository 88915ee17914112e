//! Regions by name through the C ABI: the per-thread pointer cache must never give a name the
//! id of another one that lived at the same address before.

use std::ffi::c_char;

use metron_probe::Stopwatch;

extern "C" {
    fn metron_probe_enter(name: *const c_char);
    fn metron_probe_exit(name: *const c_char);
}

fn pair(buf: &[u8]) {
    // SAFETY: every buffer given here is NUL-terminated.
    unsafe {
        metron_probe_enter(buf.as_ptr().cast());
        metron_probe_exit(buf.as_ptr().cast());
    }
}

#[test]
fn a_reused_buffer_is_read_again_not_trusted_by_address() {
    let mut buf = [0u8; 16];
    let mut set = |s: &str| {
        buf = [0u8; 16];
        buf[..s.len()].copy_from_slice(s.as_bytes());
        pair(&buf);
    };
    // Same address, changing contents: longer, shorter (a prefix), one byte different.
    for name in [
        "ffi.alpha",
        "ffi.alpha",
        "ffi.alp",
        "ffi.alphb",
        "ffi.alpha",
        "ffi.alphabet",
    ] {
        set(name);
    }
    let count = |n: &str| Stopwatch::new(n).count();
    assert_eq!(count("ffi.alpha"), 3);
    assert_eq!(count("ffi.alp"), 1);
    assert_eq!(count("ffi.alphb"), 1);
    assert_eq!(count("ffi.alphabet"), 1);
    // A literal at a fixed address, many times: all counted under its name.
    for _ in 0..1000 {
        pair(b"ffi.literal\0");
    }
    assert_eq!(count("ffi.literal"), 1000);
}
