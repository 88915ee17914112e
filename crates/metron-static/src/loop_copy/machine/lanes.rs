//! SSE2 integer lanes. gcc -O3 keeps a loop's counter as `{i, i+1, i+2, i+3}` in an XMM
//! register (`paddd` by a constant from `.rodata` each pass) when the body reads the
//! counter's value, and takes the scalar epilogue's start from its last lane (`pshufd $0xff;
//! movd %xmm0, %eax`); a program run also meets the vectorised loops of `main` that fill the
//! arrays a kernel's branches read (`weight[i] = i % 7 + 1` is `pmuludq`, shifts and
//! unpacks). The runs follow SSE2's integer instructions as the Intel SDM defines them (and
//! the few SSE4.1 ones `-msse4` adds); any other write to an XMM register leaves it unknown.

use iced_x86::{Instruction, Mnemonic, OpKind, Register};

use super::{mask, Machine};

/// Bytes of an XMM register.
const WIDTH: u32 = 16;

/// What is known of an XMM register: its bits and which of them are known. A scalar
/// instruction writes the low lane and keeps the rest (`cvtsi2ss xmm0, edx` after a call, when
/// nothing of `xmm0` is known, knows the low 32 bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Lanes {
    value: u128,
    known: u128,
}

impl Lanes {
    /// All 128 bits known.
    pub(super) fn known(value: u128) -> Lanes {
        Lanes {
            value,
            known: u128::MAX,
        }
    }

    /// The value, when all of it is known.
    pub(super) fn value(self) -> Option<u128> {
        (self.known == u128::MAX).then_some(self.value)
    }
}

impl Machine {
    /// The value of XMM register `r` (any width of it), when all of it is known.
    pub(super) fn vector(&self, r: Register) -> Option<u128> {
        let l = self.vectors.get(r.full_register())?;
        (l.known == u128::MAX).then_some(l.value)
    }

    pub(super) fn set_vector(&mut self, r: Register, v: Option<u128>) {
        let lanes = v.map(|value| Lanes {
            value,
            known: u128::MAX,
        });
        self.vectors.set(r.full_register(), lanes);
    }

    /// The low `bits` of XMM register `r`, when they are known.
    fn vector_low(&self, r: Register, bits: u32) -> Option<u128> {
        let l = self.vectors.get(r.full_register())?;
        let low = low_bits(bits);
        (l.known & low == low).then_some(l.value & low)
    }

    /// Operand `k`'s low `bits`: of an XMM register only those need be known; memory and
    /// general registers as [`Machine::read_wide`] reads them.
    pub(super) fn read_low(&self, i: &Instruction, k: u32, bits: u32) -> Option<u128> {
        match i.op_kind(k) {
            OpKind::Register if i.op_register(k).is_xmm() => {
                self.vector_low(i.op_register(k), bits)
            }
            _ => self.read_wide(i, k).map(|v| v & low_bits(bits)),
        }
    }

    /// Writes the low `bits` of operand 0 (an XMM register), the rest of it as it was.
    pub(super) fn write_low(&mut self, i: &Instruction, bits: u32, v: Option<u128>) {
        if i.op0_kind() != OpKind::Register || !i.op0_register().is_xmm() {
            return self.write_wide(i, v);
        }
        let r = i.op0_register().full_register();
        let low = low_bits(bits);
        let old = self.vectors.get(r).unwrap_or(Lanes { value: 0, known: 0 });
        let new = match v {
            Some(v) => Lanes {
                value: (old.value & !low) | (v & low),
                known: old.known | low,
            },
            None => Lanes {
                value: old.value & !low,
                known: old.known & !low,
            },
        };
        self.vectors.set(r, (new.known != 0).then_some(new));
    }

    /// `n` bytes (up to 16) at `address` as an integer, when all are known.
    pub(super) fn load_wide(&self, address: u64, n: u32) -> Option<u128> {
        let low = self.memory.load(address, n.min(8))?;
        let high = match n > 8 {
            true => self.memory.load(address.wrapping_add(8), n - 8)?,
            false => 0,
        };
        Some(u128::from(low) | u128::from(high) << 64)
    }

    pub(super) fn store_wide(&mut self, address: u64, v: Option<u128>, n: u32) {
        let low = self.kept(address, v.map(|v| v as u64), n.min(8));
        self.memory.store(address, low, n.min(8));
        if n > 8 {
            let at = address.wrapping_add(8);
            let high = self.kept(at, v.map(|v| (v >> 64) as u64), n - 8);
            self.memory.store(at, high, n - 8);
        }
    }

