//! AVX's 256-bit YMM registers: bits 128-255 are kept apart (`Machine::upper`), since SSE
//! code never reads them. Most 256-bit instructions do their SSE form on each 128-bit half
//! alone (Intel SDM Vol. 1, 14.1: "in-lane" operation), so each is run twice, on the low
//! halves and on the high ones ([`Machine::by_halves`]); the few that move data across the
//! halves (broadcasts, `vextractf128`, `vinsertf128`, `vperm2f128`, `vpermq`) are done here.
//! clang -O2 `-march=haswell` fills an image in `main` with 8-wide `vcvtdq2ps`, and a branch
//! on that image later reads what these runs stored.

use std::sync::OnceLock;

use iced_x86::{Instruction, Mnemonic, OpKind, Register};

use super::lanes::Lanes;
use super::Machine;

/// The XMM register that is the low half of `r` (`r` itself when it is not a YMM register).
pub(super) fn low_half(r: Register) -> Register {
    static XMM: OnceLock<Vec<Register>> = OnceLock::new();
    let xmm = XMM.get_or_init(|| Register::values().filter(|r| r.is_xmm()).collect());
    match r.is_ymm() {
        true => xmm.get(r.number()).copied().unwrap_or(r),
        false => r,
    }
}

/// The 256-bit value of a register or of memory: its low and high 128 bits.
type Wide = [u128; 2];

impl Machine {
    /// Bits 128-255 of vector register `r`, when all are known.
    fn upper_value(&self, r: Register) -> Option<u128> {
        self.upper.get(r.full_register())?.value()
    }

    /// Operand `k` of 256 bits (a YMM register or 32 bytes of memory), or of 128 (an XMM
    /// register or 16 bytes) in the low half.
    fn read_ymm(&self, i: &Instruction, k: u32) -> Option<Wide> {
        match i.op_kind(k) {
            OpKind::Register if i.op_register(k).is_ymm() => {
                let r = i.op_register(k);
                Some([self.vector(low_half(r))?, self.upper_value(r)?])
            }
            OpKind::Register => Some([self.vector(i.op_register(k))?, 0]),
            OpKind::Memory => {
                let a = self.address(i)?;
                let n = i.memory_size().size() as u32;
                let high = match n > 16 {
                    true => self.load_wide(a.wrapping_add(16), n - 16)?,
                    false => 0,
                };
                Some([self.load_wide(a, n.min(16))?, high])
            }
            _ => None,
        }
    }

    /// Writes operand 0: a YMM register whole, an XMM register (its upper half cleared, as
    /// any VEX instruction does) or 16 or 32 bytes of memory.
    fn write_ymm(&mut self, i: &Instruction, v: Option<Wide>) {
        match i.op0_kind() {
            OpKind::Register => {
                let r = i.op0_register();
                self.set_vector(low_half(r), v.map(|v| v[0]));
                let high = match r.is_ymm() {
                    true => v.map(|v| Lanes::known(v[1])),
                    false => Some(Lanes::known(0)),
                };
                self.upper.set(r.full_register(), high);
            }
            OpKind::Memory => {
                let Some(a) = self.address(i) else { return };
                let n = i.memory_size().size() as u32;
                self.store_wide(a, v.map(|v| v[0]), n.min(16));
                if n > 16 {
                    self.store_wide(a.wrapping_add(16), v.map(|v| v[1]), n - 16);
                }
            }
            _ => {}
        }
    }

    /// A VEX instruction on XMM registers clears bits 128-255 of its destination.
    pub(super) fn clear_upper(&mut self, i: &Instruction) {
        if i.op0_kind() == OpKind::Register && i.op0_register().is_xmm() {
            let r = i.op0_register().full_register();
            self.upper.set(r, Some(Lanes::known(0)));
        }
    }

    /// `each` (an in-lane instruction on XMM registers) on the low halves of 256-bit `i`'s
    /// operands, then on the high halves; false, the destination unknown, unless both were
    /// followed.
    pub(super) fn by_halves(
        &mut self,
        i: &Instruction,
        each: &dyn Fn(&mut Machine, &Instruction) -> bool,
    ) -> bool {
        let mut low = *i;
        let mut swapped = Vec::new();
        for k in 0..i.op_count() {
            if i.op_kind(k) == OpKind::Register && i.op_register(k).is_ymm() {
                low.set_op_register(k, low_half(i.op_register(k)));
                swapped.push(i.op_register(k).full_register());
            }
        }
        swapped.sort();
        swapped.dedup();
        let mut high = low;
        high.set_memory_displacement64(i.memory_displacement64().wrapping_add(16));
        let done = each(self, &low) && {
            self.swap_halves(&swapped);
            let done = each(self, &high);
            self.swap_halves(&swapped);
            done
        };
        if !done {
            self.forget_vector_destination(i);
        }
        done
    }

