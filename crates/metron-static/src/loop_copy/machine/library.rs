//! The C library functions whose effect a run follows: those that return their first
//! argument, the conversions of a decimal string (`atoi`, `strtol`: the sizes `main` reads
//! from `argv`), the allocators (`malloc`, `calloc`, `posix_memalign`: each block a region
//! of its own, as the model assumes of distinct arrays), and the mathematical functions
//! (`sqrt`, `exp`...), whose results a kernel's branches may compare.

use iced_x86::Register;

use super::float::Precision;
use super::Machine;

/// What a call to a C library function does to the registers a run reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Library {
    /// `memset` (C11 7.24.6.1): returns its first argument.
    Fill,
    /// `memcpy`, `memmove` (C11 7.24.2.1, 7.24.2.2): return their first argument.
    Copy,
    /// `atoi`, `atol`, `strtol`...: the number written in the string at the first argument
    /// (C11 7.22.1.2, 7.22.1.4, in base 10).
    ParseInteger,
    /// `malloc`, `aligned_alloc`, `memalign`, `valloc`: a new region.
    Allocate,
    /// `calloc` (C11 7.22.3.2): a new region of zeros.
    AllocateZeroed,
    /// `posix_memalign` (POSIX): a new region stored at the first argument, and 0 (success)
    /// returned; benchmark suites allocate their arrays this way for alignment.
    AllocateInto,
    /// `sqrt`, `exp`, `pow`... (C11 7.12): the arguments in `xmm0` and `xmm1`, the result in
    /// `xmm0`; the `f` forms in single precision.
    Math(MathFunction, Precision),
}

/// The functions of `<math.h>` a run evaluates, with this process's own C library (the one
/// the program calls, so the results agree to the bit).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MathFunction {
    Sqrt,
    Cbrt,
    Exp,
    Exp2,
    Expm1,
    Log,
    Log2,
    Log10,
    Log1p,
    Pow,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Atan2,
    Sinh,
    Cosh,
    Tanh,
    Fabs,
    Floor,
    Ceil,
    Trunc,
    Round,
    Fmod,
    Hypot,
    Fmin,
    Fmax,
}

/// `f` of `x` (and `y`) in the float type of `x`.
macro_rules! evaluate {
    ($f:expr, $x:expr, $y:expr) => {{
        use MathFunction as F;
        let (x, y) = ($x, $y);
        match $f {
            F::Sqrt => x.sqrt(),
            F::Cbrt => x.cbrt(),
            F::Exp => x.exp(),
            F::Exp2 => x.exp2(),
            F::Expm1 => x.exp_m1(),
            F::Log => x.ln(),
            F::Log2 => x.log2(),
            F::Log10 => x.log10(),
            F::Log1p => x.ln_1p(),
            F::Pow => x.powf(y),
            F::Sin => x.sin(),
            F::Cos => x.cos(),
            F::Tan => x.tan(),
            F::Asin => x.asin(),
            F::Acos => x.acos(),
            F::Atan => x.atan(),
            F::Atan2 => x.atan2(y),
            F::Sinh => x.sinh(),
            F::Cosh => x.cosh(),
            F::Tanh => x.tanh(),
            F::Fabs => x.abs(),
            F::Floor => x.floor(),
            F::Ceil => x.ceil(),
            F::Trunc => x.trunc(),
            F::Round => x.round(),
            F::Fmod => x % y,
            F::Hypot => x.hypot(y),
            F::Fmin => x.min(y),
            F::Fmax => x.max(y),
        }
    }};
}

impl MathFunction {
    /// The function of a `<math.h>` name (double precision) and of its `f` form (single).
    fn by_name(name: &str) -> Option<(MathFunction, Precision)> {
        use MathFunction as F;
        let (base, p) = match name.strip_suffix('f') {
            Some(base) => (base, Precision::Single),
            None => (name, Precision::Double),
        };
        let f = match base {
            "sqrt" => F::Sqrt,
            "cbrt" => F::Cbrt,
            "exp" => F::Exp,
            "exp2" => F::Exp2,
            "expm1" => F::Expm1,
            "log" => F::Log,
            "log2" => F::Log2,
            "log10" => F::Log10,
            "log1p" => F::Log1p,
            "pow" => F::Pow,
            "sin" => F::Sin,
            "cos" => F::Cos,
            "tan" => F::Tan,
            "asin" => F::Asin,
            "acos" => F::Acos,
            "atan" => F::Atan,
            "atan2" => F::Atan2,
            "sinh" => F::Sinh,
            "cosh" => F::Cosh,
            "tanh" => F::Tanh,
            "fabs" => F::Fabs,
            "floor" => F::Floor,
            "ceil" => F::Ceil,
            "trunc" => F::Trunc,
            "round" => F::Round,
            "fmod" => F::Fmod,
            "hypot" => F::Hypot,
            "fmin" => F::Fmin,
            "fmax" => F::Fmax,
            _ => return None,
        };
        Some((f, p))
    }