    /// Operand `k` as up to 128 bits: an XMM register, memory, or a general register.
    pub(super) fn read_wide(&self, i: &Instruction, k: u32) -> Option<u128> {
        match i.op_kind(k) {
            OpKind::Register if i.op_register(k).is_xmm() => self.vector(i.op_register(k)),
            OpKind::Register => {
                let r = i.op_register(k);
                let bits = r.size() as u32 * 8;
                self.register(r).map(|v| mask(v, bits) as u64 as u128)
            }
            OpKind::Memory => {
                let n = (i.memory_size().size() as u32).min(WIDTH);
                self.address(i).and_then(|a| self.load_wide(a, n))
            }
            _ => None,
        }
    }

    /// Writes operand 0: an XMM register whole, memory of the instruction's size, or the
    /// low 32 or 64 bits to a general register.
    pub(super) fn write_wide(&mut self, i: &Instruction, v: Option<u128>) {
        match i.op0_kind() {
            OpKind::Register if i.op0_register().is_xmm() => self.set_vector(i.op0_register(), v),
            OpKind::Register => {
                let r = i.op0_register();
                self.set_register(r, v.map(|v| v as u64 as i64));
            }
            OpKind::Memory => {
                let n = (i.memory_size().size() as u32).min(WIDTH);
                if let Some(a) = self.address(i) {
                    self.store_wide(a, v, n);
                }
            }
            _ => {}
        }
    }

    /// SSE2 integer moves and lane arithmetic; false when `i` is none of it (its XMM
    /// destination, if any, then becomes unknown).
    pub(super) fn lanes(&mut self, i: &Instruction) -> bool {
        let m = i.mnemonic();
        let registers = i.op0_kind() == OpKind::Register && i.op1_kind() == OpKind::Register;
        if matches!(m, Mnemonic::Movss | Mnemonic::Movsd) && registers && is_sse_move(i) {
            let bits = if m == Mnemonic::Movss { 32 } else { 64 };
            let v = self.read_low(i, 1, bits);
            self.write_low(i, bits, v);
            return true;
        }
        match self.lane_result(i) {
            Some(v) => {
                self.write_wide(i, v);
                true
            }
            None => {
                self.forget_vector_destination(i);
                false
            }
        }
    }

    /// An XMM (or wider) destination becomes unknown.
    pub(super) fn forget_vector_destination(&mut self, i: &Instruction) {
        if i.op_count() > 0 && i.op0_kind() == OpKind::Register {
            let r = i.op0_register();
            if r.is_xmm() || r.is_ymm() || r.is_zmm() {
                self.set_vector(r, None);
                self.upper.set(r.full_register(), None);
            }
        }
    }

    /// What `i` writes to operand 0 when it is modelled here (the inner `None`: an operand
    /// it reads is unknown); `None` when it is not.
    fn lane_result(&self, i: &Instruction) -> Option<Option<u128>> {
        use Mnemonic as M;
        let m = i.mnemonic();
        let both = || self.read_wide(i, 0).zip(self.read_wide(i, 1));
        let imm = || i.immediate(i.op_count() - 1) as u8;
        Some(match m {
            M::Movdqa | M::Movdqu | M::Movaps | M::Movups | M::Movapd | M::Movupd => {
                self.read_wide(i, 1)
            }
            // To an XMM register zero-extended; from one, its low lanes.
            M::Movd | M::Movq => self.read_low(i, 1, if m == M::Movd { 32 } else { 64 }),
            M::Pxor | M::Xorps | M::Xorpd | M::Psubb | M::Psubw | M::Psubd | M::Psubq
                if same_register(i) =>
            {
                Some(0)
            }
            // A register equal to itself in every lane: all ones (the vector `-1` that
            // `paddd` subtracts with).
            M::Pcmpeqb | M::Pcmpeqw | M::Pcmpeqd | M::Pcmpeqq if same_register(i) => {
                Some(u128::MAX)
            }
            M::Pshufd | M::Pshuflw | M::Pshufhw => {
                self.read_wide(i, 1).map(|v| shuffle_words(m, v, imm()))
            }
            M::Psllw
            | M::Pslld
            | M::Psllq
            | M::Psrlw
            | M::Psrld
            | M::Psrlq
            | M::Psraw
            | M::Psrad
                if i.op1_kind() == OpKind::Immediate8 =>
            {
                self.read_wide(i, 0).map(|v| shift(m, v, u64::from(imm())))
            }
            M::Pslldq | M::Psrldq => self.read_wide(i, 0).map(|v| shift_bytes(m, v, imm())),
            M::Pextrw => self
                .read_wide(i, 1)
                .map(|v| (v >> (16 * u32::from(imm() & 7))) & 0xffff),
            M::Pinsrw => {
                let k = 16 * u32::from(imm() & 7);
                both().map(|(a, b)| (a & !(0xffff << k)) | (b & 0xffff) << k)
            }
            M::Pmovmskb | M::Movmskps | M::Movmskpd => {
                self.read_wide(i, 1).map(|v| sign_bits(m, v))
            }
            M::Shufps | M::Shufpd => both().map(|(a, b)| shuffle_pair(m, a, b, imm())),
            M::Movss | M::Movsd if is_sse_move(i) => self.scalar_move(i, m),
            M::Movlps | M::Movlpd | M::Movhps | M::Movhpd | M::Movhlps | M::Movlhps => {
                self.half_move(i, m)
            }
            _ => {
                let f = binary(m)?;
                both().map(|(a, b)| f(a, b))
            }
        })
    }

