//! Terms of a loop split where an `if` on its own counter changes side. gcc -O3
//! (`-fsplit-loops`) turns `for (j = a; j < b; j++) if (j < c) S1; else S2;` into one loop
//! over `[a, min(b, c))` running `S1` and one over `[max(a, c), b)` running `S2`; each copy
//! has its own entries, passes and remainders. The condition, solved for the counter, is a
//! bound of the same loop, so each copy's counts are the source nest's on a narrower range
//! (004 §III.C.2, the same count on a cut domain as the other runs' terms).

use std::collections::BTreeMap;

use metron_symbolic::{AffineExpr, Bound, CmpOp, Condition, CountOptions, Loop, Piecewise};

use crate::source::{SourceFunction, SourceModel};

/// Where a condition puts the counter: at most (`Below`) or at least (`Above`) a value.
#[derive(Debug, Clone, PartialEq)]
enum Side {
    Below(AffineExpr),
    Above(AffineExpr),
}

impl Side {
    /// The counter values where the condition fails.
    fn negated(&self) -> Option<Side> {
        match self {
            Side::Below(e) => e.plus_constant(1).ok().map(Side::Above),
            Side::Above(e) => e.plus_constant(-1).ok().map(Side::Below),
        }
    }
}

/// `c` solved for `var` when `var`'s coefficient is ±1: `j < n - 1` is `Below(n - 2)`.
fn solve(c: &Condition, var: &str) -> Option<Side> {
    let Condition::Affine { lhs, op, rhs } = c else {
        return None;
    };
    let d = lhs.plus_scaled(rhs, -1).ok()?;
    let a = *d.terms.get(var)?;
    // `a*var + rest OP 0`: `var OP -rest` for a = 1, the mirrored OP of `rest` for a = -1.
    let rest = d.plus_scaled(&AffineExpr::var(var), -a).ok()?;
    let (e, op) = match (a, op) {
        (1, op) => (AffineExpr::constant(0).plus_scaled(&rest, -1).ok()?, *op),
        (-1, CmpOp::Lt) => (rest, CmpOp::Gt),
        (-1, CmpOp::Le) => (rest, CmpOp::Ge),
        (-1, CmpOp::Gt) => (rest, CmpOp::Lt),
        (-1, CmpOp::Ge) => (rest, CmpOp::Le),
        _ => return None,
    };
    match op {
        CmpOp::Lt => e.plus_constant(-1).ok().map(Side::Below),
        CmpOp::Le => Some(Side::Below(e)),
        CmpOp::Gt => e.plus_constant(1).ok().map(Side::Above),
        CmpOp::Ge => Some(Side::Above(e)),
        CmpOp::Eq | CmpOp::Ne => None,
    }
}

/// `l` (unit step) with its counter kept on `side`: the side is one more start or end
/// expression, on the side of the loop it tightens.
fn restricted(l: &Loop, side: &Side) -> Option<Loop> {
    if l.stride.abs() != 1 {
        return None;
    }
    let up = l.stride > 0;
    let mut out = l.clone();
    // The end's expressions are exclusive unless the loop says otherwise.
    let past = |e: &AffineExpr, by: i64| {
        if l.end_inclusive {
            Some(e.clone())
        } else {
            e.plus_constant(by).ok()
        }
    };
    match (side, up) {
        (Side::Below(e), true) => out.end = tightened(&l.end, past(e, 1)?, true)?,
        (Side::Above(e), false) => out.end = tightened(&l.end, past(e, -1)?, false)?,
        (Side::Above(e), true) => out.start = tightened(&l.start, e.clone(), false)?,
        (Side::Below(e), false) => out.start = tightened(&l.start, e.clone(), true)?,
    }
    Some(out)
}

/// `b` with `e` added to its `min` (`least`) or `max`; `None` when `b` is the other kind
/// with several expressions.
fn tightened(b: &Bound, e: AffineExpr, least: bool) -> Option<Bound> {
    let mut exprs = b.exprs().to_vec();
    let kind_matches = matches!((b, least), (Bound::Min(_), true) | (Bound::Max(_), false));
    if !kind_matches && exprs.len() > 1 {
        return None;
    }
    exprs.push(e);
    Some(if least {
        Bound::Min(exprs)
    } else {
        Bound::Max(exprs)
    })
}

