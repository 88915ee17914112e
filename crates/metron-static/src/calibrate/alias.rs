//! Terms of a nest versioned by a run-time alias test. A compiler vectorises an inner loop
//! `b` whose stores may touch the element another counter indexes (`y[l] = ... y[i] ...`)
//! only after testing, at run time, whether that counter lies in `b`'s range of counters;
//! each version runs where the test went its way, once per iteration of the loop the test
//! is hoisted to. The test is `lo <= i <= hi` with `b`'s first and last counter values,
//! one piece at a time where a bound is a `min`/`max` (004 §III.C.2: each piece is one
//! affine bound), counted at every loop from the counter's own down to `b`
//! ([`super::conditioned`]).
//!
//! Where `b` steps by more than 1, the last value may be the bound (a test of the
//! addresses the bound spans) or the last counter the loop reaches (gcc's exact trip count:
//! `l = 2; l < i + 1; l += 3` stores last to `y[i]` only where `(i - 2) mod 3 == 0`,
//! nest 3246); the second is one case per remainder of the span modulo the step.

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
            for range in &ranges {
                let cases = range.iter().map(|(low, high, conditions)| {
                    let mut c = conditions.clone();
                    c.push(affine(low, CmpOp::Le, &var));
                    c.push(affine(&var, CmpOp::Le, high));
                    c
                });
                out.push(Atom {
                    at: b,
                    cases: cases.collect(),
                });
            }
        }
    }
    out
}

/// One range of counters: disjoint cases, each the lowest and highest value with the
/// conditions under which they hold.
type Range = Vec<(AffineExpr, AffineExpr, Vec<Condition>)>;

/// `b`'s ranges of counter values, one per piece of its bounds: from the first value to the
/// bound and, for a step over 1, to the last value reached.
fn counter_ranges(l: &Loop) -> Vec<Range> {
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
            let mut c = start_conditions.clone();
            c.extend(end_conditions);
            let (low, high) = match l.stride > 0 {
                true => (start.clone(), last.clone()),
                false => (last.clone(), start.clone()),
            };
            out.push(vec![(low, high, c.clone())]);
            if l.stride.abs() > 1 {
                out.extend(reached(&start, &last, l.stride, &c));
            }
        }
    }
    out
}

/// The range from `start` to the last counter reached before `bound` (inclusive) with
/// `stride`: one case per remainder `r` of the span `|bound - start|` modulo the step, where
/// the last value is `r` short of the bound.
fn reached(start: &AffineExpr, bound: &AffineExpr, stride: i64, c: &[Condition]) -> Option<Range> {
    let step = stride.abs();
    let span = match stride > 0 {
        true => bound.plus_scaled(start, -1).ok()?,
        false => start.plus_scaled(bound, -1).ok()?,
    };
    let mut range = Vec::new();
    for r in 0..step {
        let last = bound.plus_constant(-r * stride.signum()).ok()?;
        let (low, high) = match stride > 0 {
            true => (start.clone(), last),
            false => (last, start.clone()),
        };
        let mut conditions = c.to_vec();
        conditions.push(Condition::Modulo {
            expr: span.clone(),
            modulus: step,
            residue: r,
            negated: false,
        });
        range.push((low, high, conditions));
    }
    Some(range)
}

fn affine(lhs: &AffineExpr, op: CmpOp, rhs: &AffineExpr) -> Condition {
    Condition::Affine {
        lhs: lhs.clone(),
        op,
        rhs: rhs.clone(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use metron_symbolic::{Bound, Loop};

    use super::*;

    /// Whether `x` lies between the first and the last counter `l` reaches, by running it.
    fn within_reached(l: &Loop, values: &BTreeMap<String, i64>, x: i64) -> bool {
        let start = l.start.exprs()[0].evaluate(values).unwrap();
        let end = l.end.exprs()[0].evaluate(values).unwrap();
        let going = |c: i64| match (l.stride > 0, l.end_inclusive) {
            (true, true) => c <= end,
            (true, false) => c < end,
            (false, true) => c >= end,
            (false, false) => c > end,
        };
        let mut reached = Vec::new();
        let mut c = start;
        while going(c) {
            reached.push(c);
            c += l.stride;
        }
        let (Some(lo), Some(hi)) = (reached.iter().min(), reached.iter().max()) else {
            return false;
        };
        *lo <= x && x <= *hi
    }

    /// The cases of the range to the last counter reached, against running the loop: exactly
    /// one case holds where `x` is in that range, none elsewhere.
    #[test]
    fn the_range_to_the_last_counter_reached_matches_running_the_loop() {
        let loops = [
            ("2", "i + 1", false, 3),
            ("0", "n", true, 2),
            ("n + 1", "i", false, -4),
            ("i - 2", "2", false, -3),
            ("1", "2*n - i", true, 5),
        ];
        for (start, end, end_inclusive, stride) in loops {
            let l = Loop {
                var: "l".into(),
                start: Bound::parse(start).unwrap(),
                end: Bound::parse(end).unwrap(),
                end_inclusive,
                stride,
                residues: Vec::new(),
            };
            let ranges = counter_ranges(&l);
            let reached = &ranges[1];
            assert_eq!(reached.len(), stride.unsigned_abs() as usize);
            for (i, n, x) in
                (-3..12).flat_map(|i| (0..9).flat_map(move |n| (-6..16).map(move |x| (i, n, x))))
            {
                let values: BTreeMap<String, i64> = [
                    ("i".to_string(), i),
                    ("n".to_string(), n),
                    ("x".to_string(), x),
                ]
                .into();
                let holds = |(low, high, c): &(AffineExpr, AffineExpr, Vec<Condition>)| {
                    let x = AffineExpr::var("x");
                    c.iter()
                        .chain(&[affine(low, CmpOp::Le, &x), affine(&x, CmpOp::Le, high)])
                        .all(|c| c.holds(&values).unwrap())
                };
                let cases = reached.iter().filter(|c| holds(c)).count();
                let want = within_reached(&l, &values, x);
                assert_eq!(
                    cases,
                    usize::from(want),
                    "{start}..{end} by {stride} at i={i} n={n} x={x}"
                );
            }
        }
    }
}
