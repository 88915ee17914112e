//! Terms of the `?:` and `if` arms in the remainder of a loop copied `k` wide. A vectorised
//! or unrolled loop leaves its last `r = N mod k` iterations to a scalar epilogue (or its
//! first to a prologue: clang -O2 peels an odd trip's first iteration), whose
//! `j`-th pass (a straight-line copy or a loop) runs the arm where the condition holds at the
//! counter's value `L - (r - 1) + j` (`L` the last value): one indicator per entry of the
//! loop with `N mod k == r`. gcc -O3 blends the arms in the vector body and branches only in
//! the epilogue, so these are the counts its arm blocks take (004 §III.C.3's arm count on
//! the iterations the copy runs).

use metron_symbolic::{
    trip_count, AffineExpr, CmpOp, Condition, CountOptions, LoopNest, Piecewise,
};

use crate::source::{SourceFunction, SourceModel};

/// Widths whose remainders are counted.
const WIDTHS: [i64; 2] = [2, 4];

/// The conditions of each arm of the `if`s and `?:`s directly in source loop `i`: the
/// conjunction for the then arm, and for a single condition its negation for the else arm.
fn arm_conditions(source: &SourceModel, i: usize) -> Vec<Vec<Condition>> {
    let ifs = source
        .ifs
        .iter()
        .filter(|c| c.parent_loop == Some(i) && c.parent_if.is_none())
        .map(|c| &c.condition);
    let conditionals = source
        .conditionals
        .iter()
        .filter(|c| c.parent_loop == Some(i) && c.parent_if.is_none())
        .filter(|c| c.parent_conditional.is_none())
        .filter(|c| c.part != crate::source::LoopPart::Condition)
        .map(|c| &c.condition);
    let mut out = Vec::new();
    for c in ifs.chain(conditionals).flatten() {
        out.push(c.clone());
        if let [single] = c.as_slice() {
            out.push(vec![single.negated()]);
        }
    }
    out
}

/// The counter's last value `L` and the trip count `N` of a unit-step loop with single
/// bounds, as affine expressions of the enclosing counters and the parameters.
fn last_and_trips(l: &metron_symbolic::Loop) -> Option<(AffineExpr, AffineExpr)> {
    let ([start], [end]) = (l.start.exprs(), l.end.exprs()) else {
        return None;
    };
    let up = match l.stride {
        1 => true,
        -1 => false,
        _ => return None,
    };
    let last = match (up, l.end_inclusive) {
        (_, true) => end.clone(),
        (true, false) => end.plus_constant(-1).ok()?,
        (false, false) => end.plus_constant(1).ok()?,
    };
    // N = L - s + 1 counting up, s - L + 1 counting down.
    let (a, b) = if up { (&last, start) } else { (start, &last) };
    let trips = a.plus_scaled(b, -1).ok()?.plus_constant(1).ok()?;
    Some((last, trips))
}

/// A unit-step loop of `f` with single bounds and `if`/`?:` arms directly in it: what the
/// remainder and lane terms read of it.
struct ArmLoop<'a> {
    scop: &'a metron_symbolic::Loop,
    arms: Vec<Vec<Condition>>,
    start: AffineExpr,
    /// The counter's last value and the trip count ([`last_and_trips`]).
    last: AffineExpr,
    trips: AffineExpr,
    /// The loops from the outermost down to this one.
    nest: Vec<metron_symbolic::Loop>,
}

/// [`ArmLoop`]s of `f`, outermost first.
fn arm_loops<'a>(source: &'a SourceModel, f: &SourceFunction) -> Vec<ArmLoop<'a>> {
    let mut out = Vec::new();
    for (i, l) in source.loops.iter().enumerate() {
        let Ok(scop) = &l.scop else { continue };
        let arms = arm_conditions(source, i);
        if l.function != f.name || arms.is_empty() {
            continue;
        }
        let folded = super::folded(scop);
        let ([start], Some((last, trips))) = (folded.start.exprs(), last_and_trips(&folded)) else {
            continue;
        };
        let Ok(nest) = source.nest_of(i) else {
            continue;
        };
        let start = start.clone();
        out.push(ArmLoop {
            scop,
            arms,
            start,
            last,
            trips,
            nest,
        });
    }
    out
}

