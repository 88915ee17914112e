//! SSE2 integer lanes: the vector induction variables of vectorised loops. gcc -O3 keeps a
//! loop's counter as `{i, i+1, i+2, i+3}` in an XMM register (`paddd` by a constant from
//! `.rodata` each pass) when the body reads the counter's value, and takes the scalar
//! epilogue's start from its last lane (`pshufd $0xff; movd %xmm0, %eax`). The runs follow
//! those moves and lane additions; any other write to an XMM register leaves it unknown.

use iced_x86::{Instruction, Mnemonic, OpKind, Register};

use super::{mask, Machine};

/// Bytes of an XMM register.
const WIDTH: u32 = 16;

impl Machine {
    /// The value of XMM register `r` (any width of it), when known.
    pub(super) fn vector(&self, r: Register) -> Option<u128> {
        self.vectors.get(r.full_register())
    }

    fn set_vector(&mut self, r: Register, v: Option<u128>) {
        self.vectors.set(r.full_register(), v);
    }

    /// `n` bytes (up to 16) at `address` as an integer, when all are known.
    fn load_wide(&self, address: u64, n: u32) -> Option<u128> {
        let low = self.memory.load(address, n.min(8))?;
        let high = match n > 8 {
            true => self.memory.load(address.wrapping_add(8), n - 8)?,
            false => 0,
        };
        Some(u128::from(low) | u128::from(high) << 64)
    }

    fn store_wide(&mut self, address: u64, v: Option<u128>, n: u32) {
        self.memory.store(address, v.map(|v| v as u64), n.min(8));
        if n > 8 {
            let high = v.map(|v| (v >> 64) as u64);
            self.memory.store(address.wrapping_add(8), high, n - 8);
        }
    }