/// The ranges of source loop `i`'s copies after a split at each `if` or `?:` directly in its body:
/// the then side (all conditions of a conjunction) and, for a single condition, the else.
fn split_ranges(source: &SourceModel, i: usize) -> Vec<Loop> {
    let Ok(l) = &source.loops[i].scop else {
        return Vec::new();
    };
    ranges_at(&super::folded(l), body_conditions(source, i).into_iter())
}

/// The conditions of the `if`s and `?:`s directly in source loop `i`'s body, each a
/// conjunction. gcc splits at a `?:` on the counter as at an `if` (its arms become the two
/// loops').
fn body_conditions(source: &SourceModel, i: usize) -> Vec<&Vec<Condition>> {
    let ifs = source.ifs.iter().filter(|f| f.parent_loop == Some(i));
    let conditionals = source
        .conditionals
        .iter()
        .filter(|q| q.parent_loop == Some(i) && q.part != crate::source::LoopPart::Condition);
    ifs.map(|f| &f.condition)
        .chain(conditionals.map(|q| &q.condition))
        .filter_map(|c| c.as_ref().ok())
        .collect()
}

/// `l`'s ranges after a split at each conjunction of `conditions` that solves for its
/// counter: the then side and, for a single condition, the else.
fn ranges_at<'a>(l: &Loop, conditions: impl Iterator<Item = &'a Vec<Condition>>) -> Vec<Loop> {
    let mut out = Vec::new();
    for conditions in conditions {
        let sides: Option<Vec<Side>> = conditions.iter().map(|c| solve(c, &l.var)).collect();
        let Some(sides) = sides.filter(|s| !s.is_empty()) else {
            continue;
        };
        let then = sides
            .iter()
            .try_fold(l.clone(), |cut, side| restricted(&cut, side));
        out.extend(then);
        if let [single] = sides.as_slice() {
            out.extend(single.negated().and_then(|s| restricted(l, &s)));
        }
    }
    out
}

/// The terms of each split copy of `f`'s loops: for the copy and the loops inside it, what
/// [`super::copy_terms`] counts.
pub(super) fn split_counts(source: &SourceModel, f: &SourceFunction) -> Vec<Piecewise> {
    let options = CountOptions::default();
    let mut out = Vec::new();
    for (i, l) in source.loops.iter().enumerate() {
        if l.function != f.name {
            continue;
        }
        for cut in split_ranges(source, i) {
            let mut one = source.clone();
            one.loops[i].scop = Ok(cut);
            let inside = (0..source.loops.len()).filter(|&x| x == i || source.is_within(x, i));
            for x in inside {
                super::copy_terms(&one, x, &options, &mut out);
            }
        }
    }
    out
}

/// Terms of a loop split at the tests of a small constant loop unrolled away inside it. gcc
/// -O3 unrolls `for (j = 6; j > MIN(2, i + 1); j -= 3)` (two values of `j` once the `i` loop
/// puts `i >= 1`), each copy testing `i >= j + 1` for one `j`; it then splits the `i` loop
/// where a copy's test changes side. Each copy of an arm counts for one value of the inner
/// counter on one range of the outer (004 §III.C.2, the same count on a cut domain).
pub(super) fn unrolled_split_counts(source: &SourceModel, f: &SourceFunction) -> Vec<Piecewise> {
    let options = CountOptions::default();
    let mut out = Vec::new();
    for (a, l) in source.loops.iter().enumerate() {
        let Some(p) = l.parent.filter(|_| l.function == f.name) else {
            continue;
        };
        let Ok(outer) = &source.loops[p].scop else {
            continue;
        };
        let conditions = body_conditions(source, a);
        if conditions.is_empty() {
            continue;
        }
        let Some((inner, values)) = unrolled_values(source, a) else {
            continue;
        };
        let var = inner.var.as_str();
        let substituted: Vec<Vec<Condition>> = conditions
            .iter()
            .flat_map(|c| values.iter().map(move |v| substituted(c, var, v)))
            .flatten()
            .collect();
        let outer = super::folded(outer);
        let ranges = ranges_at(&outer, substituted.iter());
        for range in std::iter::once(outer.clone()).chain(ranges) {
            for c in 1..=values.len() as i64 {
                for cut in super::iteration(&inner, c) {
                    let mut one = source.clone();
                    one.loops[p].scop = Ok(range.clone());
                    one.loops[a].scop = Ok(cut);
                    out.extend(crate::branch::source_arm_counts(&one, &f.name, &options));
                }
            }
        }
    }
    out
}

