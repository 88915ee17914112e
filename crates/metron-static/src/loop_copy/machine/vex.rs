//! AVX's VEX encoding of the SSE instructions. With `-march=haswell` every scalar and 128-bit
//! instruction is a VEX form (`vcomiss`, `vaddss xmm0, xmm1, xmm2`, `vcvtsi2sd xmm0, xmm0,
//! eax`), and a run that did not follow them stopped at the first branch on floating-point
//! data. A VEX form of an SSE instruction keeps its opcode map, mandatory prefix and opcode
//! (Intel SDM Vol. 2, 2.3.5); where it has an extra source (`VEX.vvvv`), the destination is
//! the first source and the SSE operation is done on a copy of it ("non-destructive"). So each
//! such instruction is run as its SSE form, the destination first set to the first source;
//! the bits past 128 it clears are cleared in `Machine::upper`. A 256-bit form is its SSE
//! form on each half ([`super::ymm`]). Compare predicates past the SSE ones (8-31) are not
//! followed. The FMA3 instructions, which have no SSE form, are done here (single precision
//! rounded twice, through double: the exact product fits a double, the sum is rounded to
//! double and then to single, which differs from one rounding only on ties of the second).

use std::collections::HashMap;
use std::sync::OnceLock;

use iced_x86::{Code, EncodingKind, Instruction, Mnemonic, OpCodeOperandKind, OpKind, Register};

use super::float::Precision;
use super::Machine;

/// An SSE instruction's shape: what a VEX form must share with it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Shape {
    table: iced_x86::OpCodeTableKind,
    prefix: iced_x86::MandatoryPrefix,
    op_code: u32,
    group: i32,
    operands: Vec<OpCodeOperandKind>,
    /// The mnemonic's name without AVX's leading `v`: a second check that the two are one
    /// operation.
    name: String,
}

/// Whether an operand kind is `VEX.vvvv`, the extra source.
fn is_extra_source(k: OpCodeOperandKind) -> bool {
    use OpCodeOperandKind as K;
    matches!(k, K::xmm_vvvv | K::ymm_vvvv | K::r32_vvvv | K::r64_vvvv)
}

/// An XMM operand that is only a register or only memory as the one that may be either: VEX
/// splits `movss xmm, xmm/m32` in two (`vmovss xmm, xmm, xmm` and `vmovss xmm, m32`); a YMM
/// operand as the XMM one of its half.
fn register_or_memory(k: OpCodeOperandKind) -> OpCodeOperandKind {
    use OpCodeOperandKind as K;
    match k {
        K::xmm_rm | K::mem | K::ymm_rm | K::ymm_or_mem => K::xmm_or_mem,
        K::ymm_reg => K::xmm_reg,
        k => k,
    }
}

fn is_wide(k: OpCodeOperandKind) -> bool {
    format!("{k:?}").starts_with("ymm") || format!("{k:?}").starts_with("zmm")
}

/// The shape of `code`, for a 64-bit SSE code or a VEX code (a 256-bit one as the SSE form
/// it does on each half: [`in_lane`]).
fn shape(code: Code) -> Option<Shape> {
    let info = code.op_code();
    if !info.mode64() || !info.is_instruction() {
        return None;
    }
    let kinds = || (0..info.op_count()).map(|k| info.op_kind(k));
    let name = format!("{:?}", code.mnemonic()).to_lowercase();
    let name = match info.encoding() {
        EncodingKind::Legacy => name,
        EncodingKind::VEX if !kinds().any(is_wide) => name.strip_prefix('v')?.to_string(),
        EncodingKind::VEX if in_lane(code) => name.strip_prefix('v')?.to_string(),
        _ => return None,
    };
    Some(Shape {
        table: info.table(),
        prefix: info.mandatory_prefix(),
        op_code: info.op_code(),
        group: info.group_index(),
        operands: kinds()
            .filter(|&k| !is_extra_source(k))
            .map(register_or_memory)
            .collect(),
        name,
    })
}

/// Whether 256-bit `code` is its SSE form done on each 128-bit half alone: every vector
/// operand 256 bits wide (`vcvtps2pd ymm, xmm` spreads one half over two), the destination a
/// vector (`vpmovmskb r32, ymm` gathers both halves, `vptest` sets flags from both), and not
/// a blend or `vmpsadbw`, whose immediate has other bits for the high half.
fn in_lane(code: Code) -> bool {
    use OpCodeOperandKind as K;
    let info = code.op_code();
    let kinds: Vec<OpCodeOperandKind> = (0..info.op_count()).map(|k| info.op_kind(k)).collect();
    let narrow = kinds.iter().any(|&k| format!("{k:?}").starts_with("xmm"));
    let into_vector = matches!(
        kinds.first(),
        Some(K::ymm_reg | K::ymm_rm | K::ymm_or_mem | K::mem)
    );
    let other_bits = matches!(
        code.mnemonic(),
        Mnemonic::Vblendps | Mnemonic::Vblendpd | Mnemonic::Vmpsadbw | Mnemonic::Vptest
    );
    !narrow && into_vector && !other_bits
}