    /// `f(x, y)` (`y` unread by the functions of one argument) at precision `p`.
    pub fn apply(self, p: Precision, x: f64, y: f64) -> f64 {
        match p {
            Precision::Double => evaluate!(self, x, y),
            Precision::Single => f64::from(evaluate!(self, x as f32, y as f32)),
        }
    }
}

impl Library {
    /// The function a PLT stub calls, by its symbol.
    pub fn by_name(name: &str) -> Option<Library> {
        match name {
            "memset" => Some(Library::Fill),
            "memcpy" | "memmove" => Some(Library::Copy),
            "calloc" => Some(Library::AllocateZeroed),
            "atoi" | "atol" | "atoll" | "strtol" | "strtoll" | "strtoul" | "strtoull"
            | "__isoc23_strtol" | "__isoc23_strtoll" | "__isoc23_strtoul" | "__isoc23_strtoull" => {
                Some(Library::ParseInteger)
            }
            "malloc" | "aligned_alloc" | "memalign" | "valloc" | "pvalloc" => {
                Some(Library::Allocate)
            }
            "posix_memalign" => Some(Library::AllocateInto),
            _ => MathFunction::by_name(name).map(|(f, p)| Library::Math(f, p)),
        }
    }
}

/// The arguments of a call a run follows: the first three integer ones and the first two
/// floating-point ones (System V ABI 3.2.3), as they were at the `call`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Arguments {
    pub integers: [Option<i64>; 3],
    pub floats: [Option<u128>; 2],
}

/// Where allocated regions start, and the distance between two (4 GiB: no array a run
/// makes reaches the next one).
const HEAP: u64 = 0x10_0000_0000;
const REGION: u64 = 1 << 32;
/// Regions one run may allocate (the descending order starts this far up).
const REGIONS: u64 = 64;
/// The most bytes `memset`, `memcpy` and `calloc` write in a run of the whole program.
pub const EFFECT_BYTES: u64 = 1 << 22;
/// The longest number a conversion reads.
const DIGITS: u64 = 24;

