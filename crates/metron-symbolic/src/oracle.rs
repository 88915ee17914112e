//! The brute-force oracle: walks a loop nest point by point, exactly as the C loops would run.
//! Tests compare every symbolic count against it.

use std::collections::BTreeMap;

use crate::error::Error;
use crate::nest::LoopNest;
use crate::Binding;

/// Number of body executions of `nest` under `binding`, by enumeration. Stops with
/// [`Error::TooManyPoints`] after `limit` loop iterations (any level).
pub fn enumerate(nest: &LoopNest, binding: &Binding, limit: u64) -> Result<u64, Error> {
    let mut count = 0u64;
    for_each_point(nest, binding, limit, |_| count += 1)?;
    Ok(count)
}

/// Calls `visit` with the values of all names (parameters and loop variables) at every
/// execution of the body.
pub fn for_each_point(
    nest: &LoopNest,
    binding: &Binding,
    limit: u64,
    mut visit: impl FnMut(&BTreeMap<String, i64>),
) -> Result<(), Error> {
    nest.validate()?;
    let mut values = binding.clone();
    let mut steps = 0u64;
    walk(nest, 0, &mut values, &mut steps, limit, &mut visit)
}

fn walk(
    nest: &LoopNest,
    depth: usize,
    values: &mut BTreeMap<String, i64>,
    steps: &mut u64,
    limit: u64,
    visit: &mut impl FnMut(&BTreeMap<String, i64>),
) -> Result<(), Error> {
    let Some(l) = nest.loops.get(depth) else {
        for c in &nest.conditions {
            if !c.holds(values)? {
                return Ok(());
            }
        }
        visit(values);
        return Ok(());
    };
    for r in &l.residues {
        let x = r.expr.evaluate(values)?.rem_euclid(r.modulus.max(1));
        values.insert(r.symbol.clone(), x);
    }
    let end = l.end.evaluate(values)?;
    let mut v = l.start.evaluate(values)?;
    let saved = values.get(&l.var).copied();
    loop {
        let inside = match (l.stride > 0, l.end_inclusive) {
            (true, true) => v <= end,
            (true, false) => v < end,
            (false, true) => v >= end,
            (false, false) => v > end,
        };
        if !inside {
            break;
        }
        *steps += 1;
        if *steps > limit {
            return Err(Error::TooManyPoints { limit });
        }
        values.insert(l.var.clone(), v);
        walk(nest, depth + 1, values, steps, limit, visit)?;
        v = match v.checked_add(l.stride) {
            Some(next) => next,
            None => break,
        };
    }
    match saved {
        Some(x) => values.insert(l.var.clone(), x),
        None => values.remove(&l.var),
    };
    Ok(())
}