    /// `movss`/`movsd` with memory: from it the low lane with zeros above, to it the low
    /// lane (between registers: [`Machine::lanes`]).
    fn scalar_move(&self, i: &Instruction, m: Mnemonic) -> Option<u128> {
        self.read_low(i, 1, if m == Mnemonic::Movss { 32 } else { 64 })
    }

    /// The 64-bit halves: `movlps`/`movlpd` and `movhps`/`movhpd` between memory and the low
    /// or high half of a register, `movhlps` (high to low) and `movlhps` (low to high).
    fn half_move(&self, i: &Instruction, m: Mnemonic) -> Option<u128> {
        use Mnemonic as M;
        let low = low_bits(64);
        let source = self.read_wide(i, 1)?;
        if i.op0_kind() == OpKind::Memory {
            return Some(match m {
                M::Movhps | M::Movhpd => source >> 64,
                _ => source & low,
            });
        }
        let old = self.read_wide(i, 0)?;
        Some(match m {
            M::Movlps | M::Movlpd => (old & !low) | (source & low),
            M::Movhlps => (old & !low) | (source >> 64),
            _ => (old & low) | (source << 64),
        })
    }
}

/// The SSE form of `movsd` (not the string move of the same name).
fn is_sse_move(i: &Instruction) -> bool {
    let plain = |k: OpKind| matches!(k, OpKind::Register | OpKind::Memory);
    i.op_count() == 2 && plain(i.op0_kind()) && plain(i.op1_kind())
}

/// The low `bits` of a register.
fn low_bits(bits: u32) -> u128 {
    if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    }
}

fn same_register(i: &Instruction) -> bool {
    i.op_count() == 2
        && i.op0_kind() == OpKind::Register
        && i.op1_kind() == OpKind::Register
        && i.op0_register() == i.op1_register()
}

/// Lane `k` of `bits` bits, unsigned.
fn lane(v: u128, bits: u32, k: u32) -> u128 {
    (v >> (bits * k)) & low_bits(bits)
}

/// Lane `k` of `bits` bits, signed.
fn signed_lane(v: u128, bits: u32, k: u32) -> i128 {
    ((lane(v, bits, k) << (128 - bits)) as i128) >> (128 - bits)
}

/// `f` of each pair of `bits`-bit lanes (signed), its result wrapped to the lane.
fn zip(a: u128, b: u128, bits: u32, f: impl Fn(i128, i128) -> i128) -> u128 {
    (0..128 / bits).fold(0, |out, k| {
        let r = f(signed_lane(a, bits, k), signed_lane(b, bits, k)) as u128;
        out | (r & low_bits(bits)) << (bits * k)
    })
}

/// As [`zip`], the lanes read unsigned.
fn zip_unsigned(a: u128, b: u128, bits: u32, f: impl Fn(i128, i128) -> i128) -> u128 {
    (0..128 / bits).fold(0, |out, k| {
        let r = f(lane(a, bits, k) as i128, lane(b, bits, k) as i128) as u128;
        out | (r & low_bits(bits)) << (bits * k)
    })
}

