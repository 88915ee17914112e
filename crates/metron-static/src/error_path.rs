//! libm error paths. Under `-fmath-errno` (C's default) gcc and clang compile `sqrt(x)` as the
//! instruction (`sqrtsd`, `sqrtss`, x87 `fsqrt`) behind a test of the argument (`ucomisd`, then
//! `ja`/`jb`/`jp`): only a negative or NaN argument takes the other side, which calls libm's
//! `sqrt` to set `errno` and rejoins. The branch is data-dependent in form, but in real code
//! the argument is a norm or a sum of squares, so the path is counted as not taken (an
//! assumption the output names with its file:line) unless a branch profile gives the fraction
//! of calls that took it (004 §III.C.4's `br_prob`, measured).
//!
//! Found from the binary alone: a block ending in a conditional jump after a floating-point
//! compare whose one successor calls the libm function (through the PLT, or directly in a
//! static binary) and whose other side (or the block itself) holds the function's instruction.

use std::collections::BTreeSet;

use iced_x86::{FlowControl, Mnemonic};
use metron_symbolic::{Piecewise, Rational};
use serde::Serialize;

use crate::binary::{Binary, Function, SourceLine};
use crate::cfg::Cfg;

/// libm functions compiled to an instruction plus an error-path call, with that instruction.
const INLINED: &[(&str, &[Mnemonic])] = &[
    ("sqrt", &[Mnemonic::Sqrtsd, Mnemonic::Vsqrtsd]),
    ("sqrtf", &[Mnemonic::Sqrtss, Mnemonic::Vsqrtss]),
    ("sqrtl", &[Mnemonic::Fsqrt]),
];

/// Compares whose flags decide the error path (SSE scalar and x87).
const FLOAT_COMPARES: &[Mnemonic] = &[
    Mnemonic::Ucomisd,
    Mnemonic::Ucomiss,
    Mnemonic::Comisd,
    Mnemonic::Comiss,
    Mnemonic::Vucomisd,
    Mnemonic::Vucomiss,
    Mnemonic::Vcomisd,
    Mnemonic::Vcomiss,
    Mnemonic::Fucomi,
    Mnemonic::Fucomip,
    Mnemonic::Fcomi,
    Mnemonic::Fcomip,
];

/// One error path: the block that tests the argument, the block that calls libm, and the
/// other side (the inline instruction's path).
#[derive(Debug, Clone, Serialize)]
pub struct ErrorPath {
    pub decide: usize,
    pub error: usize,
    pub other: usize,
    /// The libm function called on the error path (`sqrt`).
    pub callee: String,
    /// Where the call was written (innermost inline frame).
    pub position: Option<SourceLine>,
}

/// The name of the function a call at `target` enters: a PLT stub's symbol or a function of
/// the binary, without a symbol version (`sqrt@GLIBC_2.2.5`).
fn callee_name(binary: &Binary, target: u64) -> Option<&str> {
    let name = match binary.plt.get(&target) {
        Some(n) => n.as_str(),
        None => binary
            .functions
            .iter()
            .find(|f| f.address == target)?
            .symbol
            .as_str(),
    };
    name.split('@').next()
}

/// The libm call a block makes (a call, or a tail jump), with the instruction's index.
fn libm_call(
    binary: &Binary,
    function: &Function,
    cfg: &Cfg,
    b: usize,
) -> Option<(usize, &'static (&'static str, &'static [Mnemonic]))> {
    let block = &cfg.blocks[b];
    (block.first..block.end).find_map(|i| {
        let ins = &function.instructions[i];
        let call_like = matches!(
            ins.flow,
            FlowControl::Call | FlowControl::UnconditionalBranch | FlowControl::Exception
        );
        let name = callee_name(binary, ins.target.filter(|_| call_like)?)?;
        INLINED.iter().find(|(f, _)| *f == name).map(|e| (i, e))
    })
}

fn holds(function: &Function, cfg: &Cfg, b: usize, mnemonics: &[Mnemonic]) -> bool {
    let block = &cfg.blocks[b];
    block
        .code(function)
        .iter()
        .any(|i| mnemonics.contains(&i.mnemonic))
}

/// Every libm error path of `function`.
pub fn find(binary: &Binary, function: &Function, cfg: &Cfg) -> Vec<ErrorPath> {
    let mut out = Vec::new();
    for (d, block) in cfg.blocks.iter().enumerate() {
        let code = block.code(function);
        let Some(last) = code.last() else { continue };
        if last.flow != FlowControl::ConditionalBranch || block.successors.len() != 2 {
            continue;
        }
        if !code.iter().any(|i| FLOAT_COMPARES.contains(&i.mnemonic)) {
            continue;
        }
        let (s1, s2) = (block.successors[0], block.successors[1]);
        for (error, other) in [(s1, s2), (s2, s1)] {
            let Some((call, (callee, inline))) = libm_call(binary, function, cfg, error) else {
                continue;
            };
            // The error side calls libm instead of running the instruction; the instruction
            // sits on the other side, or before the test (gcc's `jp` after `sqrtsd`; clang
            // hoists `sqrt(n)` out of a loop and leaves the test inside).
            let mut before = std::iter::successors(Some(d), |&b| cfg.idom[b]);
            if holds(function, cfg, error, inline)
                || !(holds(function, cfg, other, inline)
                    || before.any(|b| holds(function, cfg, b, inline)))
            {
                continue;
            }
            out.push(ErrorPath {
                decide: d,
                error,
                other,
                callee: callee.to_string(),
                position: function.instructions[call].inner_line().cloned(),
            });
            break;
        }
    }
    out
}

/// A probability as an exact rational with 6 decimal digits.
fn rational(p: f64) -> Rational {
    let scaled = (p.clamp(0.0, 1.0) * 1e6).round() as i64;
    Rational::new(scaled.into(), 1_000_000.into())
}

/// Counts the blocks reached only through an error path as `p` times what they were given
/// (the enclosing count: the path was not told apart before), and those reached only through
/// the other side as `1 - p` times; `probability` gives `p` per path (0: never taken).
pub fn count(
    paths: &[ErrorPath],
    cfg: &Cfg,
    block_counts: &mut [Piecewise],
    probability: impl Fn(&ErrorPath) -> f64,
) {
    let mut done = BTreeSet::new();
    for path in paths {
        // Two tests sharing one error block: scale it once.
        if !done.insert(path.error) {
            continue;
        }
        let p = probability(path);
        let deciders: BTreeSet<usize> = paths
            .iter()
            .filter(|q| q.error == path.error)
            .map(|q| q.decide)
            .collect();
        let only_through = |side: usize| -> Vec<usize> {
            // Alignment padding before the block falls into it but never runs.
            let reachable = |d: &usize| *d == 0 || cfg.idom[*d].is_some();
            let mut entered = cfg.blocks[side]
                .predecessors
                .iter()
                .filter(|d| reachable(d));
            if side == 0 || !entered.all(|d| deciders.contains(d)) {
                return Vec::new();
            }
            (0..cfg.blocks.len())
                .filter(|&b| cfg.dominates(side, b))
                .collect()
        };
        for b in only_through(path.error) {
            block_counts[b] = block_counts[b].scaled(&rational(p));
        }
        if p > 0.0 {
            for b in only_through(path.other) {
                block_counts[b] = block_counts[b].scaled(&rational(1.0 - p));
            }
        }
    }
}
