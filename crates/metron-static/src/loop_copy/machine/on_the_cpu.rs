//! The lane instructions checked against the processor itself: each is run by the machine
//! and, with the same operands, by the CPU (`asm!`), on a few thousand operands drawn to
//! reach the edges (saturation, sign bits, shift counts past the width, NaN, zeros of both
//! signs, integers out of a conversion's range). The encodings are GNU `as`'s.

use std::arch::asm;
use std::arch::x86_64::__m128i;

use iced_x86::{ConditionCode, Register};

use super::float::Precision;
use super::tests::decode;
use super::Machine;

/// What a case's operands hold.
#[derive(Debug, Clone, Copy)]
enum Inputs {
    /// Integer lanes of any width.
    Integer,
    /// Floating-point lanes; `special`: NaN, infinities and out-of-range values too (the
    /// compares, minimum, maximum and conversions, whose results are defined bit for bit
    /// there; arithmetic on NaN leaves a payload the SDM leaves to the processor).
    Single {
        special: bool,
    },
    Double {
        special: bool,
    },
    /// Square roots: lanes of this precision, none negative.
    Root(Precision),
}

/// A small generator (xorshift64*): the tests draw the same operands every run.
struct Draw(u64);

impl Draw {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// 16 bits at an edge or anywhere.
    fn chunk(&mut self) -> u128 {
        let r = self.next();
        u128::from(match r % 8 {
            0 => 0,
            1 => 0xffff,
            2 => 0x7fff,
            3 => 0x8000,
            4 => r >> 58,
            5 => 0xff00 | (r >> 60),
            _ => r >> 48,
        })
    }

    /// A value of the kind a float lane takes.
    fn float(&mut self, special: bool) -> f64 {
        let r = self.next();
        let k = r % if special { 10 } else { 6 };
        let m = (r >> 20) as f64 / (1u64 << 44) as f64;
        match k {
            0 => ((r >> 32) % 17) as f64 - 8.0,
            1 => (m - 0.5) * 2000.0,
            2 => m * 1e-3,
            3 => -(m * 1e6),
            4 => 0.0,
            5 => (m - 0.5) * 1e12,
            6 => -0.0,
            7 => f64::NAN,
            8 => f64::INFINITY,
            _ => 3e10 * (m - 0.5),
        }
    }

    fn operand(&mut self, inputs: Inputs) -> u128 {
        let lanes = |d: &mut Draw, p: Precision, special: bool, root: bool| {
            let n = if p == Precision::Single { 4 } else { 2 };
            (0..n).fold(0, |v, k| {
                let x = d.float(special);
                p.put(v, k, if root { x.abs() } else { x })
            })
        };
        match inputs {
            Inputs::Integer if self.next() % 4 == 0 => u128::from(self.next() % 80),
            Inputs::Integer => (0..8).fold(0, |v, k| v | self.chunk() << (16 * k)),
            Inputs::Single { special } => lanes(self, Precision::Single, special, false),
            Inputs::Double { special } => lanes(self, Precision::Double, special, false),
            Inputs::Root(p) => lanes(self, p, false, true),
        }
    }
}

fn m128(v: u128) -> __m128i {
    // SAFETY: both are 16 bytes of plain data.
    unsafe { std::mem::transmute::<u128, __m128i>(v) }
}

fn bits(v: __m128i) -> u128 {
    // SAFETY: as above.
    unsafe { std::mem::transmute::<__m128i, u128>(v) }
}

/// A case: its text, its encoding, what the CPU gives for `xmm0 op= xmm1`, its operands.
type Case = (&'static str, &'static [u8], fn(u128, u128) -> u128, Inputs);

macro_rules! on_cpu {
    ($text:literal, $bytes:expr, $inputs:expr) => {{
        fn cpu(a: u128, b: u128) -> u128 {
            let mut x = m128(a);
            // SAFETY: SSE2 (and SSE4.1, which the test checks for) on registers only.
            unsafe { asm!($text, x = inout(xmm_reg) x, y = in(xmm_reg) m128(b)) };
            bits(x)
        }
        let case: Case = ($text, &$bytes, cpu, $inputs);
        case
    }};
}