/// The terms of every arm in every remainder pass of `f`'s unit-step loops.
pub(super) fn remainder_arm_counts(source: &SourceModel, f: &SourceFunction) -> Vec<Piecewise> {
    let options = CountOptions::default();
    let mut out = Vec::new();
    for a in arm_loops(source, f) {
        let (scop, start, last, trips) = (a.scop, &a.start, &a.last, &a.trips);
        let mut outer = a.nest.clone();
        outer.pop();
        let up = scop.stride > 0;
        for k in WIDTHS {
            for r in 1..k {
                let entries = [
                    Condition::Modulo {
                        expr: trips.clone(),
                        modulus: k,
                        residue: r,
                        negated: false,
                    },
                    Condition::Affine {
                        lhs: trips.clone(),
                        op: CmpOp::Ge,
                        rhs: AffineExpr::constant(r),
                    },
                ];
                // The remainder's passes are the last ones, or the first (clang peels an odd
                // trip's first iteration before its 2-wide body).
                let last_passes = (0..r).map(|j| if up { j - (r - 1) } else { (r - 1) - j });
                let last_passes = last_passes.filter_map(|back| last.plus_constant(back).ok());
                let first_passes = (0..r).filter_map(|j| start.plus_constant(j * scop.stride).ok());
                for at in last_passes.chain(first_passes) {
                    for arm in &a.arms {
                        let at_pass: Option<Vec<Condition>> = arm
                            .iter()
                            .map(|c| c.substituted(&scop.var, &at).ok())
                            .collect();
                        let Some(at_pass) = at_pass else { continue };
                        let mut nest = LoopNest::new(outer.clone());
                        nest.conditions = entries.iter().cloned().chain(at_pass).collect();
                        nest.conditions = source.conditions_in(&outer, nest.conditions);
                        out.extend(trip_count(&nest, &options).ok());
                    }
                }
            }
        }
    }
    out
}

/// The terms of every arm in each lane of a `k`-wide copy of `f`'s unit-step loops: the
/// iterations where the arm holds and the counter is the pass's `r`-th, passes aligned to
/// the loop's start (the remainder at the end) or to its end (clang -O2 peels an odd trip's
/// first iteration and unrolls by 2). An unrolled body that keeps its test per lane
/// (`if (l != m + 1)` in nest 1184, `if (j != i)` in a Jacobi sweep) runs each lane's arm
/// block on those iterations.
pub(super) fn lane_arm_counts(source: &SourceModel, f: &SourceFunction) -> Vec<Piecewise> {
    let options = CountOptions::default();
    let mut out = Vec::new();
    for a in arm_loops(source, f) {
        let (start, last) = (&a.start, &a.last);
        let counter = AffineExpr::var(&a.scop.var);
        // The distance from the pass's first counter: from the start, or back from the end.
        let (from_start, from_end) = match a.scop.stride > 0 {
            true => (
                counter.plus_scaled(start, -1),
                last.plus_scaled(&counter, -1),
            ),
            false => (
                start.plus_scaled(&counter, -1),
                counter.plus_scaled(last, -1),
            ),
        };
        for distance in [from_start, from_end].into_iter().flatten() {
            for k in WIDTHS {
                for r in 0..k {
                    let lane = Condition::Modulo {
                        expr: distance.clone(),
                        modulus: k,
                        residue: r,
                        negated: false,
                    };
                    for arm in &a.arms {
                        let mut nest = LoopNest::new(a.nest.clone());
                        let conditions = arm.iter().cloned().chain([lane.clone()]).collect();
                        nest.conditions = source.conditions_in(&a.nest, conditions);
                        out.extend(trip_count(&nest, &options).ok());
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use metron_symbolic::{binding, Loop};

    /// `for (i = 0; i <= n - 2; i++) y = i <= m + 2 ? ...`: the remainder of a 2-wide copy
    /// is the last iteration when `N` is odd; its then arm runs where `n - 2 <= m + 2`.
    #[test]
    fn the_last_pass_of_an_odd_trip_count_runs_the_arm_its_counter_takes() {
        let l = Loop {
            end_inclusive: true,
            ..Loop::exclusive("i", "0", "n - 2", 1).unwrap()
        };
        let (last, trips) = last_and_trips(&l).unwrap();
        assert_eq!(last, AffineExpr::parse("n - 2").unwrap());
        assert_eq!(trips, AffineExpr::parse("n - 1").unwrap());
        let arm = Condition::parse("i <= m + 2").unwrap();
        let at = arm.substituted("i", &last).unwrap();
        let mut nest = LoopNest::new(Vec::new());
        nest.conditions = vec![
            Condition::Modulo {
                expr: trips.clone(),
                modulus: 2,
                residue: 1,
                negated: false,
            },
            at,
        ];
        let p = trip_count(&nest, &CountOptions::default()).unwrap();
        for (n, m) in [(18, 9), (19, 9), (14, 9), (13, 9), (2, 0)] {
            let want = i64::from((n - 1) % 2 == 1 && n - 2 <= m + 2);
            let got = p.evaluate_integer(&binding([("n", n), ("m", m)])).unwrap();
            assert_eq!(got, want.into(), "n={n} m={m}");
        }
        let not = arm.negated();
        assert_eq!(not, Condition::parse("i > m + 2").unwrap());
    }
}