/// A conjunction with `var` replaced by `value`; `None` where a term overflows.
fn substituted(c: &[Condition], var: &str, value: &AffineExpr) -> Option<Vec<Condition>> {
    c.iter().map(|c| c.substituted(var, value).ok()).collect()
}

/// Source loop `a` folded where its enclosing counters' ranges decide a `min` or `max` (see
/// [`folded_within`]), with its counter's values, when it runs at most [`super::UNROLLED`]
/// times from one start expression.
fn unrolled_values(source: &SourceModel, a: usize) -> Option<(Loop, Vec<AffineExpr>)> {
    let l = folded_within(source, a)?;
    let last = super::most_iterations(&l).filter(|&t| (1..=super::UNROLLED).contains(&t))?;
    let [start] = l.start.exprs() else {
        return None;
    };
    let values = (0..last)
        .map(|c| start.plus_constant(c * l.stride).ok())
        .collect::<Option<Vec<_>>>()?;
    Some((l, values))
}

/// Source loop `a` with each `min` or `max` of its bounds cut to the pieces that can win,
/// given the constant ranges of its enclosing counters: within `for (i = 1; ...)`,
/// `MIN(2, i + 1)` is 2, as the compiler's value ranges know.
fn folded_within(source: &SourceModel, a: usize) -> Option<Loop> {
    let l = super::folded(source.loops[a].scop.as_ref().ok()?);
    let ranges: Ranges = std::iter::successors(source.loops[a].parent, |&p| source.loops[p].parent)
        .filter_map(|p| source.loops[p].scop.as_ref().ok())
        .map(|o| (o.var.as_str(), counter_range(&super::folded(o))))
        .collect();
    Some(fold_by_ranges(&l, &ranges))
}

/// The least and the greatest value of each counter, where known.
type Ranges<'a> = BTreeMap<&'a str, (Option<i64>, Option<i64>)>;

/// `l` with each `min`/`max` piece dropped that never beats a constant piece of the same
/// bound where the counters it reads stay in `ranges`.
fn fold_by_ranges(l: &Loop, ranges: &Ranges) -> Loop {
    let extreme = |e: &AffineExpr, least: bool| -> Option<i64> {
        e.terms.iter().try_fold(e.constant, |acc, (name, &k)| {
            let (low, high) = ranges.get(name.as_str())?;
            let v = if (k > 0) == least { (*low)? } else { (*high)? };
            acc.checked_add(k.checked_mul(v)?)
        })
    };
    let fold = |b: &Bound| {
        let (exprs, least) = match b {
            Bound::Min(v) => (v, true),
            Bound::Max(v) => (v, false),
        };
        let constants: Vec<i64> = exprs
            .iter()
            .filter(|e| e.terms.is_empty())
            .map(|e| e.constant)
            .collect();
        let Some(c) = (if least {
            constants.iter().min()
        } else {
            constants.iter().max()
        }) else {
            return b.clone();
        };
        // A piece that never beats the constant: at least it under `min`, at most under `max`.
        let wins = |e: &&AffineExpr| match extreme(e, least) {
            Some(v) if !e.terms.is_empty() => {
                if least {
                    v < *c
                } else {
                    v > *c
                }
            }
            _ => true,
        };
        let kept: Vec<AffineExpr> = exprs.iter().filter(wins).cloned().collect();
        match kept.as_slice() {
            [one] => Bound::single(one.clone()),
            _ if least => Bound::Min(kept),
            _ => Bound::Max(kept),
        }
    };
    let mut out = l.clone();
    out.start = fold(&l.start);
    out.end = fold(&l.end);
    out
}