/// `x` clamped to a `bits`-bit lane, signed or unsigned (the saturating adds and packs).
fn saturate(x: i128, bits: u32, signed: bool) -> i128 {
    let (lo, hi) = match signed {
        true => (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1),
        false => (0, (1i128 << bits) - 1),
    };
    x.clamp(lo, hi)
}

/// All ones in a lane where `holds`.
fn mask_of(holds: bool) -> i128 {
    -i128::from(holds)
}

type Binary = fn(u128, u128) -> u128;

/// The two-operand lane instructions: operand 0 becomes `f(operand 0, operand 1)`.
fn binary(m: Mnemonic) -> Option<Binary> {
    arithmetic(m).or_else(|| bounds(m)).or_else(|| rearrange(m))
}

/// Adds, subtracts and multiplies, wrapping or saturating, and the bitwise operations.
fn arithmetic(m: Mnemonic) -> Option<Binary> {
    use Mnemonic as M;
    Some(match m {
        M::Paddb => |a, b| zip(a, b, 8, |x, y| x + y),
        M::Paddw => |a, b| zip(a, b, 16, |x, y| x + y),
        M::Paddd => |a, b| zip(a, b, 32, |x, y| x + y),
        M::Paddq => |a, b| zip(a, b, 64, |x, y| x + y),
        M::Psubb => |a, b| zip(a, b, 8, |x, y| x - y),
        M::Psubw => |a, b| zip(a, b, 16, |x, y| x - y),
        M::Psubd => |a, b| zip(a, b, 32, |x, y| x - y),
        M::Psubq => |a, b| zip(a, b, 64, |x, y| x - y),
        M::Paddsb => |a, b| zip(a, b, 8, |x, y| saturate(x + y, 8, true)),
        M::Paddsw => |a, b| zip(a, b, 16, |x, y| saturate(x + y, 16, true)),
        M::Psubsb => |a, b| zip(a, b, 8, |x, y| saturate(x - y, 8, true)),
        M::Psubsw => |a, b| zip(a, b, 16, |x, y| saturate(x - y, 16, true)),
        M::Paddusb => |a, b| zip_unsigned(a, b, 8, |x, y| saturate(x + y, 8, false)),
        M::Paddusw => |a, b| zip_unsigned(a, b, 16, |x, y| saturate(x + y, 16, false)),
        M::Psubusb => |a, b| zip_unsigned(a, b, 8, |x, y| saturate(x - y, 8, false)),
        M::Psubusw => |a, b| zip_unsigned(a, b, 16, |x, y| saturate(x - y, 16, false)),
        M::Pmullw => |a, b| zip(a, b, 16, |x, y| x * y),
        M::Pmulhw => |a, b| zip(a, b, 16, |x, y| (x * y) >> 16),
        M::Pmulhuw => |a, b| zip_unsigned(a, b, 16, |x, y| (x * y) >> 16),
        M::Pmulld => |a, b| zip(a, b, 32, |x, y| x * y),
        // The even 32-bit lanes multiplied into 64-bit products.
        M::Pmuludq => |a, b| zip(a, b, 64, |x, y| (x & 0xffff_ffff) * (y & 0xffff_ffff)),
        M::Pmuldq => |a, b| zip(a, b, 64, |x, y| i128::from(x as i32) * i128::from(y as i32)),
        M::Pmaddwd => |a, b| zip(a, b, 32, pair_products),
        M::Pavgb => |a, b| zip_unsigned(a, b, 8, |x, y| (x + y + 1) >> 1),
        M::Pavgw => |a, b| zip_unsigned(a, b, 16, |x, y| (x + y + 1) >> 1),
        M::Psadbw => |a, b| zip(a, b, 64, absolute_differences),
        M::Pand | M::Andps | M::Andpd => |a, b| a & b,
        M::Pandn | M::Andnps | M::Andnpd => |a, b| !a & b,
        M::Por | M::Orps | M::Orpd => |a, b| a | b,
        M::Pxor | M::Xorps | M::Xorpd => |a, b| a ^ b,
        _ => return None,
    })
}

/// `pmaddwd` on one 32-bit lane of each: the sum of the products of its two 16-bit halves.
fn pair_products(x: i128, y: i128) -> i128 {
    let half = |v: i128, k: u32| i128::from((v >> (16 * k)) as i16);
    half(x, 0) * half(y, 0) + half(x, 1) * half(y, 1)
}

