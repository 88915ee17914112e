//! Terms of a loop whose bound is a `min`/`max`, counted piece by piece. Where one of the
//! expressions is the bound's value depends on the counters around the loop
//! (`j = MAX(i - 1, m - 2)`), a compiler splits the enclosing loop where the value switches
//! (gcc -O3's loop splitting and versioning), and each version runs its own copies of the
//! loop. Each piece's condition is affine (004 §III.C.2: a `max` bound is one of its
//! expressions on each piece), counted at the loop and around it ([`super::conditioned`]).

use metron_symbolic::{Bound, CmpOp, Condition};

use super::conditioned::Atom;
use crate::loop_copy::pieces;
use crate::source::{SourceFunction, SourceModel};

/// The condition of each piece of the bounds of each loop `b` of `f` with a `min`/`max`
/// bound, attached to `b`.
pub(super) fn piece_atoms(source: &SourceModel, f: &SourceFunction) -> Vec<Atom> {
    let mut out = Vec::new();
    for (b, l) in source.loops.iter().enumerate() {
        let Ok(inner) = &l.scop else { continue };
        if l.function != f.name || inner.start.exprs().len() + inner.end.exprs().len() < 3 {
            continue;
        }
        for start in pieces_both_ties(&inner.start) {
            for end in pieces_both_ties(&inner.end) {
                out.push(Atom {
                    at: b,
                    cases: vec![start.iter().chain(&end).cloned().collect()],
                });
            }
        }
    }
    out
}

/// The conditions of each piece of `bound`, with ties to the first expression
/// ([`pieces`]) and with ties to every one (a compiler's split may put the point where two
/// expressions are equal on either side).
fn pieces_both_ties(bound: &Bound) -> Vec<Vec<Condition>> {
    let exprs = bound.exprs();
    let op = match bound {
        Bound::Max(_) => CmpOp::Ge,
        Bound::Min(_) => CmpOp::Le,
    };
    let mut out: Vec<Vec<Condition>> = pieces(bound).into_iter().map(|(_, c)| c).collect();
    for (p, e) in exprs.iter().enumerate().filter(|_| exprs.len() > 1) {
        let ties: Vec<Condition> = (0..exprs.len())
            .filter(|&q| q != p)
            .map(|q| Condition::Affine {
                lhs: e.clone(),
                op,
                rhs: exprs[q].clone(),
            })
            .collect();
        if !out.contains(&ties) {
            out.push(ties);
        }
    }
    out
}