/// Each VEX code that is the form of an SSE code, with that code.
fn sse_forms() -> &'static HashMap<Code, Code> {
    static FORMS: OnceLock<HashMap<Code, Code>> = OnceLock::new();
    FORMS.get_or_init(|| {
        let legacy = |c: &Code| c.op_code().encoding() == EncodingKind::Legacy;
        let mut by_shape: HashMap<Shape, Code> = HashMap::new();
        for c in Code::values().filter(legacy) {
            if let Some(s) = shape(c) {
                by_shape.entry(s).or_insert(c);
            }
        }
        Code::values()
            .filter(|c| c.op_code().encoding() == EncodingKind::VEX)
            .filter_map(|c| Some((c, *by_shape.get(&shape(c)?)?)))
            .collect()
    })
}

/// Where the SSE form's operand 1 comes from when the VEX form's operand 2 is the
/// destination: a register no SSE or AVX2 code names.
const SCRATCH: Register = Register::XMM31;

impl Machine {
    /// `i` when it is a VEX form of an SSE instruction, an FMA3 one, or one that moves data
    /// across the halves of a YMM register: false when it is none or is not followed (its
    /// vector destination then unknown).
    pub(super) fn vex(&mut self, i: &Instruction) -> bool {
        if i.encoding() != EncodingKind::VEX {
            return false;
        }
        if let Some(done) = self.across_halves(i) {
            return done;
        }
        let wide = (0..i.op_count())
            .any(|k| i.op_kind(k) == OpKind::Register && i.op_register(k).is_ymm());
        if wide {
            return self.by_halves(i, &|m, half| m.in_lane(half));
        }
        let done = self.in_lane(i);
        self.clear_upper(i);
        done
    }

    /// [`Machine::vex`] on XMM registers (or one half of YMM ones).
    fn in_lane(&mut self, i: &Instruction) -> bool {
        if self.fused(i) {
            return true;
        }
        let Some(&code) = sse_forms().get(&i.code()) else {
            return false;
        };
        let extra = i.op_count() == code.op_code().op_count() + 1;
        if is_compare(code) && i.immediate(i.op_count() - 1) > 7 {
            return false;
        }
        if !extra {
            let mut sse = *i;
            sse.set_code(code);
            return self.float(&sse) || self.lanes(&sse);
        }
        let kept = self.vectors.get(SCRATCH.full_register());
        let sse = self.non_destructive(i, code);
        let done = self.float(&sse) || self.lanes(&sse);
        self.vectors.set(SCRATCH.full_register(), kept);
        done
    }

    /// `i`'s SSE form `code` with operand 0 (the destination) set to `i`'s first source and
    /// `i`'s further operands moved down one; a source that is the destination is read from
    /// [`SCRATCH`].
    fn non_destructive(&mut self, i: &Instruction, code: Code) -> Instruction {
        let mut sse = *i;
        sse.set_code(code);
        let (dest, first) = (i.op0_register(), i.op1_register());
        for k in 2..i.op_count() {
            let kind = i.op_kind(k);
            sse.set_op_kind(k - 1, kind);
            match kind {
                OpKind::Register => {
                    let r = i.op_register(k);
                    let r = if r == first {
                        dest
                    } else if r.full_register() == dest.full_register() && r.is_xmm() {
                        let v = self.vectors.get(r.full_register());
                        self.vectors.set(SCRATCH.full_register(), v);
                        SCRATCH
                    } else {
                        r
                    };
                    sse.set_op_register(k - 1, r);
                }
                OpKind::Immediate8 => sse.set_immediate8(i.immediate8()),
                _ => {}
            }
        }
        let v = self.vectors.get(first.full_register());
        self.vectors.set(dest.full_register(), v);
        sse
    }

    /// The FMA3 multiply-adds on XMM registers (`vfmadd231sd xmm0, xmm1, xmm2`: `xmm0 =
    /// xmm1 * xmm2 + xmm0`), rounded once; false when `i` is none of them.
    fn fused(&mut self, i: &Instruction) -> bool {
        let Some(&Fused {
            order,
            negate_product,
            subtract,
            precision: p,
            scalar,
        }) = fused_forms().get(&i.mnemonic())
        else {
            return false;
        };
        let bits = if scalar { p.bits() } else { 128 };
        let read = |k| self.read_low(i, k, bits);
        // 132: 0 * 2 + 1; 213: 1 * 0 + 2; 231: 1 * 2 + 0.
        let (a, b, c) = match order {
            132 => (read(0), read(2), read(1)),
            213 => (read(1), read(0), read(2)),
            _ => (read(1), read(2), read(0)),
        };
        let v = a.zip(b).zip(c).map(|((a, b), c)| {
            let lanes = if scalar { 1 } else { p.lanes() };
            (0..lanes).fold(a, |r, k| {
                let product = if negate_product {
                    -p.get(a, k)
                } else {
                    p.get(a, k)
                };
                let addend = if subtract { -p.get(c, k) } else { p.get(c, k) };
                p.put(r, k, product.mul_add(p.get(b, k), addend))
            })
        });
        self.write_low(i, bits, v);
        true
    }
}

