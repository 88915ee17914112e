//! Terms of a nest versioned by a run-time alias test. A compiler vectorises an inner loop
//! `b` whose stores may touch the element another counter indexes (`y[l] = ... y[i] ...`)
//! only after testing, at run time, whether that counter lies in `b`'s range of counters;
//! each version runs where the test went its way, once per iteration of the loop the test
//! is hoisted to. The test is `lo <= i <= hi` with `b`'s first and last counter values,
//! one piece at a time where a bound is a `min`/`max` (004 §III.C.2: each piece is one
//! affine bound), counted at every loop from the counter's own down to `b`
//! ([`super::conditioned`]).

use metron_symbolic::{AffineExpr, CmpOp, Condition, Loop};

use super::conditioned::Atom;
use crate::loop_copy::pieces;
use crate::source::{SourceFunction, SourceModel};

/// For each loop `b` of `f` and each counter around it: the condition that the counter lies
/// in `b`'s range, attached to `b` (one per piece of `b`'s bounds).
pub(super) fn range_atoms(source: &SourceModel, f: &SourceFunction) -> Vec<Atom> {
    let mut out = Vec::new();
    for (b, l) in source.loops.iter().enumerate() {
        let Ok(inner) = &l.scop else { continue };
        if l.function != f.name {
            continue;
        }
        let ranges = counter_ranges(inner);
        for a in std::iter::successors(l.parent, |&p| source.loops[p].parent) {
            let Ok(outer) = &source.loops[a].scop else {
                break;
            };
            let var = AffineExpr::var(&outer.var);
            for (low, high, conditions) in &ranges {
                let mut c = conditions.clone();
                c.push(affine(low, CmpOp::Le, &var));
                c.push(affine(&var, CmpOp::Le, high));
                out.push(Atom {
                    at: b,
                    conditions: c,
                });
            }
        }
    }
    out
}

/// `b`'s first and last counter values, lowest first, with the conditions under which the
/// bounds' pieces give them.
fn counter_ranges(l: &Loop) -> Vec<(AffineExpr, AffineExpr, Vec<Condition>)> {
    let mut out = Vec::new();
    for (start, start_conditions) in pieces(&l.start) {
        for (end, end_conditions) in pieces(&l.end) {
            let shift = if l.end_inclusive {
                0
            } else {
                -l.stride.signum()
            };
            let Ok(last) = end.plus_constant(shift) else {
                continue;
            };
            let (low, high) = match l.stride > 0 {
                true => (start.clone(), last),
                false => (last, start.clone()),
            };
            let mut c = start_conditions.clone();
            c.extend(end_conditions);
            out.push((low, high, c));
        }
    }
    out
}

fn affine(lhs: &AffineExpr, op: CmpOp, rhs: &AffineExpr) -> Condition {
    Condition::Affine {
        lhs: lhs.clone(),
        op,
        rhs: rhs.clone(),
    }
}