    /// Operand `k` as up to 128 bits: an XMM register, memory, or a general register.
    fn read_wide(&self, i: &Instruction, k: u32) -> Option<u128> {
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
    fn write_wide(&mut self, i: &Instruction, v: Option<u128>) {
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
        use Mnemonic as M;
        let m = i.mnemonic();
        let v = match m {
            M::Movdqa | M::Movdqu | M::Movaps | M::Movups | M::Movapd | M::Movupd => {
                self.read_wide(i, 1)
            }
            // To an XMM register zero-extended; from one, its low lanes.
            M::Movd | M::Movq => {
                let bits = if m == M::Movd { 32 } else { 64 };
                self.read_wide(i, 1).map(|v| v & ((1u128 << bits) - 1))
            }
            M::Paddd | M::Psubd | M::Paddq | M::Psubq => {
                let (a, b) = (self.read_wide(i, 0), self.read_wide(i, 1));
                a.zip(b).map(|(a, b)| lanewise(m, a, b))
            }
            M::Pshufd => self
                .read_wide(i, 1)
                .map(|v| shuffle(v, i.immediate(2) as u8)),
            M::Pxor | M::Xorps | M::Xorpd if same_register(i) => Some(0),
            // A register equal to itself in every lane: all ones (the vector `-1` that
            // `paddd` subtracts with).
            M::Pcmpeqb | M::Pcmpeqw | M::Pcmpeqd | M::Pcmpeqq if same_register(i) => {
                Some(u128::MAX)
            }
            M::Pxor | M::Pand | M::Por | M::Pandn => {
                let (a, b) = (self.read_wide(i, 0), self.read_wide(i, 1));
                a.zip(b).map(|(a, b)| match m {
                    M::Pxor => a ^ b,
                    M::Pand => a & b,
                    M::Pandn => !a & b,
                    _ => a | b,
                })
            }
            // Lane masks: clang's vectorised loops that store only the lanes below the trip
            // (`pcmpgtd` of the counter vector with the bound, one lane's bit tested per store).
            M::Pcmpeqb
            | M::Pcmpeqw
            | M::Pcmpeqd
            | M::Pcmpeqq
            | M::Pcmpgtb
            | M::Pcmpgtw
            | M::Pcmpgtd
            | M::Pcmpgtq => {
                let (a, b) = (self.read_wide(i, 0), self.read_wide(i, 1));
                a.zip(b).map(|(a, b)| compare_lanes(m, a, b))
            }
            M::Pextrw => self.read_wide(i, 1).map(|v| {
                let k = u32::from(i.immediate(2) as u8 & 7);
                (v >> (16 * k)) & 0xffff
            }),
            M::Pmovmskb | M::Movmskps | M::Movmskpd => {
                self.read_wide(i, 1).map(|v| sign_bits(m, v))
            }
            M::Punpckldq | M::Punpcklqdq => {
                let (a, b) = (self.read_wide(i, 0), self.read_wide(i, 1));
                a.zip(b).map(|(a, b)| unpack_low(m == M::Punpckldq, a, b))
            }
            _ => {
                if i.op_count() > 0 && i.op0_kind() == OpKind::Register {
                    let r = i.op0_register();
                    if r.is_xmm() || r.is_ymm() || r.is_zmm() {
                        self.set_vector(r, None);
                    }
                }
                return false;
            }
        };
        self.write_wide(i, v);
        true
    }
}

fn same_register(i: &Instruction) -> bool {
    i.op_count() == 2
        && i.op0_kind() == OpKind::Register
        && i.op1_kind() == OpKind::Register
        && i.op0_register() == i.op1_register()
}

/// `paddd`/`psubd` (four 32-bit lanes) and `paddq`/`psubq` (two 64-bit lanes), wrapping.
fn lanewise(m: Mnemonic, a: u128, b: u128) -> u128 {
    let (bits, lanes) = match m {
        Mnemonic::Paddd | Mnemonic::Psubd => (32, 4),
        _ => (64, 2),
    };
    let lane_mask = (1u128 << bits) - 1;
    let mut out = 0u128;
    for k in 0..lanes {
        let (x, y) = ((a >> (bits * k)) & lane_mask, (b >> (bits * k)) & lane_mask);
        let r = match m {
            Mnemonic::Paddd | Mnemonic::Paddq => x.wrapping_add(y),
            _ => x.wrapping_sub(y),
        } & lane_mask;
        out |= r << (bits * k);
    }
    out
}

/// `pcmpeq*`/`pcmpgt*` (signed): all ones in each lane where the compare holds.
fn compare_lanes(m: Mnemonic, a: u128, b: u128) -> u128 {
    use Mnemonic as M;
    let bits: u32 = match m {
        M::Pcmpeqb | M::Pcmpgtb => 8,
        M::Pcmpeqw | M::Pcmpgtw => 16,
        M::Pcmpeqd | M::Pcmpgtd => 32,
        _ => 64,
    };
    let greater = matches!(m, M::Pcmpgtb | M::Pcmpgtw | M::Pcmpgtd | M::Pcmpgtq);
    let lane_mask = u128::MAX >> (128 - bits);
    // Lane `k` as a signed value: shifted to the top of an i128 and back.
    let signed = |v: u128, k: u32| (((v >> (bits * k)) & lane_mask) << (128 - bits)) as i128;
    (0..128 / bits).fold(0u128, |out, k| {
        let (x, y) = (signed(a, k), signed(b, k));
        let holds = if greater { x > y } else { x == y };
        out | if holds { lane_mask << (bits * k) } else { 0 }
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
    (0..128 / bits).fold(0u128, |out, k| {
        out | ((v >> (bits * k + bits - 1)) & 1) << k
    })
}

/// `pshufd`: lane `k` of the result is the source lane the 2 bits `k` of `order` name.
fn shuffle(v: u128, order: u8) -> u128 {
    let lane = |k: u32| (v >> (32 * k)) & 0xffff_ffff;
    (0..4).fold(0u128, |out, k| {
        out | lane(u32::from((order >> (2 * k)) & 3)) << (32 * k)
    })
}

/// `punpckldq` (`a0 b0 a1 b1`, 32-bit lanes) and `punpcklqdq` (`a0 b0`, 64-bit lanes).
fn unpack_low(dwords: bool, a: u128, b: u128) -> u128 {
    if dwords {
        let lane = |v: u128, k: u32| (v >> (32 * k)) & 0xffff_ffff;
        lane(a, 0) | lane(b, 0) << 32 | lane(a, 1) << 64 | lane(b, 1) << 96
    } else {
        (a & u128::from(u64::MAX)) | (b & u128::from(u64::MAX)) << 64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lanes(v: [u32; 4]) -> u128 {
        v.iter()
            .enumerate()
            .fold(0, |out, (k, &x)| out | u128::from(x) << (32 * k))
    }

    #[test]
    fn lanes_add_and_shuffle_as_the_manual_says() {
        let a = lanes([1, 2, 3, u32::MAX]);
        let b = lanes([4, 4, 4, 1]);
        assert_eq!(lanewise(Mnemonic::Paddd, a, b), lanes([5, 6, 7, 0]));
        assert_eq!(lanewise(Mnemonic::Psubd, b, a), lanes([3, 2, 1, 2]));
        // `pshufd $0xff`: the last lane everywhere; `$0x1b`: reversed; `$0`: broadcast.
        assert_eq!(shuffle(a, 0xff), lanes([u32::MAX; 4]));
        assert_eq!(shuffle(a, 0x1b), lanes([u32::MAX, 3, 2, 1]));
        assert_eq!(shuffle(a, 0), lanes([1; 4]));
        assert_eq!(unpack_low(true, a, b), lanes([1, 4, 2, 4]));
        assert_eq!(unpack_low(false, a, b), lanes([1, 2, 4, 4]));
    }

    #[test]
    fn lane_compares_are_signed_and_masks_take_the_sign_bits() {
        // Intel SDM, PCMPGTD: signed; `u32::MAX` is -1, below 2.
        let a = lanes([5, u32::MAX, 3, 0x8000_0000]);
        let b = lanes([4, 2, 3, 0]);
        let gt = compare_lanes(Mnemonic::Pcmpgtd, a, b);
        assert_eq!(gt, lanes([u32::MAX, 0, 0, 0]));
        assert_eq!(
            compare_lanes(Mnemonic::Pcmpeqd, a, b),
            lanes([0, 0, u32::MAX, 0])
        );
        // 64-bit lanes: {5 | -1 << 32, 3 | 0x8000_0000 << 32} against {4 | 2 << 32, 3}.
        assert_eq!(compare_lanes(Mnemonic::Pcmpgtq, a, b), lanes([0, 0, 0, 0]));
        assert_eq!(compare_lanes(Mnemonic::Pcmpgtq, b, a), u128::MAX);
        // MOVMSKPS: lane k's bit 31 to bit k.
        assert_eq!(sign_bits(Mnemonic::Movmskps, a), 0b1010);
        assert_eq!(sign_bits(Mnemonic::Movmskpd, a), 0b11);
        assert_eq!(sign_bits(Mnemonic::Pmovmskb, gt), 0b1111);
    }
}