/// `psadbw` on one 64-bit lane of each: the sum of the absolute differences of its bytes.
fn absolute_differences(x: i128, y: i128) -> i128 {
    let byte = |v: i128, k: u32| (v >> (8 * k)) & 0xff;
    (0..8).map(|k| (byte(x, k) - byte(y, k)).abs()).sum()
}

/// Minimum, maximum and compares (each lane all ones where the compare holds).
fn bounds(m: Mnemonic) -> Option<Binary> {
    use Mnemonic as M;
    Some(match m {
        M::Pminsb => |a, b| zip(a, b, 8, i128::min),
        M::Pminsw => |a, b| zip(a, b, 16, i128::min),
        M::Pminsd => |a, b| zip(a, b, 32, i128::min),
        M::Pmaxsb => |a, b| zip(a, b, 8, i128::max),
        M::Pmaxsw => |a, b| zip(a, b, 16, i128::max),
        M::Pmaxsd => |a, b| zip(a, b, 32, i128::max),
        M::Pminub => |a, b| zip_unsigned(a, b, 8, i128::min),
        M::Pminuw => |a, b| zip_unsigned(a, b, 16, i128::min),
        M::Pminud => |a, b| zip_unsigned(a, b, 32, i128::min),
        M::Pmaxub => |a, b| zip_unsigned(a, b, 8, i128::max),
        M::Pmaxuw => |a, b| zip_unsigned(a, b, 16, i128::max),
        M::Pmaxud => |a, b| zip_unsigned(a, b, 32, i128::max),
        M::Pcmpeqb => |a, b| zip(a, b, 8, |x, y| mask_of(x == y)),
        M::Pcmpeqw => |a, b| zip(a, b, 16, |x, y| mask_of(x == y)),
        M::Pcmpeqd => |a, b| zip(a, b, 32, |x, y| mask_of(x == y)),
        M::Pcmpeqq => |a, b| zip(a, b, 64, |x, y| mask_of(x == y)),
        M::Pcmpgtb => |a, b| zip(a, b, 8, |x, y| mask_of(x > y)),
        M::Pcmpgtw => |a, b| zip(a, b, 16, |x, y| mask_of(x > y)),
        M::Pcmpgtd => |a, b| zip(a, b, 32, |x, y| mask_of(x > y)),
        M::Pcmpgtq => |a, b| zip(a, b, 64, |x, y| mask_of(x > y)),
        _ => return None,
    })
}

/// Interleaving, packing with saturation, and shifts by a count in a register.
fn rearrange(m: Mnemonic) -> Option<Binary> {
    use Mnemonic as M;
    Some(match m {
        M::Punpcklbw => |a, b| interleave(a, b, 8, 0),
        M::Punpcklwd => |a, b| interleave(a, b, 16, 0),
        M::Punpckldq | M::Unpcklps => |a, b| interleave(a, b, 32, 0),
        M::Punpcklqdq | M::Unpcklpd => |a, b| interleave(a, b, 64, 0),
        M::Punpckhbw => |a, b| interleave(a, b, 8, 1),
        M::Punpckhwd => |a, b| interleave(a, b, 16, 1),
        M::Punpckhdq | M::Unpckhps => |a, b| interleave(a, b, 32, 1),
        M::Punpckhqdq | M::Unpckhpd => |a, b| interleave(a, b, 64, 1),
        M::Packsswb => |a, b| pack(a, b, 16, true),
        M::Packuswb => |a, b| pack(a, b, 16, false),
        M::Packssdw => |a, b| pack(a, b, 32, true),
        M::Packusdw => |a, b| pack(a, b, 32, false),
        M::Psllw => |a, b| shift(M::Psllw, a, b as u64),
        M::Pslld => |a, b| shift(M::Pslld, a, b as u64),
        M::Psllq => |a, b| shift(M::Psllq, a, b as u64),
        M::Psrlw => |a, b| shift(M::Psrlw, a, b as u64),
        M::Psrld => |a, b| shift(M::Psrld, a, b as u64),
        M::Psrlq => |a, b| shift(M::Psrlq, a, b as u64),
        M::Psraw => |a, b| shift(M::Psraw, a, b as u64),
        M::Psrad => |a, b| shift(M::Psrad, a, b as u64),
        _ => return None,
    })
}

