//! The shape of a generated nest: affine loops (004 §III.C.2's SCoPs) with `if`s on indices
//! and `?:` in the body, and the random choice of one.

use serde::Serialize;

use crate::rng::Rng;

/// The two size parameters every nest takes (run-time arguments, macro defaults).
pub const PARAMETERS: [&str; 2] = ["n", "m"];

/// `sum(coef * name) + constant` over parameters and outer loop variables.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Affine {
    pub terms: Vec<(i64, String)>,
    pub constant: i64,
}

/// A loop bound: an affine expression or the `MIN`/`MAX` of two (004 Listing 3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Bound {
    Affine(Affine),
    Min(Affine, Affine),
    Max(Affine, Affine),
}

/// The exit test `var OP end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Cmp {
    Lt,
    Le,
    Gt,
    Ge,
    Ne,
}

/// `for (var = start; var OP end; var += step)`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Loop {
    pub var: String,
    pub start: Bound,
    pub end: Bound,
    pub cmp: Cmp,
    pub step: i64,
    /// Declared in the `for` (`for (int i = ...)`) or before it.
    pub declared_in_for: bool,
    /// A statement before the inner loop (an imperfect nest), if any.
    pub pre_statement: bool,
}

/// A condition on indices: an affine comparison `lhs OP rhs` or `expr % modulus == 0`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Condition {
    Compare(Affine, Cmp, Affine),
    Modulo(Affine, i64),
}

/// The innermost body: an optional `if` (with or without `else`) and an optional `?:`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Body {
    pub guard: Option<(Condition, bool)>,
    pub select: Option<Condition>,
}

/// One generated nest with the parameter values it is run at.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Nest {
    pub seed: u64,
    pub loops: Vec<Loop>,
    pub body: Body,
    /// Values of [`PARAMETERS`], in order.
    pub values: [i64; 2],
}

/// What a nest may contain.
#[derive(Debug, Clone)]
pub struct Options {
    pub max_depth: usize,
    /// Upper limit of innermost-body executions at the chosen parameter values, so that a
    /// callgrind run stays short.
    pub max_body: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_depth: 4,
            max_body: 60_000,
        }
    }
}

const VARS: [&str; 4] = ["i", "j", "k", "l"];

impl Affine {
    pub fn constant(c: i64) -> Self {
        Affine {
            terms: Vec::new(),
            constant: c,
        }
    }

    pub fn name(name: &str, constant: i64) -> Self {
        Affine {
            terms: vec![(1, name.to_string())],
            constant,
        }
    }
}

impl Nest {
    /// A random nest from `seed` (the same seed gives the same nest on every machine).
    pub fn random(seed: u64, options: &Options) -> Nest {
        let mut rng = Rng::new(seed);
        let depth = 1 + rng.below(options.max_depth.clamp(1, 4) as u64) as usize;
        let loops = (0..depth).map(|d| random_loop(&mut rng, d)).collect();
        let body = Body {
            guard: rng
                .chance(1, 2)
                .then(|| (random_condition(&mut rng, depth), rng.chance(1, 2))),
            select: rng.chance(1, 3).then(|| random_condition(&mut rng, depth)),
        };
        let mut nest = Nest {
            seed,
            loops,
            body,
            values: [4 + rng.below(17) as i64, 4 + rng.below(17) as i64],
        };
        // Smaller sizes until one callgrind run stays short.
        while nest.counts().body > options.max_body && nest.values.iter().any(|v| *v > 2) {
            nest.values = nest.values.map(|v| (v * 2 / 3).max(2));
        }
        nest
    }
}

/// Loop `d` of a nest: up or down, bounds from constants, parameters, outer variables
/// (triangular) and `MIN`/`MAX`; unit or constant steps; every exit test.
fn random_loop(rng: &mut Rng, d: usize) -> Loop {
    let var = VARS[d].to_string();
    let up = rng.chance(2, 3);
    let magnitude = if rng.chance(3, 4) {
        1
    } else {
        2 + rng.below(3) as i64
    };
    let step = if up { magnitude } else { -magnitude };
    // `!=` only where the loop lands on its end: unit step, start on the near side.
    let ne = magnitude == 1 && rng.chance(1, 6);
    let (low, high) = if ne {
        (
            Bound::Affine(Affine::constant(rng.below(3) as i64)),
            Bound::Affine(Affine::name(
                PARAMETERS[rng.below(2) as usize],
                3 + rng.below(3) as i64,
            )),
        )
    } else {
        (random_bound(rng, d, true), random_bound(rng, d, false))
    };
    let cmp = match (ne, up, rng.chance(1, 2)) {
        (true, _, _) => Cmp::Ne,
        (false, true, true) => Cmp::Lt,
        (false, true, false) => Cmp::Le,
        (false, false, true) => Cmp::Gt,
        (false, false, false) => Cmp::Ge,
    };
    let (start, end) = if up { (low, high) } else { (high, low) };
    Loop {
        var,
        start,
        end,
        cmp,
        step,
        declared_in_for: rng.chance(1, 2),
        pre_statement: rng.chance(1, 4),
    }
}

/// A lower (`low`) or upper bound of loop `d`'s range.
fn random_bound(rng: &mut Rng, d: usize, low: bool) -> Bound {
    let one = |rng: &mut Rng| -> Affine {
        let outer = d > 0 && rng.chance(1, 3);
        match (low, outer) {
            (_, true) => Affine::name(VARS[rng.below(d as u64) as usize], rng.below(5) as i64 - 2),
            (true, false) => Affine::constant(rng.below(4) as i64 - 1),
            (false, false) if rng.chance(1, 4) => Affine::constant(4 + rng.below(9) as i64),
            (false, false) => {
                Affine::name(PARAMETERS[rng.below(2) as usize], rng.below(5) as i64 - 2)
            }
        }
    };
    match rng.below(6) {
        0 => Bound::Min(one(rng), one(rng)),
        1 => Bound::Max(one(rng), one(rng)),
        _ => Bound::Affine(one(rng)),
    }
}

/// A condition on the loop variables of a depth-`depth` nest and the parameters.
fn random_condition(rng: &mut Rng, depth: usize) -> Condition {
    let var = |rng: &mut Rng| VARS[rng.below(depth as u64) as usize].to_string();
    let mut lhs = Affine::name(&var(rng), 0);
    if depth > 1 && rng.chance(1, 2) {
        lhs.terms.push((1 + rng.below(2) as i64, var(rng)));
    }
    if rng.chance(1, 5) {
        return Condition::Modulo(lhs, 2 + rng.below(3) as i64);
    }
    let rhs = if rng.chance(1, 2) {
        Affine::name(PARAMETERS[rng.below(2) as usize], rng.below(5) as i64 - 2)
    } else {
        Affine::name(&var(rng), rng.below(5) as i64 - 2)
    };
    let cmp = [Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge, Cmp::Ne][rng.below(5) as usize];
    Condition::Compare(lhs, cmp, rhs)
}
