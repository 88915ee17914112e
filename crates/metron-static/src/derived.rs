//! Roll-ups and derived metrics of a model (004 §IV.D.2): floating-point operations (not
//! instructions: a packed `vmulpd ymm` does four), loads, stores and bytes moved from iced's
//! memory-operand info, branches; the paper's instruction-based arithmetic intensity and
//! bytes moved per flop (memory operands' bytes, whether they hit a cache or not).

use std::collections::BTreeMap;

use iced_x86::FlowControl;

use crate::binary::Instruction;
use crate::category::Architecture;

/// Floating-point operations one execution of `ins` performs: SSE/AVX arithmetic on packed
/// (`pd`, `ps`: one per lane of the widest vector operand) or scalar (`sd`, `ss`) values, FMA
/// counting two per lane, and x87 arithmetic one.
pub fn flops(ins: &Instruction) -> u32 {
    let name = ins.name();
    let m = name.as_str();
    if ["fadd", "fsub", "fmul", "fdiv", "fsqrt"]
        .iter()
        .any(|op| m.starts_with(op))
    {
        return 1;
    }
    let core = m.strip_prefix('v').unwrap_or(m);
    let (lane, ops) = match core.get(core.len().saturating_sub(2)..) {
        Some("pd") => (8, 1),
        Some("ps") => (4, 1),
        Some("sd") | Some("ss") => (0, 1),
        _ => return 0,
    };
    let fused = ["fmadd", "fmsub", "fnmadd", "fnmsub"]
        .iter()
        .any(|op| core.starts_with(op));
    let arithmetic = fused
        || ["add", "sub", "mul", "div", "sqrt", "min", "max"]
            .iter()
            .any(|op| core.starts_with(op));
    if !arithmetic {
        return 0;
    }
    let lanes = ins.simd_bytes.checked_div(lane).unwrap_or(1).max(1);
    lanes * ops * if fused { 2 } else { 1 }
}

/// Bytes read and written by one execution of `ins`, from iced's memory-operand sizes (stack
/// traffic of `push`/`call` included). An operand both read and written (`add [m], r`)
/// moves its size each way.
pub fn bytes_moved(ins: &Instruction) -> (u32, u32) {
    let sizes: u32 = ins.memory.iter().map(|m| m.size).sum();
    match (ins.loads, ins.stores) {
        (0, 0) => (0, 0),
        (_, 0) => (sizes, 0),
        (0, _) => (0, sizes),
        _ if ins.memory.len() == 1 => (sizes, sizes),
        // Several operands, some read, some written (`movs`, `push [m]`): the sizes split.
        (l, w) => (sizes * l / (l + w), sizes * w / (l + w)),
    }
}

/// The roll-ups of one instruction that do not need the architecture description.
pub fn instruction_rollups(ins: &Instruction) -> [(&'static str, u32); 6] {
    let branch = matches!(
        ins.flow,
        FlowControl::ConditionalBranch
            | FlowControl::UnconditionalBranch
            | FlowControl::IndirectBranch
    );
    let (read, written) = bytes_moved(ins);
    [
        ("loads", ins.loads),
        ("stores", ins.stores),
        ("bytes_loaded", read),
        ("bytes_stored", written),
        ("branches", u32::from(branch)),
        ("flops", flops(ins)),
    ]
}

/// Adds the roll-ups that need the architecture (`fp_ops`: FP arithmetic instructions, 004's
/// FPI; `fp_moves`: FP data movement) from per-mnemonic counts, and the derived ratios.
pub fn with_derived(
    arch: &Architecture,
    counts: &BTreeMap<String, f64>,
    mut rollups: BTreeMap<String, f64>,
) -> (BTreeMap<String, f64>, BTreeMap<String, f64>) {
    for (m, v) in counts {
        let class = arch.classify(m.trim_start_matches("x86_"));
        *rollups.entry("fp_ops".into()).or_default() += if class.fp { *v } else { 0.0 };
        *rollups.entry("fp_moves".into()).or_default() += if class.fp_move { *v } else { 0.0 };
    }
    let get = |k: &str| rollups.get(k).copied().unwrap_or(0.0);
    let mut derived = BTreeMap::new();
    if get("fp_moves") > 0.0 {
        // 004 §IV.D.2: packed arithmetic over data movement instructions.
        derived.insert(
            "arithmetic_intensity".to_string(),
            get("fp_ops") / get("fp_moves"),
        );
    }
    if get("flops") > 0.0 && rollups.contains_key("bytes_loaded") {
        derived.insert(
            "bytes_per_flop".to_string(),
            (get("bytes_loaded") + get("bytes_stored")) / get("flops"),
        );
    }
    (rollups, derived)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ins(mnemonic: &str, simd_bytes: u32) -> Instruction {
        Instruction {
            length: 4,
            mnemonic: iced_x86::Mnemonic::values()
                .find(|m| crate::binary::mnemonic_name(*m) == mnemonic)
                .unwrap_or_else(|| panic!("no mnemonic {mnemonic}")),
            flow: FlowControl::Next,
            simd_bytes,
            ..Instruction::bare(iced_x86::Instruction::default())
        }
    }

    #[test]
    fn flops_per_instruction_by_width_and_fusion() {
        assert_eq!(flops(&ins("addsd", 16)), 1);
        assert_eq!(flops(&ins("mulpd", 16)), 2);
        assert_eq!(flops(&ins("vmulpd", 32)), 4);
        assert_eq!(flops(&ins("vaddps", 32)), 8);
        assert_eq!(flops(&ins("vfmadd231pd", 32)), 8);
        assert_eq!(flops(&ins("vfmadd231sd", 16)), 2);
        assert_eq!(flops(&ins("sqrtsd", 16)), 1);
        assert_eq!(flops(&ins("fmul", 0)), 1);
        for none in [
            "movapd", "andpd", "xorps", "mulx", "add", "cvtsi2sd", "unpcklpd",
        ] {
            assert_eq!(flops(&ins(none, 16)), 0, "{none}");
        }
    }
}