    fn swap_halves(&mut self, registers: &[Register]) {
        for &r in registers {
            let (low, high) = (self.vectors.get(r), self.upper.get(r));
            self.vectors.set(r, high);
            self.upper.set(r, low);
        }
    }

    /// The instructions that move data across the 128-bit halves; `None` when `i` is none
    /// of them, else whether it was followed.
    pub(super) fn across_halves(&mut self, i: &Instruction) -> Option<bool> {
        use Mnemonic as M;
        let m = i.mnemonic();
        let imm = || i.immediate(i.op_count() - 1) as u8;
        let v: Option<Wide> = match m {
            M::Vzeroupper | M::Vzeroall => {
                self.zero_upper(m == M::Vzeroall);
                return Some(true);
            }
            M::Vbroadcastss | M::Vpbroadcastd => self.broadcast(i, 32),
            M::Vbroadcastsd | M::Vpbroadcastq => self.broadcast(i, 64),
            M::Vpbroadcastb => self.broadcast(i, 8),
            M::Vpbroadcastw => self.broadcast(i, 16),
            M::Vbroadcastf128 | M::Vbroadcasti128 => self.read_ymm(i, 1).map(|v| [v[0], v[0]]),
            M::Vextractf128 | M::Vextracti128 => {
                self.read_ymm(i, 1).map(|v| [v[usize::from(imm() & 1)], 0])
            }
            M::Vinsertf128 | M::Vinserti128 => {
                let (a, b) = (self.read_ymm(i, 1), self.read_ymm(i, 2));
                a.zip(b).map(|(mut a, b)| {
                    a[usize::from(imm() & 1)] = b[0];
                    a
                })
            }
            M::Vperm2f128 | M::Vperm2i128 => {
                let (a, b) = (self.read_ymm(i, 1), self.read_ymm(i, 2));
                a.zip(b).map(|(a, b)| {
                    let pick = |c: u8| match (c & 8 != 0, c & 3) {
                        (true, _) => 0,
                        (_, 0) => a[0],
                        (_, 1) => a[1],
                        (_, 2) => b[0],
                        _ => b[1],
                    };
                    [pick(imm()), pick(imm() >> 4)]
                })
            }
            M::Vpermq | M::Vpermpd if i.op_count() == 3 => {
                self.read_ymm(i, 1).map(|v| permute_quads(v, imm()))
            }
            _ => return None,
        };
        // A store of an extracted half writes 16 bytes, not the register's upper half.
        self.write_ymm(i, v);
        Some(v.is_some())
    }

    /// `vzeroupper` clears bits 128-255 of every vector register; `vzeroall` all of them.
    fn zero_upper(&mut self, all: bool) {
        for r in Register::values().filter(|r| r.is_zmm()) {
            self.upper.set(r, Some(Lanes::known(0)));
            if all {
                self.vectors.set(r, Some(Lanes::known(0)));
            }
        }
    }

    /// The low `bits` of operand 1 in every lane of the destination's width.
    fn broadcast(&self, i: &Instruction, bits: u32) -> Option<Wide> {
        let x = self.read_low(i, 1, bits)?;
        let lane = (0..128 / bits).fold(0u128, |v, k| v | x << (bits * k));
        Some([lane, lane])
    }
}

/// `vpermq`: quadword `k` of the result is quadword `imm[2k+1:2k]` of `v`.
fn permute_quads(v: Wide, imm: u8) -> Wide {
    let quad = |q: u8| (v[usize::from(q / 2)] >> (64 * u32::from(q % 2))) as u64;
    let at = |k: u32| u128::from(quad((imm >> (2 * k)) & 3));
    [at(0) | at(1) << 64, at(2) | at(3) << 64]
}

#[cfg(test)]
mod tests {
    use super::*;
    use iced_x86::Code as C;
    use iced_x86::MemoryOperand;
    use iced_x86::Register::{EAX, RSP, XMM1, XMM2, XMM4, YMM0, YMM1, YMM3, YMM5};

    fn run(m: &mut Machine, i: Instruction) {
        m.execute(&crate::binary::Instruction::bare(i));
    }

    /// Four 32-bit lanes, `lanes[0]` lowest.
    fn dwords(lanes: [u32; 4]) -> u128 {
        (0..4).fold(0, |v, k| v | u128::from(lanes[k]) << (32 * k))
    }

    /// A machine whose `ymm1` holds the dwords `first` to `first + 7`.
    fn counting_in_ymm1(first: u32) -> Machine {
        let mut m = Machine::at_entry(&[]);
        let from = |k: u32| dwords([k, k + 1, k + 2, k + 3]);
        m.set_vector(XMM1, Some(from(first)));
        m.upper
            .set(YMM1.full_register(), Some(Lanes::known(from(first + 4))));
        m
    }

