//! Terms of a loop whose bound is a `min`/`max`, counted piece by piece. Where one of the
//! expressions is the bound's value depends on the counters around the loop
//! (`j = MAX(i - 1, m - 2)`), a compiler splits the enclosing loop where the value switches
//! (gcc -O3's loop splitting and versioning), and each version runs its own copies of the
//! loop. Each piece's condition is affine (004 §III.C.2: a `max` bound is one of its
//! expressions on each piece), counted as a condition on the domain (004 §III.C.3) at the
//! loop and at each loop around it whose counter the condition can be stated in.

use metron_symbolic::{Bound, CmpOp, Condition, CountOptions, Piecewise};

use crate::branch::condition_reads;
use crate::loop_copy::pieces;
use crate::source::{SourceFunction, SourceModel};

/// Iterations of loop `b` and of each loop around it, on each piece of `b`'s bounds.
pub(super) fn piece_counts(source: &SourceModel, f: &SourceFunction) -> Vec<Piecewise> {
    let options = CountOptions::default();
    let mut out = Vec::new();
    for (b, l) in source.loops.iter().enumerate() {
        let Ok(inner) = &l.scop else { continue };
        if l.function != f.name || inner.start.exprs().len() + inner.end.exprs().len() < 3 {
            continue;
        }
        for start in pieces_both_ties(&inner.start) {
            for end in pieces_both_ties(&inner.end) {
                let conditions: Vec<Condition> = start.iter().chain(&end).cloned().collect();
                count_outward(source, b, &conditions, &options, &mut out);
            }
        }
    }
    out
}

/// `conditions` counted at loop `b` and at each loop around it, outward while every counter
/// they read is still in the nest.
fn count_outward(
    source: &SourceModel,
    b: usize,
    conditions: &[Condition],
    options: &CountOptions,
    out: &mut Vec<Piecewise>,
) {
    let counters: Vec<String> = std::iter::successors(Some(b), |&p| source.loops[p].parent)
        .filter_map(|p| source.loops[p].scop.as_ref().ok().map(|l| l.var.clone()))
        .collect();
    let mut at = Some(b);
    while let Some(s) = at {
        let Ok(l) = &source.loops[s].scop else { return };
        let own = counters.iter().position(|c| *c == l.var).unwrap_or(0);
        // Counters of loops inside `s` have no value at `s`'s level.
        let inside = &counters[..own];
        if conditions
            .iter()
            .any(|c| inside.iter().any(|v| condition_reads(c, v)))
        {
            return;
        }
        out.extend(
            crate::branch::conditioned_count(source, Some(s), conditions.to_vec(), options).ok(),
        );
        at = source.loops[s].parent;
    }
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