/// The instructions and their encodings.
const CASES: &[Case] = &[
    on_cpu!("paddb {x}, {y}", [0x66, 0x0f, 0xfc, 0xc1], Inputs::Integer),
    on_cpu!("paddw {x}, {y}", [0x66, 0x0f, 0xfd, 0xc1], Inputs::Integer),
    on_cpu!("paddd {x}, {y}", [0x66, 0x0f, 0xfe, 0xc1], Inputs::Integer),
    on_cpu!("paddq {x}, {y}", [0x66, 0x0f, 0xd4, 0xc1], Inputs::Integer),
    on_cpu!("psubb {x}, {y}", [0x66, 0x0f, 0xf8, 0xc1], Inputs::Integer),
    on_cpu!("psubw {x}, {y}", [0x66, 0x0f, 0xf9, 0xc1], Inputs::Integer),
    on_cpu!("psubd {x}, {y}", [0x66, 0x0f, 0xfa, 0xc1], Inputs::Integer),
    on_cpu!("psubq {x}, {y}", [0x66, 0x0f, 0xfb, 0xc1], Inputs::Integer),
    on_cpu!("paddsb {x}, {y}", [0x66, 0x0f, 0xec, 0xc1], Inputs::Integer),
    on_cpu!("paddsw {x}, {y}", [0x66, 0x0f, 0xed, 0xc1], Inputs::Integer),
    on_cpu!("psubsb {x}, {y}", [0x66, 0x0f, 0xe8, 0xc1], Inputs::Integer),
    on_cpu!("psubsw {x}, {y}", [0x66, 0x0f, 0xe9, 0xc1], Inputs::Integer),
    on_cpu!(
        "paddusb {x}, {y}",
        [0x66, 0x0f, 0xdc, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "paddusw {x}, {y}",
        [0x66, 0x0f, 0xdd, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "psubusb {x}, {y}",
        [0x66, 0x0f, 0xd8, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "psubusw {x}, {y}",
        [0x66, 0x0f, 0xd9, 0xc1],
        Inputs::Integer
    ),
    on_cpu!("pmullw {x}, {y}", [0x66, 0x0f, 0xd5, 0xc1], Inputs::Integer),
    on_cpu!("pmulhw {x}, {y}", [0x66, 0x0f, 0xe5, 0xc1], Inputs::Integer),
    on_cpu!(
        "pmulhuw {x}, {y}",
        [0x66, 0x0f, 0xe4, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "pmulld {x}, {y}",
        [0x66, 0x0f, 0x38, 0x40, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "pmuludq {x}, {y}",
        [0x66, 0x0f, 0xf4, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "pmuldq {x}, {y}",
        [0x66, 0x0f, 0x38, 0x28, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "pmaddwd {x}, {y}",
        [0x66, 0x0f, 0xf5, 0xc1],
        Inputs::Integer
    ),
    on_cpu!("pavgb {x}, {y}", [0x66, 0x0f, 0xe0, 0xc1], Inputs::Integer),
    on_cpu!("pavgw {x}, {y}", [0x66, 0x0f, 0xe3, 0xc1], Inputs::Integer),
    on_cpu!("psadbw {x}, {y}", [0x66, 0x0f, 0xf6, 0xc1], Inputs::Integer),
    on_cpu!("pand {x}, {y}", [0x66, 0x0f, 0xdb, 0xc1], Inputs::Integer),
    on_cpu!("pandn {x}, {y}", [0x66, 0x0f, 0xdf, 0xc1], Inputs::Integer),
    on_cpu!("por {x}, {y}", [0x66, 0x0f, 0xeb, 0xc1], Inputs::Integer),
    on_cpu!("pxor {x}, {y}", [0x66, 0x0f, 0xef, 0xc1], Inputs::Integer),
    on_cpu!("andps {x}, {y}", [0x0f, 0x54, 0xc1], Inputs::Integer),
    on_cpu!("andnpd {x}, {y}", [0x66, 0x0f, 0x55, 0xc1], Inputs::Integer),
    on_cpu!("orps {x}, {y}", [0x0f, 0x56, 0xc1], Inputs::Integer),
    on_cpu!("xorpd {x}, {y}", [0x66, 0x0f, 0x57, 0xc1], Inputs::Integer),
    on_cpu!(
        "pminsb {x}, {y}",
        [0x66, 0x0f, 0x38, 0x38, 0xc1],
        Inputs::Integer
    ),
    on_cpu!("pminsw {x}, {y}", [0x66, 0x0f, 0xea, 0xc1], Inputs::Integer),
    on_cpu!(
        "pminsd {x}, {y}",
        [0x66, 0x0f, 0x38, 0x39, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "pmaxsb {x}, {y}",
        [0x66, 0x0f, 0x38, 0x3c, 0xc1],
        Inputs::Integer
    ),
    on_cpu!("pmaxsw {x}, {y}", [0x66, 0x0f, 0xee, 0xc1], Inputs::Integer),
    on_cpu!(
        "pmaxsd {x}, {y}",
        [0x66, 0x0f, 0x38, 0x3d, 0xc1],
        Inputs::Integer
    ),
    on_cpu!("pminub {x}, {y}", [0x66, 0x0f, 0xda, 0xc1], Inputs::Integer),
    on_cpu!(
        "pminuw {x}, {y}",
        [0x66, 0x0f, 0x38, 0x3a, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "pminud {x}, {y}",
        [0x66, 0x0f, 0x38, 0x3b, 0xc1],
        Inputs::Integer
    ),
    on_cpu!("pmaxub {x}, {y}", [0x66, 0x0f, 0xde, 0xc1], Inputs::Integer),
    on_cpu!(
        "pmaxuw {x}, {y}",
        [0x66, 0x0f, 0x38, 0x3e, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "pmaxud {x}, {y}",
        [0x66, 0x0f, 0x38, 0x3f, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "pcmpeqb {x}, {y}",
        [0x66, 0x0f, 0x74, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "pcmpeqw {x}, {y}",
        [0x66, 0x0f, 0x75, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "pcmpeqd {x}, {y}",
        [0x66, 0x0f, 0x76, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "pcmpeqq {x}, {y}",
        [0x66, 0x0f, 0x38, 0x29, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "pcmpgtb {x}, {y}",
        [0x66, 0x0f, 0x64, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "pcmpgtw {x}, {y}",
        [0x66, 0x0f, 0x65, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "pcmpgtd {x}, {y}",
        [0x66, 0x0f, 0x66, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "pcmpgtq {x}, {y}",
        [0x66, 0x0f, 0x38, 0x37, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "punpcklbw {x}, {y}",
        [0x66, 0x0f, 0x60, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "punpcklwd {x}, {y}",
        [0x66, 0x0f, 0x61, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "punpckldq {x}, {y}",
        [0x66, 0x0f, 0x62, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "punpcklqdq {x}, {y}",
        [0x66, 0x0f, 0x6c, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "punpckhbw {x}, {y}",
        [0x66, 0x0f, 0x68, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "punpckhwd {x}, {y}",
        [0x66, 0x0f, 0x69, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "punpckhdq {x}, {y}",
        [0x66, 0x0f, 0x6a, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "punpckhqdq {x}, {y}",
        [0x66, 0x0f, 0x6d, 0xc1],
        Inputs::Integer
    ),
    on_cpu!("unpcklps {x}, {y}", [0x0f, 0x14, 0xc1], Inputs::Integer),
    on_cpu!(
        "unpcklpd {x}, {y}",
        [0x66, 0x0f, 0x14, 0xc1],
        Inputs::Integer
    ),
    on_cpu!("unpckhps {x}, {y}", [0x0f, 0x15, 0xc1], Inputs::Integer),
    on_cpu!(
        "unpckhpd {x}, {y}",
        [0x66, 0x0f, 0x15, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "packsswb {x}, {y}",
        [0x66, 0x0f, 0x63, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "packuswb {x}, {y}",
        [0x66, 0x0f, 0x67, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "packssdw {x}, {y}",
        [0x66, 0x0f, 0x6b, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "packusdw {x}, {y}",
        [0x66, 0x0f, 0x38, 0x2b, 0xc1],
        Inputs::Integer
    ),
    on_cpu!("psllw {x}, {y}", [0x66, 0x0f, 0xf1, 0xc1], Inputs::Integer),
    on_cpu!("pslld {x}, {y}", [0x66, 0x0f, 0xf2, 0xc1], Inputs::Integer),
    on_cpu!("psllq {x}, {y}", [0x66, 0x0f, 0xf3, 0xc1], Inputs::Integer),
    on_cpu!("psrlw {x}, {y}", [0x66, 0x0f, 0xd1, 0xc1], Inputs::Integer),
    on_cpu!("psrld {x}, {y}", [0x66, 0x0f, 0xd2, 0xc1], Inputs::Integer),
    on_cpu!("psrlq {x}, {y}", [0x66, 0x0f, 0xd3, 0xc1], Inputs::Integer),
    on_cpu!("psraw {x}, {y}", [0x66, 0x0f, 0xe1, 0xc1], Inputs::Integer),
    on_cpu!("psrad {x}, {y}", [0x66, 0x0f, 0xe2, 0xc1], Inputs::Integer),
    on_cpu!(
        "psllw {x}, 3 # {y} unread",
        [0x66, 0x0f, 0x71, 0xf0, 0x03],
        Inputs::Integer
    ),
    on_cpu!(
        "pslld {x}, 7 # {y} unread",
        [0x66, 0x0f, 0x72, 0xf0, 0x07],
        Inputs::Integer
    ),
    on_cpu!(
        "psllq {x}, 33 # {y} unread",
        [0x66, 0x0f, 0x73, 0xf0, 0x21],
        Inputs::Integer
    ),
    on_cpu!(
        "psrlw {x}, 15 # {y} unread",
        [0x66, 0x0f, 0x71, 0xd0, 0x0f],
        Inputs::Integer
    ),
    on_cpu!(
        "psrld {x}, 1 # {y} unread",
        [0x66, 0x0f, 0x72, 0xd0, 0x01],
        Inputs::Integer
    ),
    on_cpu!(
        "psrlq {x}, 63 # {y} unread",
        [0x66, 0x0f, 0x73, 0xd0, 0x3f],
        Inputs::Integer
    ),
    on_cpu!(
        "psraw {x}, 17 # {y} unread",
        [0x66, 0x0f, 0x71, 0xe0, 0x11],
        Inputs::Integer
    ),
    on_cpu!(
        "psrad {x}, 5 # {y} unread",
        [0x66, 0x0f, 0x72, 0xe0, 0x05],
        Inputs::Integer
    ),
    on_cpu!(
        "pslldq {x}, 3 # {y} unread",
        [0x66, 0x0f, 0x73, 0xf8, 0x03],
        Inputs::Integer
    ),
    on_cpu!(
        "psrldq {x}, 9 # {y} unread",
        [0x66, 0x0f, 0x73, 0xd8, 0x09],
        Inputs::Integer
    ),
    on_cpu!(
        "pshufd {x}, {y}, 0x1b",
        [0x66, 0x0f, 0x70, 0xc1, 0x1b],
        Inputs::Integer
    ),
    on_cpu!(
        "pshuflw {x}, {y}, 0x9c",
        [0xf2, 0x0f, 0x70, 0xc1, 0x9c],
        Inputs::Integer
    ),
    on_cpu!(
        "pshufhw {x}, {y}, 0x4e",
        [0xf3, 0x0f, 0x70, 0xc1, 0x4e],
        Inputs::Integer
    ),
    on_cpu!(
        "shufps {x}, {y}, 0xb1",
        [0x0f, 0xc6, 0xc1, 0xb1],
        Inputs::Integer
    ),
    on_cpu!(
        "shufpd {x}, {y}, 2",
        [0x66, 0x0f, 0xc6, 0xc1, 0x02],
        Inputs::Integer
    ),
    on_cpu!("movss {x}, {y}", [0xf3, 0x0f, 0x10, 0xc1], Inputs::Integer),
    on_cpu!("movsd {x}, {y}", [0xf2, 0x0f, 0x10, 0xc1], Inputs::Integer),
    on_cpu!("movhlps {x}, {y}", [0x0f, 0x12, 0xc1], Inputs::Integer),
    on_cpu!("movlhps {x}, {y}", [0x0f, 0x16, 0xc1], Inputs::Integer),
    on_cpu!("movq {x}, {y}", [0xf3, 0x0f, 0x7e, 0xc1], Inputs::Integer),
    on_cpu!(
        "addss {x}, {y}",
        [0xf3, 0x0f, 0x58, 0xc1],
        Inputs::Single { special: false }
    ),
    on_cpu!(
        "addsd {x}, {y}",
        [0xf2, 0x0f, 0x58, 0xc1],
        Inputs::Double { special: false }
    ),
    on_cpu!(
        "addps {x}, {y}",
        [0x0f, 0x58, 0xc1],
        Inputs::Single { special: false }
    ),
    on_cpu!(
        "addpd {x}, {y}",
        [0x66, 0x0f, 0x58, 0xc1],
        Inputs::Double { special: false }
    ),
    on_cpu!(
        "subss {x}, {y}",
        [0xf3, 0x0f, 0x5c, 0xc1],
        Inputs::Single { special: false }
    ),
    on_cpu!(
        "subsd {x}, {y}",
        [0xf2, 0x0f, 0x5c, 0xc1],
        Inputs::Double { special: false }
    ),
    on_cpu!(
        "subps {x}, {y}",
        [0x0f, 0x5c, 0xc1],
        Inputs::Single { special: false }
    ),
    on_cpu!(
        "subpd {x}, {y}",
        [0x66, 0x0f, 0x5c, 0xc1],
        Inputs::Double { special: false }
    ),
    on_cpu!(
        "mulss {x}, {y}",
        [0xf3, 0x0f, 0x59, 0xc1],
        Inputs::Single { special: false }
    ),
    on_cpu!(
        "mulsd {x}, {y}",
        [0xf2, 0x0f, 0x59, 0xc1],
        Inputs::Double { special: false }
    ),
    on_cpu!(
        "mulps {x}, {y}",
        [0x0f, 0x59, 0xc1],
        Inputs::Single { special: false }
    ),
    on_cpu!(
        "mulpd {x}, {y}",
        [0x66, 0x0f, 0x59, 0xc1],
        Inputs::Double { special: false }
    ),
    on_cpu!(
        "divss {x}, {y}",
        [0xf3, 0x0f, 0x5e, 0xc1],
        Inputs::Single { special: false }
    ),
    on_cpu!(
        "divsd {x}, {y}",
        [0xf2, 0x0f, 0x5e, 0xc1],
        Inputs::Double { special: false }
    ),
    on_cpu!(
        "divps {x}, {y}",
        [0x0f, 0x5e, 0xc1],
        Inputs::Single { special: false }
    ),
    on_cpu!(
        "divpd {x}, {y}",
        [0x66, 0x0f, 0x5e, 0xc1],
        Inputs::Double { special: false }
    ),
    on_cpu!(
        "minss {x}, {y}",
        [0xf3, 0x0f, 0x5d, 0xc1],
        Inputs::Single { special: true }
    ),
    on_cpu!(
        "minsd {x}, {y}",
        [0xf2, 0x0f, 0x5d, 0xc1],
        Inputs::Double { special: true }
    ),
    on_cpu!(
        "minps {x}, {y}",
        [0x0f, 0x5d, 0xc1],
        Inputs::Single { special: true }
    ),
    on_cpu!(
        "minpd {x}, {y}",
        [0x66, 0x0f, 0x5d, 0xc1],
        Inputs::Double { special: true }
    ),
    on_cpu!(
        "maxss {x}, {y}",
        [0xf3, 0x0f, 0x5f, 0xc1],
        Inputs::Single { special: true }
    ),
    on_cpu!(
        "maxsd {x}, {y}",
        [0xf2, 0x0f, 0x5f, 0xc1],
        Inputs::Double { special: true }
    ),
    on_cpu!(
        "maxps {x}, {y}",
        [0x0f, 0x5f, 0xc1],
        Inputs::Single { special: true }
    ),
    on_cpu!(
        "maxpd {x}, {y}",
        [0x66, 0x0f, 0x5f, 0xc1],
        Inputs::Double { special: true }
    ),
    on_cpu!(
        "sqrtss {x}, {y}",
        [0xf3, 0x0f, 0x51, 0xc1],
        Inputs::Root(Precision::Single)
    ),
    on_cpu!(
        "sqrtsd {x}, {y}",
        [0xf2, 0x0f, 0x51, 0xc1],
        Inputs::Root(Precision::Double)
    ),
    on_cpu!(
        "sqrtps {x}, {y}",
        [0x0f, 0x51, 0xc1],
        Inputs::Root(Precision::Single)
    ),
    on_cpu!(
        "sqrtpd {x}, {y}",
        [0x66, 0x0f, 0x51, 0xc1],
        Inputs::Root(Precision::Double)
    ),
    on_cpu!(
        "cmpss {x}, {y}, 1",
        [0xf3, 0x0f, 0xc2, 0xc1, 0x01],
        Inputs::Single { special: true }
    ),
    on_cpu!(
        "cmpsd {x}, {y}, 2",
        [0xf2, 0x0f, 0xc2, 0xc1, 0x02],
        Inputs::Double { special: true }
    ),
    on_cpu!(
        "cmpps {x}, {y}, 4",
        [0x0f, 0xc2, 0xc1, 0x04],
        Inputs::Single { special: true }
    ),
    on_cpu!(
        "cmppd {x}, {y}, 6",
        [0x66, 0x0f, 0xc2, 0xc1, 0x06],
        Inputs::Double { special: true }
    ),
    on_cpu!(
        "cmpps {x}, {y}, 3",
        [0x0f, 0xc2, 0xc1, 0x03],
        Inputs::Single { special: true }
    ),
    on_cpu!(
        "cmppd {x}, {y}, 0",
        [0x66, 0x0f, 0xc2, 0xc1, 0x00],
        Inputs::Double { special: true }
    ),
    on_cpu!(
        "cmpps {x}, {y}, 5",
        [0x0f, 0xc2, 0xc1, 0x05],
        Inputs::Single { special: true }
    ),
    on_cpu!(
        "cmppd {x}, {y}, 7",
        [0x66, 0x0f, 0xc2, 0xc1, 0x07],
        Inputs::Double { special: true }
    ),
    on_cpu!(
        "cvtss2sd {x}, {y}",
        [0xf3, 0x0f, 0x5a, 0xc1],
        Inputs::Single { special: true }
    ),
    on_cpu!(
        "cvtsd2ss {x}, {y}",
        [0xf2, 0x0f, 0x5a, 0xc1],
        Inputs::Double { special: true }
    ),
    on_cpu!(
        "cvtps2pd {x}, {y}",
        [0x0f, 0x5a, 0xc1],
        Inputs::Single { special: true }
    ),
    on_cpu!(
        "cvtpd2ps {x}, {y}",
        [0x66, 0x0f, 0x5a, 0xc1],
        Inputs::Double { special: true }
    ),
    on_cpu!("cvtdq2ps {x}, {y}", [0x0f, 0x5b, 0xc1], Inputs::Integer),
    on_cpu!(
        "cvtdq2pd {x}, {y}",
        [0xf3, 0x0f, 0xe6, 0xc1],
        Inputs::Integer
    ),
    on_cpu!(
        "cvttps2dq {x}, {y}",
        [0xf3, 0x0f, 0x5b, 0xc1],
        Inputs::Single { special: true }
    ),
    on_cpu!(
        "cvtps2dq {x}, {y}",
        [0x66, 0x0f, 0x5b, 0xc1],
        Inputs::Single { special: true }
    ),
    on_cpu!(
        "cvttpd2dq {x}, {y}",
        [0x66, 0x0f, 0xe6, 0xc1],
        Inputs::Double { special: true }
    ),
    on_cpu!(
        "cvtpd2dq {x}, {y}",
        [0xf2, 0x0f, 0xe6, 0xc1],
        Inputs::Double { special: true }
    ),
];

/// The machine's `xmm0` after `bytes` on `xmm0 = a`, `xmm1 = b`.
fn on_machine(bytes: &[u8], a: u128, b: u128) -> Option<u128> {
    let mut m = Machine::at_entry(&[]);
    m.set_vector(Register::XMM0, Some(a));
    m.set_vector(Register::XMM1, Some(b));
    decode(bytes).iter().for_each(|i| m.execute(i));
    m.vector(Register::XMM0)
}

#[test]
fn lane_instructions_agree_with_the_processor() {
    assert!(
        std::arch::is_x86_feature_detected!("sse4.1"),
        "the test runs SSE4.1 instructions on the CPU"
    );
    let mut draw = Draw(0x9e37_79b9_7f4a_7c15);
    for &(text, bytes, cpu, inputs) in CASES {
        for _ in 0..400 {
            let (a, b) = (draw.operand(inputs), draw.operand(inputs));
            let want = cpu(a, b);
            let got = on_machine(bytes, a, b);
            assert_eq!(got, Some(want), "{text} of {a:#034x} and {b:#034x}");
        }
    }
}

/// `ucomis*`/`comis*` and the conditions gcc and clang branch on after them.
#[test]
fn float_compares_set_the_flags_the_processor_sets() {
    let compares: [(&[u8], Precision); 4] = [
        (&[0x66, 0x0f, 0x2e, 0xc1], Precision::Double), // ucomisd xmm0, xmm1
        (&[0x66, 0x0f, 0x2f, 0xc1], Precision::Double), // comisd xmm0, xmm1
        (&[0x0f, 0x2e, 0xc1], Precision::Single),       // ucomiss xmm0, xmm1
        (&[0x0f, 0x2f, 0xc1], Precision::Single),       // comiss xmm0, xmm1
    ];
    let mut draw = Draw(7);
    for (bytes, p) in compares {
        let inputs = match p {
            Precision::Single => Inputs::Single { special: true },
            Precision::Double => Inputs::Double { special: true },
        };
        for _ in 0..500 {
            let (mut a, b) = (draw.operand(inputs), draw.operand(inputs));
            if draw.next() % 4 == 0 {
                a = b; // equal operands
            }
            let (below, equal, parity) = cpu_compare(p, a, b);
            let mut m = Machine::at_entry(&[]);
            m.set_vector(Register::XMM0, Some(a));
            m.set_vector(Register::XMM1, Some(b));
            decode(bytes).iter().for_each(|i| m.execute(i));
            let got =
                [ConditionCode::b, ConditionCode::e, ConditionCode::p].map(|c| m.condition(c));
            let want = [below, equal, parity].map(|f| Some(f == 1));
            assert_eq!(got, want, "{bytes:x?} of {a:#x}, {b:#x}");
            assert_eq!(
                m.condition(ConditionCode::a),
                Some(below == 0 && equal == 0)
            );
        }
    }
}

/// CF, ZF and PF after `ucomisd` (or `ucomiss`) of `a` and `b` on the CPU.
fn cpu_compare(p: Precision, a: u128, b: u128) -> (u8, u8, u8) {
    let (below, equal, parity): (u8, u8, u8);
    // SAFETY: an SSE compare of registers and three `set`s.
    unsafe {
        match p {
            Precision::Double => asm!(
                "ucomisd {x}, {y}", "setb {b}", "sete {e}", "setp {p}",
                x = in(xmm_reg) m128(a), y = in(xmm_reg) m128(b),
                b = out(reg_byte) below, e = out(reg_byte) equal, p = out(reg_byte) parity,
            ),
            Precision::Single => asm!(
                "ucomiss {x}, {y}", "setb {b}", "sete {e}", "setp {p}",
                x = in(xmm_reg) m128(a), y = in(xmm_reg) m128(b),
                b = out(reg_byte) below, e = out(reg_byte) equal, p = out(reg_byte) parity,
            ),
        }
    }
    (below, equal, parity)
}

/// The conversions between integer registers and float lanes, rounding and the integer
/// indefinite as the processor has them.
#[test]
fn integer_conversions_agree_with_the_processor() {
    let mut draw = Draw(11);
    for _ in 0..2000 {
        let x = draw.float(true);
        let n = match draw.next() % 3 {
            0 => draw.next() as i64,
            1 => (draw.next() % 2000) as i64 - 1000,
            _ => draw.next() as i32 as i64,
        };
        let (d, s) = (
            Precision::Double.put(0, 0, x),
            Precision::Single.put(0, 0, x),
        );
        let to_int = |bytes: &[u8], v: u128, full: bool| {
            let mut m = Machine::at_entry(&[]);
            m.set_vector(Register::XMM1, Some(v));
            decode(bytes).iter().for_each(|i| m.execute(i));
            m.register(if full { Register::RAX } else { Register::EAX })
        };
        let (t64, t32, r64, r32): (i64, i32, i64, i32);
        let (ts64, ts32, rs64, rs32): (i64, i32, i64, i32);
        // SAFETY: conversions between registers.
        unsafe {
            asm!("cvttsd2si {a}, {v}", "cvttsd2si {b:e}, {v}", "cvtsd2si {c}, {v}",
                 "cvtsd2si {d:e}, {v}", v = in(xmm_reg) m128(d), a = out(reg) t64,
                 b = out(reg) t32, c = out(reg) r64, d = out(reg) r32);
            asm!("cvttss2si {a}, {v}", "cvttss2si {b:e}, {v}", "cvtss2si {c}, {v}",
                 "cvtss2si {d:e}, {v}", v = in(xmm_reg) m128(s), a = out(reg) ts64,
                 b = out(reg) ts32, c = out(reg) rs64, d = out(reg) rs32);
        }
        let unsigned32 = |v: i32| Some(i64::from(v as u32));
        assert_eq!(
            to_int(&[0xf2, 0x48, 0x0f, 0x2c, 0xc1], d, true),
            Some(t64),
            "{x}"
        );
        assert_eq!(
            to_int(&[0xf2, 0x0f, 0x2c, 0xc1], d, false),
            unsigned32(t32),
            "{x}"
        );
        assert_eq!(
            to_int(&[0xf2, 0x48, 0x0f, 0x2d, 0xc1], d, true),
            Some(r64),
            "{x}"
        );
        assert_eq!(
            to_int(&[0xf2, 0x0f, 0x2d, 0xc1], d, false),
            unsigned32(r32),
            "{x}"
        );
        assert_eq!(
            to_int(&[0xf3, 0x48, 0x0f, 0x2c, 0xc1], s, true),
            Some(ts64),
            "{x}"
        );
        assert_eq!(
            to_int(&[0xf3, 0x0f, 0x2c, 0xc1], s, false),
            unsigned32(ts32),
            "{x}"
        );
        assert_eq!(
            to_int(&[0xf3, 0x48, 0x0f, 0x2d, 0xc1], s, true),
            Some(rs64),
            "{x}"
        );
        assert_eq!(
            to_int(&[0xf3, 0x0f, 0x2d, 0xc1], s, false),
            unsigned32(rs32),
            "{x}"
        );
        let from_int = |bytes: &[u8]| {
            let mut m = Machine::at_entry(&[]);
            m.set_vector(Register::XMM0, Some(u128::MAX));
            m.set_register(Register::RAX, Some(n));
            decode(bytes).iter().for_each(|i| m.execute(i));
            m.vector(Register::XMM0)
        };
        let cpu = |text: u8| {
            let mut v = m128(u128::MAX);
            // SAFETY: conversions between registers.
            unsafe {
                match text {
                    0 => asm!("cvtsi2sd {v}, {n}", v = inout(xmm_reg) v, n = in(reg) n),
                    1 => asm!("cvtsi2sd {v}, {n:e}", v = inout(xmm_reg) v, n = in(reg) n),
                    2 => asm!("cvtsi2ss {v}, {n}", v = inout(xmm_reg) v, n = in(reg) n),
                    _ => asm!("cvtsi2ss {v}, {n:e}", v = inout(xmm_reg) v, n = in(reg) n),
                }
            }
            Some(bits(v))
        };
        assert_eq!(from_int(&[0xf2, 0x48, 0x0f, 0x2a, 0xc0]), cpu(0), "{n}");
        assert_eq!(from_int(&[0xf2, 0x0f, 0x2a, 0xc0]), cpu(1), "{n}");
        assert_eq!(from_int(&[0xf3, 0x48, 0x0f, 0x2a, 0xc0]), cpu(2), "{n}");
        assert_eq!(from_int(&[0xf3, 0x0f, 0x2a, 0xc0]), cpu(3), "{n}");
    }
}
