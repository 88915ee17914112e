//! The C library functions whose effect a run follows: those that return their first
//! argument, the conversions of a decimal string (`atoi`, `strtol`: the sizes `main` reads
//! from `argv`), and the allocators (`malloc`, `calloc`, `posix_memalign`: each block a region
//! of its own, as the model assumes of distinct arrays).

use iced_x86::Register;

use super::Machine;

/// What a call to a C library function does to the registers a run reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Library {
    /// `memset`, `memcpy`, `memmove` (C11 7.24.2.1, 7.24.2.2, 7.24.6.1).
    ReturnFirstArgument,
    /// `atoi`, `atol`, `strtol`...: the number written in the string at the first argument
    /// (C11 7.22.1.2, 7.22.1.4, in base 10).
    ParseInteger,
    /// `malloc`, `calloc`, `aligned_alloc`, `memalign`, `valloc`: a new region.
    Allocate,
    /// `posix_memalign` (POSIX): a new region stored at the first argument, and 0 (success)
    /// returned; benchmark suites allocate their arrays this way for alignment.
    AllocateInto,
}

impl Library {
    /// The function a PLT stub calls, by its symbol.
    pub fn by_name(name: &str) -> Option<Library> {
        match name {
            "memset" | "memcpy" | "memmove" => Some(Library::ReturnFirstArgument),
            "atoi" | "atol" | "atoll" | "strtol" | "strtoll" | "strtoul" | "strtoull"
            | "__isoc23_strtol" | "__isoc23_strtoll" | "__isoc23_strtoul" | "__isoc23_strtoull" => {
                Some(Library::ParseInteger)
            }
            "malloc" | "calloc" | "aligned_alloc" | "memalign" | "valloc" | "pvalloc" => {
                Some(Library::Allocate)
            }
            "posix_memalign" => Some(Library::AllocateInto),
            _ => None,
        }
    }
}

/// Where allocated regions start, and the distance between two (4 GiB: no array a run
/// makes reaches the next one).
const HEAP: u64 = 0x10_0000_0000;
const REGION: u64 = 1 << 32;
/// Regions one run may allocate (the descending order starts this far up).
const REGIONS: u64 = 64;
/// The longest number a conversion reads.
const DIGITS: u64 = 24;

impl Machine {
    /// `call` to `f` after its effect on the caller-saved registers: what it returns.
    /// `first` is the first argument at the call.
    pub(super) fn library_call(&mut self, f: Library, first: Option<i64>) {
        let value = match f {
            Library::ReturnFirstArgument => first,
            Library::ParseInteger => first.and_then(|p| self.decimal(p as u64)),
            Library::Allocate => Some(self.allocate() as i64),
            Library::AllocateInto => {
                // Where the pointer goes unknown: the region is not made, and the caller
                // reads an unknown pointer, as before this was followed.
                let Some(at) = first else {
                    self.set_register(Register::RAX, None);
                    return;
                };
                let region = self.allocate();
                self.store(at as u64, region as i64, 8);
                Some(0)
            }
        };
        self.set_register(Register::RAX, value);
    }

    /// Regions come in descending address order from here on (the mirrored runs, which show
    /// the blocks of alias tests).
    pub fn allocate_descending(&mut self) {
        self.heap = (HEAP + REGIONS * REGION, true);
    }

    fn allocate(&mut self) -> u64 {
        let (next, descending) = self.heap;
        self.heap.0 = match descending {
            true => next.wrapping_sub(REGION),
            false => next.wrapping_add(REGION),
        };
        next
    }

    /// The number written at `at` in base 10, after white space and a sign; unknown when a
    /// byte is.
    fn decimal(&self, at: u64) -> Option<i64> {
        let mut k = at;
        while matches!(self.load(k, 1)? as u8, b' ' | b'\t' | b'\n') {
            k = k.wrapping_add(1);
        }
        let negative = match self.load(k, 1)? as u8 {
            b'-' => true,
            b'+' => false,
            _ => {
                k = k.wrapping_sub(1);
                false
            }
        };
        k = k.wrapping_add(1);
        let mut v: i64 = 0;
        for _ in 0..DIGITS {
            let c = self.load(k, 1)? as u8;
            if !c.is_ascii_digit() {
                break;
            }
            v = v.checked_mul(10)?.checked_add(i64::from(c - b'0'))?;
            k = k.wrapping_add(1);
        }
        Some(if negative { -v } else { v })
    }

    /// Stores the C string `s` (with its terminating zero) at `at`.
    pub fn store_string(&mut self, at: u64, s: &str) {
        for (k, b) in s.bytes().chain([0]).enumerate() {
            self.store(at + k as u64, i64::from(b), 1);
        }
    }
}

/// Where the heap starts in ascending order.
pub const HEAP_START: u64 = HEAP;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_read_the_string_as_the_c_library_does() {
        let mut m = Machine::at_entry(&[]);
        for (text, want) in [
            ("42", Some(42)),
            ("  -17x", Some(-17)),
            ("+8", Some(8)),
            ("abc", Some(0)),
        ] {
            m.store_string(0x1000, text);
            assert_eq!(m.decimal(0x1000), want, "{text}");
        }
        // A byte the run does not know: no value.
        assert_eq!(m.decimal(0x9000), None);
    }

    #[test]
    fn regions_are_distinct_in_either_order() {
        let mut m = Machine::at_entry(&[]);
        let (a, b) = (m.allocate(), m.allocate());
        assert_eq!(b - a, REGION);
        m.allocate_descending();
        let (c, d) = (m.allocate(), m.allocate());
        assert_eq!(c - d, REGION);
        assert!(d > b);
    }

    #[test]
    fn posix_memalign_stores_a_new_region_where_asked_and_succeeds() {
        let mut m = Machine::at_entry(&[]);
        let first = m.allocate();
        m.library_call(Library::AllocateInto, Some(0x2000));
        assert_eq!(m.register(Register::RAX), Some(0));
        let stored = m.load(0x2000, 8).map(|v| v as u64);
        assert_eq!(stored, Some(first + REGION));
        // The pointer's place unknown: nothing stored, the result unknown.
        m.library_call(Library::AllocateInto, None);
        assert_eq!(m.register(Register::RAX), None);
        assert_eq!(
            Library::by_name("posix_memalign"),
            Some(Library::AllocateInto)
        );
    }
}
