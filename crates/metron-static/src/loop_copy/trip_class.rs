//! Trip classes of a source loop's entries. The guards around a loop's copies test its trip
//! count `N` (`N >= k`, and through the copies' remainders `N mod k1`); an entry runs a guard
//! when its `N` is in the guard's class. Counting the entries of a class is counting the
//! enclosing nest with the loop cut to one iteration (004 §III.C.2: the polyhedral count) and
//! conditions on `N` (004 §III.C.3: an `if` constraint added to the domain).

use std::collections::BTreeSet;

use metron_symbolic::{
    trip_count, AffineExpr, Bound, CmpOp, Condition, CountOptions, LoopNest, Piecewise,
};

use crate::source::SourceModel;

/// Entries of source loop `i` (summed over the enclosing nest) whose trip count is at least
/// `k`: the nest with the innermost loop cut to the single iteration `start + (k-1)*stride`.
pub fn entries_with_at_least(
    source: &SourceModel,
    i: usize,
    k: i64,
    options: &CountOptions,
) -> Result<Piecewise, String> {
    entries_where(source, i, k, None, options)
}

/// Entries of source loop `i` whose trip count `N` is at least `k` and, with `modulo =
/// (m, r)`, satisfies `N mod m == r`. `N` is `ceil(D / s)` with `D` the distance from the
/// start to the end (`+1` when inclusive) and `s` the step. A `max`/`min` bound is a piecewise
/// function (004 §III.C.2): in each piece one of its expressions is the bound's value, so the
/// entries are counted piece by piece with that expression as the only start or end. The one
/// case that needs no split is an end on the side the cut already tightens (`min` counting up,
/// `max` counting down) when no residue is asked. A step `s > 1` is counted by the `s`
/// residues of `D - 1 mod s*m` that give `N mod m == r`.
pub fn entries_where(
    source: &SourceModel,
    i: usize,
    k: i64,
    modulo: Option<(i64, i64)>,
    options: &CountOptions,
) -> Result<Piecewise, String> {
    let mut loops = source.nest_of(i)?;
    let Some(inner) = loops.pop() else {
        return Err("empty loop nest".into());
    };
    entries_in(&loops, &inner, k, modulo, options)
}

/// [`entries_where`], counted only where `arm` holds (conditions on the counters around
/// loop `i`): the entries of a loop the compiler unswitched on a test it contains.
pub fn entries_where_arm(
    source: &SourceModel,
    i: usize,
    k: i64,
    modulo: Option<(i64, i64)>,
    arm: &[Condition],
    options: &CountOptions,
) -> Result<Piecewise, String> {
    let mut loops = source.nest_of(i)?;
    let Some(inner) = loops.pop() else {
        return Err("empty loop nest".into());
    };
    entries_in_arm(&loops, &inner, k, modulo, arm, options)
}

/// Entries of source loop `i` with at least `k` iterations, counted at each level out whose
/// counters its bounds do not read: a compiler hoists the test of such a loop's trip count
/// (`N >= k`, a vector copy's guard) out of the loops around it, to run once per iteration
/// of the innermost loop whose counter the bounds read.
pub fn hoisted_entries_with_at_least(
    source: &SourceModel,
    i: usize,
    k: i64,
    options: &CountOptions,
) -> Vec<Piecewise> {
    let Ok(mut loops) = source.nest_of(i) else {
        return Vec::new();
    };
    let Some(inner) = loops.pop() else {
        return Vec::new();
    };
    if !inner.residues.is_empty() {
        return Vec::new();
    }
    let read: BTreeSet<&String> = inner.bound_names().collect();
    let mut out = Vec::new();
    while loops.last().is_some_and(|l| !read.contains(&l.var)) {
        loops.pop();
        out.extend(entries_in(&loops, &inner, k, None, options).ok());
    }
    out
}