/// The least and the greatest value a unit- or k-step counter takes, where a constant
/// bound gives it: counting up, its start is the least and its end the greatest.
fn counter_range(l: &Loop) -> (Option<i64>, Option<i64>) {
    let constant = |b: &Bound| match b.exprs() {
        [e] if e.terms.is_empty() => Some(e.constant),
        _ => None,
    };
    let start = constant(&l.start);
    // The last value is at most the end, less one where it is exclusive.
    let end = constant(&l.end).map(|e| {
        e - if l.end_inclusive {
            0
        } else {
            l.stride.signum()
        }
    });
    if l.stride > 0 {
        (start, end)
    } else {
        (end, start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(c: &str, var: &str) -> Option<Side> {
        solve(&Condition::parse(c).unwrap(), var)
    }

    fn e(s: &str) -> AffineExpr {
        AffineExpr::parse(s).unwrap()
    }

    #[test]
    fn a_condition_is_solved_for_the_counter() {
        assert_eq!(side("j < n - 1", "j"), Some(Side::Below(e("n - 2"))));
        assert_eq!(side("j <= n", "j"), Some(Side::Below(e("n"))));
        assert_eq!(side("n - 1 > j", "j"), Some(Side::Below(e("n - 2"))));
        assert_eq!(side("i - j >= 2", "j"), Some(Side::Below(e("i - 2"))));
        assert_eq!(side("j > i", "j"), Some(Side::Above(e("i + 1"))));
        assert_eq!(side("2*j < n", "j"), None);
        assert_eq!(side("j != i - 2", "j"), None);
        assert_eq!(side("i < n", "j"), None);
    }

    /// Every value of the split copies, by enumeration: the then copy holds exactly the
    /// iterations where the condition holds, the else copy the others.
    #[test]
    fn the_copies_partition_the_iterations() {
        let up = Loop::exclusive("j", "-1", "m - 1", 1).unwrap();
        let down = Loop {
            end_inclusive: true,
            ..Loop::exclusive("j", "m", "2", -1).unwrap()
        };
        for l in [up, down] {
            for c in ["j < n - 1", "j >= n", "n > j"] {
                let cond = Condition::parse(c).unwrap();
                let s = solve(&cond, "j").unwrap();
                let then = restricted(&l, &s).unwrap();
                let otherwise = restricted(&l, &s.negated().unwrap()).unwrap();
                for (n, m) in [(0, 9), (5, 9), (12, 9), (4, 4), (-3, 7)] {
                    let v = |x: &Loop| values(x, n, m);
                    let holds = |j: i64| {
                        let b = [("j", j), ("n", n), ("m", m)].map(|(k, v)| (k.to_string(), v));
                        cond.holds(&b.into_iter().collect()).unwrap()
                    };
                    let all = v(&l);
                    let want: Vec<i64> = all.iter().copied().filter(|&j| holds(j)).collect();
                    let rest: Vec<i64> = all.iter().copied().filter(|&j| !holds(j)).collect();
                    assert_eq!(v(&then), want, "{c} n={n} m={m} {l:?}");
                    assert_eq!(v(&otherwise), rest, "not {c} n={n} m={m}");
                }
            }
        }
    }

    /// `MIN(2, i + 1)` is 2 where `i >= 1`, not where `i` can be 0; `MAX(0, i - 5)` is 0
    /// where `i <= 4`; a piece reading an unranged counter stays.
    #[test]
    fn a_min_or_max_the_outer_ranges_decide_is_folded() {
        let down = Loop::exclusive("j", "6", "min(2, i + 1)", -3).unwrap();
        let ranged = |low, high| -> Ranges<'static> { [("i", (low, high))].into() };
        let end = |r: &Ranges| fold_by_ranges(&down, r).end;
        assert_eq!(end(&ranged(Some(1), None)), Bound::single(e("2")));
        assert_eq!(end(&ranged(Some(0), None)), down.end);
        assert_eq!(end(&Ranges::new()), down.end);
        let up = Loop::exclusive("j", "max(0, i - 5)", "n", 1).unwrap();
        let start = |r: &Ranges| fold_by_ranges(&up, r).start;
        assert_eq!(start(&ranged(None, Some(4))), Bound::single(e("0")));
        assert_eq!(start(&ranged(None, Some(6))), up.start);
        assert_eq!(
            counter_range(&Loop::exclusive("i", "1", "n", 1).unwrap()),
            (Some(1), None)
        );
        assert_eq!(
            counter_range(&Loop::exclusive("i", "9", "0", -2).unwrap()),
            (Some(1), Some(9))
        );
    }

    fn values(l: &Loop, n: i64, m: i64) -> Vec<i64> {
        let b: std::collections::BTreeMap<String, i64> =
            [("n", n), ("m", m)].map(|(k, v)| (k.to_string(), v)).into();
        let (start, end) = (l.start.evaluate(&b).unwrap(), l.end.evaluate(&b).unwrap());
        let mut out = Vec::new();
        let mut j = start;
        let inside = |j: i64| match (l.stride > 0, l.end_inclusive) {
            (true, true) => j <= end,
            (true, false) => j < end,
            (false, true) => j >= end,
            (false, false) => j > end,
        };
        while inside(j) {
            out.push(j);
            j += l.stride;
        }
        out
    }
}
