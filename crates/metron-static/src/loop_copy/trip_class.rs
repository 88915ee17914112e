//! Trip classes of a source loop's entries. The guards around a loop's copies test its trip
//! count `N` (`N >= k`, and through the copies' remainders `N mod k1`); an entry runs a guard
//! when its `N` is in the guard's class. Counting the entries of a class is counting the
//! enclosing nest with the loop cut to one iteration (004 §III.C.2: the polyhedral count) and
//! conditions on `N` (004 §III.C.3: an `if` constraint added to the domain).

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
/// start to the tightest end (`+1` when inclusive) and `s` the step, so a `min` end is counted
/// piece by piece (each piece: one end is the tightest) and a step `s > 1` by the `s` residues
/// of `D - 1 mod s*m` that give `N mod m == r`.
pub fn entries_where(
    source: &SourceModel,
    i: usize,
    k: i64,
    modulo: Option<(i64, i64)>,
    options: &CountOptions,
) -> Result<Piecewise, String> {
    let mut loops = source.nest_of(i)?;
    let Some(inner) = loops.last_mut() else {
        return Err("empty loop nest".into());
    };
    let (Bound::Max(starts) | Bound::Min(starts)) = &inner.start;
    if starts.len() != 1 {
        return Err("guard of a loop without a single start".into());
    }
    // A down-counting loop is the mirror image: its end is a lower bound (`max`).
    let up = inner.stride > 0;
    let start = starts[0].clone();
    let at = start
        .plus_constant((k - 1) * inner.stride)
        .map_err(|e| e.to_string())?;
    let last = if inner.end_inclusive {
        at.clone()
    } else {
        at.plus_constant(inner.stride.signum())
            .map_err(|e| e.to_string())?
    };
    let ends = match (&inner.end, up) {
        (Bound::Min(v), true) | (Bound::Max(v), false) => v.clone(),
        (b, _) if b.exprs().len() == 1 => b.exprs().to_vec(),
        _ => return Err("guard of a loop with a max end bound (min when counting down)".into()),
    };
    let (step, inclusive) = (inner.stride.abs(), i64::from(inner.end_inclusive));
    let mut cut_ends = ends.clone();
    cut_ends.push(last);
    inner.start = Bound::single(at);
    inner.end = if up {
        Bound::Min(cut_ends)
    } else {
        Bound::Max(cut_ends)
    };
    let Some((m, r)) = modulo else {
        return count(&loops, Vec::new(), options);
    };
    let mut total = Piecewise::zero();
    for p in 0..ends.len() {
        let tightest = tightest_end(&ends, p, up);
        let (high, low) = if up {
            (&ends[p], &start)
        } else {
            (&start, &ends[p])
        };
        let distance = high
            .plus_scaled(low, -1)
            .and_then(|e| e.plus_constant(inclusive - 1))
            .map_err(|e| e.to_string())?;
        // N = ceil(D/s) = floor((D-1)/s) + 1, so N mod m == r iff (D-1) mod s*m lies in
        // [s*((r-1) mod m), s*((r-1) mod m) + s).
        let first = step * (r - 1).rem_euclid(m);
        for t in first..first + step {
            let mut conditions = tightest.clone();
            conditions.push(Condition::Modulo {
                expr: distance.clone(),
                modulus: step * m,
                residue: t,
                negated: false,
            });
            total = &total + &count(&loops, conditions, options)?;
        }
    }
    Ok(total)
}

/// Conditions under which `ends[p]` is the tightest end (the least of a `min` when counting
/// up, the greatest of a `max` when counting down); ties go to the first end, so the pieces
/// partition the domain.
fn tightest_end(ends: &[AffineExpr], p: usize, up: bool) -> Vec<Condition> {
    (0..ends.len())
        .filter(|&q| q != p)
        .map(|q| {
            let op = match (up, q < p) {
                (true, true) => CmpOp::Lt,
                (true, false) => CmpOp::Le,
                (false, true) => CmpOp::Gt,
                (false, false) => CmpOp::Ge,
            };
            Condition::Affine {
                lhs: ends[p].clone(),
                op,
                rhs: ends[q].clone(),
            }
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