/// `w`-wide passes (`w = 1`: iterations) of source loop `i` in its entries with at least `k`
/// iterations: a loop whose vector copy runs only where it has `k` iterations (gcc's
/// cost-model threshold) runs its scalar copy through the other entries, all their
/// iterations. The nest is counted whole, piece by piece of a `max`/`min` bound, with the
/// condition that its `k`-th value is before the end (004 §III.C.3, an `if` constraint on the
/// domain), and with `arm` (conditions on the counters around it: the side of an alias test
/// that also keeps the scalar copy, `[]` for none).
pub fn passes_in_entries_with_at_least(
    source: &SourceModel,
    i: usize,
    (w, k): (i64, i64),
    arm: &[Condition],
    options: &CountOptions,
) -> Result<Piecewise, String> {
    let mut loops = source.nest_of(i)?;
    let inner = loops.pop().ok_or("empty loop nest")?;
    if !inner.residues.is_empty() {
        return Err("bounds by residue".into());
    }
    let op = match (inner.stride > 0, inner.end_inclusive) {
        (true, false) => CmpOp::Lt,
        (true, true) => CmpOp::Le,
        (false, false) => CmpOp::Gt,
        (false, true) => CmpOp::Ge,
    };
    let mut total = Piecewise::zero();
    for (start, start_conditions) in pieces(&inner.start) {
        for (end, end_conditions) in pieces(&inner.end) {
            let at = start
                .plus_constant((k - 1) * inner.stride)
                .map_err(|e| e.to_string())?;
            let mut conditions = start_conditions.clone();
            conditions.extend(end_conditions);
            conditions.extend(arm.iter().cloned());
            conditions.push(Condition::Affine {
                lhs: at,
                op,
                rhs: end.clone(),
            });
            let mut whole = inner.clone();
            whole.start = Bound::single(start.clone());
            whole.end = Bound::single(end);
            let mut nest = loops.clone();
            nest.push(super::cascade::as_passes(&whole, w, 0).ok_or("a bound out of range")?);
            total = &total + &count(&nest, conditions, options)?;
        }
    }
    Ok(total)
}

/// What a jammed term counts of the inner loop per pass of its parent.
#[derive(Debug, Clone, Copy)]
pub enum PerEntry {
    /// Entries in a trip class ([`entries_where`]): at least `k` iterations, `N mod q == r`.
    Class(i64, Option<(i64, i64)>),
    /// Passes `k` wide.
    Passes(i64),
}

/// Source loop `i`'s entries ([`PerEntry`]) counted once per pass of its parent unrolled
/// `u` times after `peeled` iterations (unroll-and-jam: the parent's copies share one entry
/// of `i`'s copies), where `i`'s bounds do not read the parent's counter. `None` where they
/// do.
pub fn jammed_entries(
    source: &SourceModel,
    i: usize,
    (u, peeled): (i64, i64),
    per_entry: PerEntry,
    options: &CountOptions,
) -> Option<Piecewise> {
    let mut loops = source.nest_of(i).ok()?;
    let inner = loops.pop()?;
    let parent = loops.last_mut()?;
    if !inner.residues.is_empty() || inner.bound_names().any(|n| *n == parent.var) {
        return None;
    }
    *parent = super::cascade::as_passes(parent, u, peeled)?;
    match per_entry {
        PerEntry::Class(k, modulo) => entries_in(&loops, &inner, k, modulo, options).ok(),
        PerEntry::Passes(k) => {
            loops.push(super::cascade::as_passes(&inner, k, 0)?);
            trip_count(&LoopNest::new(loops), options).ok()
        }
    }
}

/// Whether loop `l`, entered once, is in trip class `(k, modulo)` ([`entries_where`]): 1 or
/// 0 by the parameters, for a loop whose bounds read no counter.
pub fn class_indicator(
    l: &metron_symbolic::Loop,
    k: i64,
    modulo: Option<(i64, i64)>,
    options: &CountOptions,
) -> Result<Piecewise, String> {
    entries_in(&[], l, k, modulo, options)
}

/// [`entries_where`] for `inner` inside `loops`.
fn entries_in(
    loops: &[metron_symbolic::Loop],
    inner: &metron_symbolic::Loop,
    k: i64,
    modulo: Option<(i64, i64)>,
    options: &CountOptions,
) -> Result<Piecewise, String> {
    entries_in_arm(loops, inner, k, modulo, &[], options)
}