/// `punpckl*` (`half` 0) and `punpckh*` (1): the lanes of one half of each, `a0 b0 a1 b1...`.
fn interleave(a: u128, b: u128, bits: u32, half: u32) -> u128 {
    let n = 64 / bits;
    (0..n).fold(0, |out, k| {
        let (x, y) = (lane(a, bits, half * n + k), lane(b, bits, half * n + k));
        out | x << (2 * k * bits) | y << ((2 * k + 1) * bits)
    })
}

/// `packss*`/`packus*`: the `bits`-bit signed lanes of `a` then `b`, each saturated to half
/// the width.
fn pack(a: u128, b: u128, bits: u32, signed: bool) -> u128 {
    let n = 128 / bits;
    let half = bits / 2;
    (0..2 * n).fold(0, |out, k| {
        let x = match k < n {
            true => signed_lane(a, bits, k),
            false => signed_lane(b, bits, k - n),
        };
        out | ((saturate(x, half, signed) as u128) & low_bits(half)) << (half * k)
    })
}

/// The shifts of each lane by `count` (an immediate or a register's low 64 bits): logical
/// ones past the lane's width give 0, arithmetic ones the sign.
fn shift(m: Mnemonic, v: u128, count: u64) -> u128 {
    use Mnemonic as M;
    let bits = match m {
        M::Psllw | M::Psrlw | M::Psraw => 16,
        M::Pslld | M::Psrld | M::Psrad => 32,
        _ => 64,
    };
    let past = count >= u64::from(bits);
    let by = count.min(u64::from(bits) - 1) as u32;
    match m {
        _ if past && !matches!(m, M::Psraw | M::Psrad) => 0,
        M::Psllw | M::Pslld | M::Psllq => zip_unsigned(v, 0, bits, |x, _| x << by),
        M::Psrlw | M::Psrld | M::Psrlq => zip_unsigned(v, 0, bits, |x, _| x >> by),
        _ => zip(v, 0, bits, |x, _| x >> by),
    }
}

/// `pslldq`/`psrldq`: the whole register shifted by bytes.
fn shift_bytes(m: Mnemonic, v: u128, count: u8) -> u128 {
    match (count >= 16, m) {
        (true, _) => 0,
        (false, Mnemonic::Pslldq) => v << (8 * u32::from(count)),
        (false, _) => v >> (8 * u32::from(count)),
    }
}

/// `pshufd`: lane `k` of the result is the 32-bit source lane the 2 bits `k` of `order` name;
/// `pshuflw`/`pshufhw` the same on the 16-bit lanes of the low or high half, the other half
/// copied.
fn shuffle_words(m: Mnemonic, v: u128, order: u8) -> u128 {
    let pick = |k: u32| u32::from((order >> (2 * k)) & 3);
    match m {
        Mnemonic::Pshufd => (0..4).fold(0, |out, k| out | lane(v, 32, pick(k)) << (32 * k)),
        _ => {
            let base = if m == Mnemonic::Pshuflw { 0 } else { 4 };
            let kept = v & !(low_bits(64) << (16 * base));
            (0..4).fold(kept, |out, k| {
                out | lane(v, 16, base + pick(k)) << (16 * (base + k))
            })
        }
    }
}

/// `shufps`: the low two lanes from `a`, the high two from `b`, each chosen by 2 bits of
/// `order`; `shufpd`: one 64-bit lane of each by 1 bit.
fn shuffle_pair(m: Mnemonic, a: u128, b: u128, order: u8) -> u128 {
    if m == Mnemonic::Shufpd {
        return lane(a, 64, u32::from(order & 1)) | lane(b, 64, u32::from(order >> 1 & 1)) << 64;
    }
    let pick = |k: u32| u32::from((order >> (2 * k)) & 3);
    (0..4).fold(0, |out, k| {
        let from = if k < 2 { a } else { b };
        out | lane(from, 32, pick(k)) << (32 * k)
    })
}

/// `pmovmskb` (16 byte lanes), `movmskps` (4), `movmskpd` (2): each lane's sign bit, lane 0
/// lowest.
fn sign_bits(m: Mnemonic, v: u128) -> u128 {
    let bits: u32 = match m {
        Mnemonic::Pmovmskb => 8,
        Mnemonic::Movmskps => 32,
        _ => 64,
    };
    (0..128 / bits).fold(0u128, |out, k| out | (lane(v, bits, k) >> (bits - 1)) << k)
}