impl Machine {
    /// `call` to `f` after its effect on the caller-saved registers: what it returns.
    /// `args` are the first three integer arguments at the call. With `effects` (a run of the
    /// whole program, whose branches read what these functions write) `memset`, `memcpy` and
    /// `calloc` also write memory, up to [`EFFECT_BYTES`]; otherwise what they write is what it
    /// was, as the runs of one function have always taken it.
    pub(super) fn library_call(&mut self, f: Library, args: &Arguments, effects: bool) {
        let [first, second, third] = args.integers;
        let value = match f {
            Library::Math(function, p) => {
                let result = args.floats[0]
                    .zip(args.floats[1].or(Some(0)))
                    .map(|(x, y)| p.put(0, 0, function.apply(p, p.get(x, 0), p.get(y, 0))));
                self.set_vector(Register::XMM0, result);
                return;
            }
            Library::Fill | Library::Copy => {
                if let (true, Some(d), Some(n)) = (effects, first, third) {
                    match f {
                        Library::Fill => self.fill(d as u64, second, n),
                        _ => self.copy(d as u64, second, n),
                    }
                }
                first
            }
            Library::ParseInteger => first.and_then(|p| self.decimal(p as u64)),
            Library::Allocate => Some(self.allocate() as i64),
            Library::AllocateZeroed => {
                let at = self.allocate();
                let bytes = first.zip(second).and_then(|(k, n)| k.checked_mul(n));
                if let (true, Some(n)) = (effects, bytes) {
                    self.fill(at, Some(0), n);
                }
                Some(at as i64)
            }
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

    /// `memset(at, byte, n)`: `n` bytes of `byte` (unknown where the byte is).
    fn fill(&mut self, at: u64, byte: Option<i64>, n: i64) {
        let Some(n) = u64::try_from(n).ok().filter(|&n| n <= EFFECT_BYTES) else {
            return;
        };
        let word = byte.map(|b| i64::from_le_bytes([b as u8; 8]));
        let mut k = 0;
        while k < n {
            let bytes = (n - k).min(8) as u32;
            match word {
                Some(w) => self.store(at.wrapping_add(k), w, bytes),
                None => self.forget(at.wrapping_add(k), bytes),
            }
            k += u64::from(bytes);
        }
    }

    /// `memcpy(to, from, n)`, byte by byte where a word is not known whole.
    fn copy(&mut self, to: u64, from: Option<i64>, n: i64) {
        let Some(n) = u64::try_from(n).ok().filter(|&n| n <= EFFECT_BYTES) else {
            return;
        };
        let Some(from) = from.map(|f| f as u64) else {
            return (0..n).for_each(|k| self.forget(to.wrapping_add(k), 1));
        };
        // Forward or backward as `memmove` must, so that overlapping copies read the source.
        let order: Box<dyn Iterator<Item = u64>> = match to > from {
            true => Box::new((0..n).rev()),
            false => Box::new(0..n),
        };
        for k in order {
            match self.load(from.wrapping_add(k), 1) {
                Some(v) => self.store(to.wrapping_add(k), v, 1),
                None => self.forget(to.wrapping_add(k), 1),
            }
        }
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

/// Whether `address` lies in a region an allocation may return (either order).
pub fn is_allocated(address: u64) -> bool {
    (HEAP..HEAP + (REGIONS + 1) * REGION).contains(&address)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The integer arguments of a call (no floating-point ones).
    fn ints(integers: [Option<i64>; 3]) -> Arguments {
        Arguments {
            integers,
            ..Arguments::default()
        }
    }

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
        m.library_call(
            Library::AllocateInto,
            &ints([Some(0x2000), None, None]),
            false,
        );
        assert_eq!(m.register(Register::RAX), Some(0));
        let stored = m.load(0x2000, 8).map(|v| v as u64);
        assert_eq!(stored, Some(first + REGION));
        // The pointer's place unknown: nothing stored, the result unknown.
        m.library_call(Library::AllocateInto, &ints([None; 3]), false);
        assert_eq!(m.register(Register::RAX), None);
        assert_eq!(
            Library::by_name("posix_memalign"),
            Some(Library::AllocateInto)
        );
    }

    /// What memory holds at `at..at + n`, byte by byte.
    fn bytes(m: &Machine, at: u64, n: u64) -> Vec<Option<i64>> {
        (0..n).map(|k| m.load(at + k, 1)).collect()
    }

    #[test]
    fn memset_memmove_and_calloc_write_memory_only_in_a_program_run() {
        // Against a plain array doing what C11 7.24.6.1 and 7.24.2.2 say, at offsets that
        // straddle the machine's words, overlapping both ways.
        let mut reference = [0u8; 64];
        let mut m = Machine::at_entry(&[]);
        for k in 0..64u64 {
            reference[k as usize] = (k * 7 + 1) as u8;
            m.store(0x1000 + k, (k * 7 + 1) as i64, 1);
        }
        m.library_call(
            Library::Fill,
            &ints([Some(0x1003), Some(0xab), Some(13)]),
            true,
        );
        reference[3..16].fill(0xab);
        m.library_call(
            Library::Copy,
            &ints([Some(0x1005), Some(0x1001), Some(20)]),
            true,
        );
        reference.copy_within(1..21, 5);
        m.library_call(
            Library::Copy,
            &ints([Some(0x1020), Some(0x1026), Some(17)]),
            true,
        );
        reference.copy_within(0x26..0x26 + 17, 0x20);
        let want: Vec<Option<i64>> = reference.iter().map(|&b| Some(i64::from(b))).collect();
        assert_eq!(bytes(&m, 0x1000, 64), want);
        assert_eq!(m.register(Register::RAX), Some(0x1020));
        // A run of one function leaves memory as it was.
        m.library_call(
            Library::Fill,
            &ints([Some(0x1000), Some(0), Some(64)]),
            false,
        );
        assert_eq!(bytes(&m, 0x1000, 64), want);
        // calloc: a new region of zeros (a program run keeps what it stores in its regions);
        // a copy from an unknown source forgets.
        m.allocated_data = true;
        m.library_call(
            Library::AllocateZeroed,
            &ints([Some(3), Some(5), None]),
            true,
        );
        let region = m.register(Register::RAX).unwrap() as u64;
        assert_eq!(bytes(&m, region, 15), vec![Some(0); 15]);
        m.library_call(
            Library::Copy,
            &ints([Some(region as i64), None, Some(4)]),
            true,
        );
        assert_eq!(bytes(&m, region, 5), [None, None, None, None, Some(0)]);
    }

    /// Outside a program run, what the code stores into the regions it allocated is data,
    /// as a kernel's arrays are; pointers to regions, and everything outside them, stay.
    #[test]
    fn values_stored_in_allocated_regions_are_data_outside_a_program_run() {
        for program in [false, true] {
            let mut m = Machine::at_entry(&[]);
            m.allocated_data = program;
            m.library_call(Library::Allocate, &ints([Some(64), None, None]), false);
            let region = m.register(Register::RAX).unwrap() as u64;
            let other = region + REGION;
            m.store(region, 42, 4);
            m.store(region + 8, other as i64, 8);
            m.store(0x1000, 42, 4);
            let kept = m.load(region, 4);
            assert_eq!(kept, program.then_some(42));
            assert_eq!(m.load(region + 8, 8), Some(other as i64));
            assert_eq!(m.load(0x1000, 4), Some(42));
        }
    }
}