/// Whether `code` is an SSE `cmp*` with a predicate immediate (0-7 there, 0-31 in VEX).
fn is_compare(code: Code) -> bool {
    matches!(
        code.mnemonic(),
        Mnemonic::Cmpss | Mnemonic::Cmpsd | Mnemonic::Cmpps | Mnemonic::Cmppd
    )
}

/// An FMA3 instruction: the operand order (`132`: `0 * 2 + 1`), whether it negates the
/// product (`vfnm*`) and subtracts the addend (`*sub*`), its precision, and whether it is
/// scalar.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Fused {
    order: u32,
    negate_product: bool,
    subtract: bool,
    precision: Precision,
    scalar: bool,
}

/// Every FMA3 mnemonic, read from its name once.
fn fused_forms() -> &'static HashMap<Mnemonic, Fused> {
    static FORMS: OnceLock<HashMap<Mnemonic, Fused>> = OnceLock::new();
    FORMS.get_or_init(|| {
        Mnemonic::values()
            .filter_map(|m| Some((m, fused_form(&format!("{m:?}").to_lowercase())?)))
            .collect()
    })
}

/// `vf[n]{madd,msub}{132,213,231}{ss,sd,ps,pd}`.
fn fused_form(name: &str) -> Option<Fused> {
    let rest = name.strip_prefix("vf")?;
    let (negate_product, rest) = match rest.strip_prefix('n') {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let (subtract, rest) = match (rest.strip_prefix("madd"), rest.strip_prefix("msub")) {
        (Some(r), _) => (false, r),
        (_, Some(r)) => (true, r),
        _ => return None,
    };
    let (order, kind) = rest.split_at(rest.len().checked_sub(2)?);
    let order: u32 = order.parse().ok()?;
    let (precision, scalar) = match kind {
        "ss" => (Precision::Single, true),
        "sd" => (Precision::Double, true),
        "ps" => (Precision::Single, false),
        "pd" => (Precision::Double, false),
        _ => return None,
    };
    matches!(order, 132 | 213 | 231).then_some(Fused {
        order,
        negate_product,
        subtract,
        precision,
        scalar,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use iced_x86::Code as C;
    use iced_x86::Register::{EAX, EDX, RDX, XMM0, XMM1, XMM2};

    fn run(m: &mut Machine, i: Instruction) {
        m.execute(&crate::binary::Instruction::bare(i));
    }

    fn pair(low: f64, high: f64) -> u128 {
        u128::from(low.to_bits()) | u128::from(high.to_bits()) << 64
    }

    /// The SSE forms found by opcode are the operations the SDM lists as their AVX forms; a
    /// 256-bit form has none.
    #[test]
    fn each_vex_form_is_found_with_its_sse_instruction() {
        let forms = sse_forms();
        for (vex, sse) in [
            (C::VEX_Vaddss_xmm_xmm_xmmm32, C::Addss_xmm_xmmm32),
            (C::VEX_Vcomiss_xmm_xmmm32, C::Comiss_xmm_xmmm32),
            (C::VEX_Vucomisd_xmm_xmmm64, C::Ucomisd_xmm_xmmm64),
            (C::VEX_Vcvtsi2sd_xmm_xmm_rm64, C::Cvtsi2sd_xmm_rm64),
            (C::VEX_Vcvtsi2ss_xmm_xmm_rm32, C::Cvtsi2ss_xmm_rm32),
            (C::VEX_Vcvttsd2si_r32_xmmm64, C::Cvttsd2si_r32_xmmm64),
            (C::VEX_Vpslld_xmm_xmm_imm8, C::Pslld_xmm_imm8),
            (C::VEX_Vmovd_xmm_rm32, C::Movd_xmm_rm32),
            (C::VEX_Vmovss_xmm_xmm_xmm, C::Movss_xmm_xmmm32),
            (C::VEX_Vmovss_xmm_m32, C::Movss_xmm_xmmm32),
            (C::VEX_Vmovss_m32_xmm, C::Movss_xmmm32_xmm),
            (C::VEX_Vxorps_xmm_xmm_xmmm128, C::Xorps_xmm_xmmm128),
            (C::VEX_Vpshufd_xmm_xmmm128_imm8, C::Pshufd_xmm_xmmm128_imm8),
            (C::VEX_Vcmpsd_xmm_xmm_xmmm64_imm8, C::Cmpsd_xmm_xmmm64_imm8),
        ] {
            assert_eq!(forms.get(&vex), Some(&sse), "{vex:?}");
        }
        assert_eq!(
            forms.get(&C::VEX_Vaddps_ymm_ymm_ymmm256),
            Some(&C::Addps_xmm_xmmm128)
        );
        for spread in [
            C::VEX_Vcvtps2pd_ymm_xmmm128,
            C::VEX_Vpmovmskb_r32_ymm,
            C::VEX_Vblendps_ymm_ymm_ymmm256_imm8,
            C::VEX_Vptest_ymm_ymmm256,
        ] {
            assert_eq!(forms.get(&spread), None, "{spread:?}");
        }
        assert_eq!(forms.get(&C::VEX_Vbroadcastss_xmm_m32), None);
        assert!(forms.len() > 200, "{}", forms.len());
    }

    /// `vsubsd d, a, b` is `a - b` in the low lane and `a`'s high lane, whichever of the
    /// three registers coincide; the sources are left as they were.
    #[test]
    fn a_non_destructive_form_reads_its_sources_before_it_writes() {
        let (a, b) = (pair(7.5, 1.25), pair(2.0, -3.0));
        for (d, x, y) in [
            (XMM0, XMM1, XMM2),
            (XMM2, XMM1, XMM2),
            (XMM1, XMM1, XMM2),
            (XMM1, XMM1, XMM1),
        ] {
            let mut m = Machine::at_entry(&[]);
            m.set_vector(XMM1, Some(a));
            m.set_vector(XMM2, Some(b));
            let (va, vb) = (m.vector(x).unwrap(), m.vector(y).unwrap());
            let sub = Instruction::with3(C::VEX_Vsubsd_xmm_xmm_xmmm64, d, x, y).unwrap();
            run(&mut m, sub);
            let want = Precision::Double.put(
                va,
                0,
                Precision::Double.get(va, 0) - Precision::Double.get(vb, 0),
            );
            assert_eq!(m.vector(d), Some(want), "{d:?} {x:?} {y:?}");
            for (r, v) in [(XMM1, a), (XMM2, b)] {
                if r != d {
                    assert_eq!(m.vector(r), Some(v), "{r:?} kept");
                }
            }
            assert_eq!(m.vectors.get(SCRATCH.full_register()), None);
        }
    }

    /// gcc -march=haswell's `if (v > t)` on data: `vcvtsi2sd xmm0, xmm0, edx; vcomisd xmm0,
    /// xmm1` sets the flags the branch reads, as `cvtsi2sd; comisd` does; `vxorps x, x, x` is
    /// zero whatever `x` held.
    #[test]
    fn a_branch_on_vex_compared_data_is_known() {
        let mut m = Machine::at_entry(&[]);
        m.set_register(RDX, Some(3));
        m.set_vector(XMM1, Some(pair(2.5, 0.0)));
        let cvt = Instruction::with3(C::VEX_Vcvtsi2sd_xmm_xmm_rm32, XMM0, XMM0, EDX).unwrap();
        let com = Instruction::with2(C::VEX_Vcomisd_xmm_xmmm64, XMM0, XMM1).unwrap();
        run(&mut m, cvt);
        run(&mut m, com);
        assert_eq!(m.condition(iced_x86::ConditionCode::a), Some(true));
        let zero = Instruction::with3(C::VEX_Vxorps_xmm_xmm_xmmm128, XMM2, XMM2, XMM2).unwrap();
        run(&mut m, zero);
        assert_eq!(m.vector(XMM2), Some(0));
        let back = Instruction::with2(C::VEX_Vcvttsd2si_r32_xmmm64, EAX, XMM0).unwrap();
        run(&mut m, back);
        assert_eq!(m.register(EAX), Some(3));
    }

    /// `vfmadd231sd xmm0, xmm1, xmm2` rounds once: `(1 + 2^-30)(1 - 2^-30) - 1` is `-2^-60`,
    /// where a multiply and an add give 0.
    #[test]
    fn a_fused_multiply_add_rounds_once() {
        let e = 2f64.powi(-30);
        let mut m = Machine::at_entry(&[]);
        m.set_vector(XMM0, Some(pair(-1.0, 9.0)));
        m.set_vector(XMM1, Some(pair(1.0 + e, 0.0)));
        m.set_vector(XMM2, Some(pair(1.0 - e, 0.0)));
        let fma = Instruction::with3(C::VEX_Vfmadd231sd_xmm_xmm_xmmm64, XMM0, XMM1, XMM2).unwrap();
        run(&mut m, fma);
        assert_eq!(m.vector(XMM0), Some(pair(-(2f64.powi(-60)), 9.0)));
        assert_eq!(fused_forms().len(), 48);
    }
}