/// [`entries_in`] where `arm` also holds.
fn entries_in_arm(
    loops: &[metron_symbolic::Loop],
    inner: &metron_symbolic::Loop,
    k: i64,
    modulo: Option<(i64, i64)>,
    arm: &[Condition],
    options: &CountOptions,
) -> Result<Piecewise, String> {
    // A down-counting loop is the mirror image: its end is a lower bound.
    let up = inner.stride > 0;
    let tightened = matches!(
        (&inner.end, up),
        (Bound::Min(_), true) | (Bound::Max(_), false)
    );
    let end_pieces = if tightened && modulo.is_none() {
        vec![(inner.end.exprs().to_vec(), Vec::new())]
    } else {
        pieces(&inner.end)
            .into_iter()
            .map(|(e, c)| (vec![e], c))
            .collect()
    };
    let mut total = Piecewise::zero();
    for (start, start_conditions) in pieces(&inner.start) {
        for (ends, end_conditions) in &end_pieces {
            let mut conditions = arm.to_vec();
            conditions.extend(start_conditions.iter().cloned());
            conditions.extend(end_conditions.iter().cloned());
            let mut cut = loops.to_vec();
            cut.push(cut_at(inner, &start, ends, k)?);
            let classes = match modulo {
                None => vec![conditions],
                Some((m, r)) => residue_classes(inner, &start, &ends[0], m, r, &conditions)?,
            };
            for c in classes {
                total = &total + &count(&cut, c, options)?;
            }
        }
    }
    Ok(total)
}

/// Source loop `inner` cut to its `k`-th iteration from `start`, run when that iteration is
/// still before every one of `ends`.
fn cut_at(
    inner: &metron_symbolic::Loop,
    start: &AffineExpr,
    ends: &[AffineExpr],
    k: i64,
) -> Result<metron_symbolic::Loop, String> {
    let at = start
        .plus_constant((k - 1) * inner.stride)
        .map_err(|e| e.to_string())?;
    let last = if inner.end_inclusive {
        at.clone()
    } else {
        at.plus_constant(inner.stride.signum())
            .map_err(|e| e.to_string())?
    };
    let mut cut_ends = ends.to_vec();
    cut_ends.push(last);
    let mut cut = inner.clone();
    cut.start = Bound::single(at);
    cut.end = if inner.stride > 0 {
        Bound::Min(cut_ends)
    } else {
        Bound::Max(cut_ends)
    };
    Ok(cut)
}

/// The conditions (added to `conditions`) under which a loop from `start` to `end` has a trip
/// count `N` with `N mod m == r`: `N = ceil(D/s) = floor((D-1)/s) + 1`, so `N mod m == r` iff
/// `(D-1) mod s*m` lies in `[s*((r-1) mod m), s*((r-1) mod m) + s)`, one class per residue.
fn residue_classes(
    inner: &metron_symbolic::Loop,
    start: &AffineExpr,
    end: &AffineExpr,
    m: i64,
    r: i64,
    conditions: &[Condition],
) -> Result<Vec<Vec<Condition>>, String> {
    let (step, inclusive) = (inner.stride.abs(), i64::from(inner.end_inclusive));
    let (high, low) = if inner.stride > 0 {
        (end, start)
    } else {
        (start, end)
    };
    let distance = high
        .plus_scaled(low, -1)
        .and_then(|e| e.plus_constant(inclusive - 1))
        .map_err(|e| e.to_string())?;
    let first = step * (r - 1).rem_euclid(m);
    Ok((first..first + step)
        .map(|t| {
            let mut c = conditions.to_vec();
            c.push(Condition::Modulo {
                expr: distance.clone(),
                modulus: step * m,
                residue: t,
                negated: false,
            });
            c
        })
        .collect())
}

/// The pieces of a bound: each expression with the conditions under which it is the bound's
/// value (the least of a `min`, the greatest of a `max`); ties go to the first expression, so
/// the pieces partition the domain. A single expression is one piece with no condition.
pub fn pieces(bound: &Bound) -> Vec<(AffineExpr, Vec<Condition>)> {
    let bound = bound.reduced();
    let exprs = bound.exprs();
    let least = matches!(bound, Bound::Min(_));
    (0..exprs.len())
        .map(|p| {
            let conditions = (0..exprs.len())
                .filter(|&q| q != p)
                .map(|q| {
                    let op = match (least, q < p) {
                        (true, true) => CmpOp::Lt,
                        (true, false) => CmpOp::Le,
                        (false, true) => CmpOp::Gt,
                        (false, false) => CmpOp::Ge,
                    };
                    Condition::Affine {
                        lhs: exprs[p].clone(),
                        op,
                        rhs: exprs[q].clone(),
                    }
                })
                .collect();
            (exprs[p].clone(), conditions)
        })
        .collect()
}

fn count(
    loops: &[metron_symbolic::Loop],
    conditions: Vec<Condition>,
    options: &CountOptions,
) -> Result<Piecewise, String> {
    let mut nest = LoopNest::new(loops.to_vec());
    nest.conditions = conditions;
    trip_count(&nest, options).map_err(|e| e.to_string())
}
