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
            M::Pxor | M::Pand | M::Por => {
                let (a, b) = (self.read_wide(i, 0), self.read_wide(i, 1));
                a.zip(b).map(|(a, b)| match m {
                    M::Pxor => a ^ b,
                    M::Pand => a & b,
                    _ => a | b,
                })
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
}