    fn stack(offset: i64) -> MemoryOperand {
        MemoryOperand::with_base_displ(RSP, offset)
    }

    /// clang -O2 -march=haswell's image fill: eight integers to floats in one `vcvtdq2ps`, a
    /// 32-byte store, and one pixel read back as a scalar: lane 5 is 5.0.
    #[test]
    fn an_eight_wide_conversion_stores_both_halves() {
        let mut m = counting_in_ymm1(0);
        let convert = Instruction::with2(C::VEX_Vcvtdq2ps_ymm_ymmm256, YMM0, YMM1).unwrap();
        let store = Instruction::with2(C::VEX_Vmovups_ymmm256_ymm, stack(-64), YMM0).unwrap();
        let load = Instruction::with2(C::VEX_Vmovss_xmm_m32, XMM2, stack(-64 + 20)).unwrap();
        let back = Instruction::with2(C::VEX_Vcvttss2si_r32_xmmm32, EAX, XMM2).unwrap();
        for i in [convert, store, load, back] {
            run(&mut m, i);
        }
        assert_eq!(m.register(EAX), Some(5));
        // The scalar load cleared the upper half of ymm2 (VEX), and knows it.
        assert_eq!(m.upper_value(XMM2), Some(0));
    }

    /// A broadcast fills both halves; `vextractf128 1` takes the high one; `vperm2f128`
    /// swaps them (imm 0x01) or zeroes one (bit 3); `vpermq` reverses the quadwords.
    #[test]
    fn data_moved_across_the_halves_lands_where_the_sdm_says() {
        let mut m = counting_in_ymm1(1);
        let splat = Instruction::with2(C::VEX_Vpbroadcastd_ymm_xmmm32, YMM3, XMM1).unwrap();
        run(&mut m, splat);
        assert_eq!(m.vector(YMM3), Some(dwords([1; 4])));
        assert_eq!(m.upper_value(YMM3), Some(dwords([1; 4])));
        let extract =
            Instruction::with3(C::VEX_Vextracti128_xmmm128_ymm_imm8, XMM4, YMM1, 1).unwrap();
        run(&mut m, extract);
        assert_eq!(m.vector(XMM4), Some(dwords([5, 6, 7, 8])));
        let swap = C::VEX_Vperm2i128_ymm_ymm_ymmm256_imm8;
        run(
            &mut m,
            Instruction::with4(swap, YMM5, YMM1, YMM1, 0x01).unwrap(),
        );
        assert_eq!(m.vector(YMM5), Some(dwords([5, 6, 7, 8])));
        assert_eq!(m.upper_value(YMM5), Some(dwords([1, 2, 3, 4])));
        run(
            &mut m,
            Instruction::with4(swap, YMM5, YMM1, YMM1, 0x80).unwrap(),
        );
        assert_eq!(m.upper_value(YMM5), Some(0));
        let reverse = Instruction::with3(C::VEX_Vpermq_ymm_ymmm256_imm8, YMM0, YMM1, 0x1b).unwrap();
        run(&mut m, reverse);
        assert_eq!(m.vector(YMM0), Some(dwords([7, 8, 5, 6])));
        assert_eq!(m.upper_value(YMM0), Some(dwords([3, 4, 1, 2])));
    }

    /// `vpaddd ymm0, ymm1, ymm0` adds each half alone, the destination also a source; a
    /// blend of 256 bits (whose immediate has other bits for the high half) is not followed.
    #[test]
    fn an_in_lane_instruction_is_done_on_each_half() {
        let mut m = counting_in_ymm1(1);
        run(
            &mut m,
            Instruction::with2(C::VEX_Vmovdqa_ymm_ymmm256, YMM0, YMM1).unwrap(),
        );
        let add = Instruction::with3(C::VEX_Vpaddd_ymm_ymm_ymmm256, YMM0, YMM1, YMM0).unwrap();
        run(&mut m, add);
        assert_eq!(m.vector(YMM0), Some(dwords([2, 4, 6, 8])));
        assert_eq!(m.upper_value(YMM0), Some(dwords([10, 12, 14, 16])));
        let blend = C::VEX_Vblendps_ymm_ymm_ymmm256_imm8;
        run(
            &mut m,
            Instruction::with4(blend, YMM0, YMM1, YMM0, 0xf0).unwrap(),
        );
        assert_eq!((m.vector(YMM0), m.upper_value(YMM0)), (None, None));
        run(&mut m, Instruction::with(C::VEX_Vzeroupper));
        assert_eq!(m.upper_value(YMM1), Some(0));
        assert_eq!(m.vector(XMM1), Some(dwords([1, 2, 3, 4])));
    }
}
