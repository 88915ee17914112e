//! Exact counting of the integer points of an affine loop nest (004 III.C.2-3): the number of
//! executions of the body as a piecewise quasi-polynomial in the parameters.
//!
//! Algorithm (innermost loop first):
//! 1. The nest becomes a conjunction of constraints per case. A bound that is a `min` where a
//!    lower bound needs a `max` (or the reverse, 004 Listing 3), or a `max`/`min` start of a
//!    loop with a non-unit stride, is split into cases, one per active expression, with
//!    tie-breaking guards so that the cases are disjoint. A stride `s` adds the congruence
//!    `var - start ≡ 0 (mod s)`; a modulo condition adds a congruence.
//! 2. To sum out a variable `v`, floors and congruences that involve `v` are first removed by
//!    a residue split `v := M*v' + r, r = 0..M-1`, after which every floor is free of `v`.
//! 3. An equality fixes `v`. Otherwise every inequality is a lower bound `ceil(q/c)` or an
//!    upper bound `floor(q/c)` on `v`; for each pair of active lower and upper bounds (again
//!    with tie-breaking guards) the summand is summed with Faulhaber's formulas,
//!    `sum_{v=L..U} v^k = F_k(U) - F_k(L-1)`, under the guard `U >= L`.
//! 4. Cases whose guards are infeasible (Fourier-Motzkin with integer tightening) are dropped
//!    and cases with equal guards merged after every step.

use std::collections::{BTreeMap, BTreeSet};

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};
use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::expr::{int_rat, rat, LinExpr, Rational};
use crate::guard::{feasible_set, Constraint, Guard, Normalized, Relation};
use crate::nest::{AffineExpr, Bound, CmpOp, Condition, Loop, LoopNest};
use crate::piecewise::{Piece, Piecewise};
use crate::poly::{sum_over_range, QuasiPolynomial};

/// How a `!=` condition (affine or modulo) is counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NotEqualRule {
    /// As a disjoint union: `e != 0` is `e > 0 or e < 0`; `e % m != r` is the union of the
    /// other residues. Exact quasi-polynomial pieces.
    #[default]
    Split,
    /// 004 III.C.3: `Count_true = Count_loop_total - Count_false`. Equally exact; the result
    /// has the form the paper describes.
    Complement,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountOptions {
    #[serde(default)]
    pub not_equal: NotEqualRule,
    /// Most cases kept while summing out one variable; beyond it counting stops with
    /// [`Error::TooComplex`] instead of running away (default 1000).
    #[serde(default = "default_max_cases")]
    pub max_cases: usize,
}

fn default_max_cases() -> usize {
    1_000
}

impl Default for CountOptions {
    fn default() -> Self {
        CountOptions {
            not_equal: NotEqualRule::default(),
            max_cases: default_max_cases(),
        }
    }
}

/// Largest modulus of a single residue split; beyond it counting stops with an error rather
/// than producing thousands of pieces.
const MAX_SPLIT: u32 = 256;
const MAX_SPLIT_ROUNDS: usize = 16;

/// Number of executions of the body of `nest` (004 III.C.2).
pub fn trip_count(nest: &LoopNest, options: &CountOptions) -> Result<Piecewise, Error> {
    sum_over(nest, &QuasiPolynomial::integer(1), options)
}

/// 1 where all `conditions` hold, 0 elsewhere: a branch guard on parameters outside any loop
/// as a count (004 III.C.3), e.g. `if n > 0: 1`.
pub fn indicator(conditions: &[Condition], options: &CountOptions) -> Result<Piecewise, Error> {
    let nest = LoopNest {
        loops: Vec::new(),
        conditions: conditions.to_vec(),
    };
    trip_count(&nest, options)
}

/// `sum of summand(point)` over the integer points of `nest`; the summand may use loop
/// variables and parameters (e.g. an inner trip count that depends on outer variables).
pub fn sum_over(
    nest: &LoopNest,
    summand: &QuasiPolynomial,
    options: &CountOptions,
) -> Result<Piecewise, Error> {
    memo::remembered(nest, summand, options, count_uncached)
}

/// Counts are pure functions of their input, and a program model asks for the same nest many
/// times (every block of an `if` arm, every kernel written from the same pattern): the last
/// few thousand results are kept per thread.
mod memo {
    use std::cell::RefCell;
    use std::collections::HashMap;

    use super::{CountOptions, Error, LoopNest, Piecewise, QuasiPolynomial};

    const CAPACITY: usize = 4096;

    thread_local! {
        static MEMO: RefCell<HashMap<String, Result<Piecewise, Error>>> =
            RefCell::new(HashMap::new());
    }

    pub(super) fn remembered(
        nest: &LoopNest,
        summand: &QuasiPolynomial,
        options: &CountOptions,
        count: impl FnOnce(&LoopNest, &QuasiPolynomial, &CountOptions) -> Result<Piecewise, Error>,
    ) -> Result<Piecewise, Error> {
        let key = serde_json::to_string(&(nest, summand, options)).ok();
        if let Some(hit) = key
            .as_ref()
            .and_then(|k| MEMO.with(|m| m.borrow().get(k).cloned()))
        {
            return hit;
        }
        let result = count(nest, summand, options);
        if let Some(k) = key {
            MEMO.with(|m| {
                let mut m = m.borrow_mut();
                if m.len() >= CAPACITY {
                    m.clear();
                }
                m.insert(k, result.clone());
            });
        }
        result
    }
}

fn count_uncached(
    nest: &LoopNest,
    summand: &QuasiPolynomial,
    options: &CountOptions,
) -> Result<Piecewise, Error> {
    nest.validate()?;
    if let Some(parts) = crate::residue::nest_parts(nest)? {
        let mut total = Piecewise::zero();
        for part in &parts {
            total = &total + &sum_over(part, summand, options)?;
        }
        return Ok(total);
    }
    let mut systems = initial_systems(nest, summand, options)?;
    for l in nest.loops.iter().rev() {
        let mut next = Vec::new();
        for s in systems {
            eliminate(s, &l.var, options.max_cases, &mut next)?;
            if next.len() > options.max_cases {
                return Err(Error::TooComplex {
                    message: format!(
                        "more than {} cases while summing over `{}`",
                        options.max_cases, l.var
                    ),
                });
            }
        }
        systems = merge(next);
    }
    let pieces = systems
        .into_iter()
        .map(|s| Piece {
            guard: Guard::from_set(s.constraints),
            value: s.summand,
        })
        .collect();
    Ok(Piecewise::from_pieces(pieces))
}

/// One case: a conjunction of constraints and the quantity summed over its points.
#[derive(Clone, Debug)]
struct System {
    constraints: BTreeSet<Constraint>,
    summand: QuasiPolynomial,
}

impl System {
    fn add(&mut self, c: Normalized) -> bool {
        match c {
            Normalized::True => true,
            Normalized::False => false,
            Normalized::Constraint(c) => {
                self.constraints.insert(c);
                true
            }
        }
    }

    fn substitute(&self, var: &str, value: &LinExpr) -> Option<System> {
        let mut out = System {
            constraints: BTreeSet::new(),
            summand: self.summand.substitute(var, value),
        };
        for c in &self.constraints {
            if !out.add(c.substitute(var, value)) {
                return None;
            }
        }
        Some(out)
    }

    fn is_feasible(&self) -> bool {
        feasible_set(self.constraints.iter())
    }
}

/// An alternative of a disjunction: a sign (for the complement rule) and constraints.
type Alternative = (i64, Vec<Normalized>);

fn initial_systems(
    nest: &LoopNest,
    summand: &QuasiPolynomial,
    options: &CountOptions,
) -> Result<Vec<System>, Error> {
    let mut systems = vec![System {
        constraints: BTreeSet::new(),
        summand: summand.clone(),
    }];
    let groups = nest.loops.iter().map(loop_alternatives).chain(
        nest.conditions
            .iter()
            .map(|c| condition_alternatives(c, options)),
    );
    for alternatives in groups {
        let mut next = Vec::new();
        for s in &systems {
            for (sign, constraints) in &alternatives {
                let mut t = System {
                    constraints: s.constraints.clone(),
                    summand: s.summand.scaled(&rat(*sign)),
                };
                if constraints.iter().all(|c| t.add(c.clone())) && t.is_feasible() {
                    next.push(t);
                }
            }
        }
        if next.len() > options.max_cases {
            return Err(Error::TooComplex {
                message: format!(
                    "more than {} cases from max/min bounds and conditions",
                    options.max_cases
                ),
            });
        }
        systems = next;
    }
    Ok(systems)
}

fn lin(e: &AffineExpr) -> LinExpr {
    e.to_lin()
}

fn distinct(exprs: &[AffineExpr]) -> Vec<LinExpr> {
    let mut seen = BTreeSet::new();
    exprs
        .iter()
        .map(lin)
        .filter(|e| seen.insert(e.clone()))
        .collect()
}

/// Guards making `exprs[active]` the maximum (or minimum) with ties going to the first.
fn tie_breaks(exprs: &[LinExpr], active: usize, maximum: bool) -> Vec<Normalized> {
    let mut out = Vec::new();
    for (b, e) in exprs.iter().enumerate() {
        if b == active {
            continue;
        }
        let diff = if maximum {
            exprs[active].minus(e)
        } else {
            e.minus(&exprs[active])
        };
        let strict = if b < active { 1 } else { 0 };
        out.push(Constraint::non_negative(
            diff.minus(&LinExpr::integer(strict)),
        ));
    }
    out
}

/// Constraints of one loop, as alternatives (004 III.C.2, Listing 3 for split bounds).
fn loop_alternatives(l: &Loop) -> Vec<Alternative> {
    let v = LinExpr::symbol(&l.var);
    let up = l.stride > 0;
    let step = BigInt::from(l.stride).abs();
    // `var` is on the far side of `e`: var >= e when counting up, var <= e when counting down.
    let beyond =
        |e: &LinExpr, up: bool| Constraint::non_negative(if up { v.minus(e) } else { e.minus(&v) });

    let starts = distinct(l.start.exprs());
    let start_is_max = matches!(l.start, Bound::Max(_));
    let start_alts: Vec<Vec<Normalized>> = if start_is_max == up && step.is_one() {
        vec![starts.iter().map(|e| beyond(e, up)).collect()]
    } else {
        (0..starts.len())
            .map(|a| {
                let mut cs = tie_breaks(&starts, a, start_is_max);
                cs.push(beyond(&starts[a], up));
                if !step.is_one() {
                    cs.push(Constraint::divisible(v.minus(&starts[a]), step.clone()));
                }
                cs
            })
            .collect()
    };

    let shift = match (l.end_inclusive, up) {
        (true, _) => 0,
        (false, true) => -1,
        (false, false) => 1,
    };
    let ends: Vec<LinExpr> = distinct(l.end.exprs())
        .into_iter()
        .map(|e| e.plus(&LinExpr::integer(shift)))
        .collect();
    let end_is_max = matches!(l.end, Bound::Max(_));
    let end_alts: Vec<Vec<Normalized>> = if end_is_max != up {
        vec![ends.iter().map(|e| beyond(e, !up)).collect()]
    } else {
        (0..ends.len())
            .map(|b| {
                let mut cs = tie_breaks(&ends, b, end_is_max);
                cs.push(beyond(&ends[b], !up));
                cs
            })
            .collect()
    };

    let mut out = Vec::new();
    for s in &start_alts {
        for e in &end_alts {
            out.push((1, s.iter().chain(e).cloned().collect()));
        }
    }
    out
}

fn condition_alternatives(c: &Condition, options: &CountOptions) -> Vec<Alternative> {
    let complement = options.not_equal == NotEqualRule::Complement;
    match c {
        Condition::Affine { lhs, op, rhs } => {
            let d = lin(lhs).minus(&lin(rhs));
            let one = LinExpr::integer(1);
            let neg = d.scaled(&rat(-1));
            match op {
                CmpOp::Lt => vec![(1, vec![Constraint::non_negative(neg.minus(&one))])],
                CmpOp::Le => vec![(1, vec![Constraint::non_negative(neg)])],
                CmpOp::Gt => vec![(1, vec![Constraint::non_negative(d.minus(&one))])],
                CmpOp::Ge => vec![(1, vec![Constraint::non_negative(d)])],
                CmpOp::Eq => vec![(1, vec![Constraint::zero(d)])],
                CmpOp::Ne if complement => vec![(1, vec![]), (-1, vec![Constraint::zero(d)])],
                CmpOp::Ne => vec![
                    (1, vec![Constraint::non_negative(d.minus(&one))]),
                    (1, vec![Constraint::non_negative(neg.minus(&one))]),
                ],
            }
        }
        Condition::Modulo {
            expr,
            modulus,
            residue,
            negated,
        } => {
            let m = BigInt::from(*modulus);
            let in_range = (0..*modulus).contains(residue);
            let congruent =
                |r: i64| Constraint::divisible(lin(expr).minus(&LinExpr::integer(r)), m.clone());
            match (negated, in_range) {
                (false, true) => vec![(1, vec![congruent(*residue)])],
                (false, false) => vec![],
                (true, false) => vec![(1, vec![])],
                (true, true) if complement => vec![(1, vec![]), (-1, vec![congruent(*residue)])],
                (true, true) => (0..*modulus)
                    .filter(|r| r != residue)
                    .map(|r| (1, vec![congruent(r)]))
                    .collect(),
            }
        }
    }
}

/// Sums `var` out of one case, appending the resulting cases to `out`.
fn eliminate(
    system: System,
    var: &str,
    max_cases: usize,
    out: &mut Vec<System>,
) -> Result<(), Error> {
    let mut pending = vec![system];
    for _ in 0..MAX_SPLIT_ROUNDS {
        let mut next = Vec::new();
        for s in pending {
            let m = residue_modulus(&s, var);
            if m.is_one() {
                sum_out(s, var, out)?;
                continue;
            }
            let m_small: u32 = u32::try_from(&m)
                .ok()
                .filter(|m| *m <= MAX_SPLIT)
                .ok_or_else(|| Error::TooComplex {
                    message: format!("residue split of `{var}` modulo {m} exceeds {MAX_SPLIT}"),
                })?;
            for r in 0..m_small {
                let value = LinExpr::symbol(var)
                    .scaled(&int_rat(&m))
                    .plus(&LinExpr::integer(i64::from(r)));
                if let Some(t) = s.substitute(var, &value) {
                    if t.is_feasible() {
                        next.push(t);
                    }
                }
            }
        }
        if next.is_empty() {
            return Ok(());
        }
        if next.len() > max_cases {
            return Err(Error::TooComplex {
                message: format!("more than {max_cases} residue cases while summing over `{var}`"),
            });
        }
        pending = next;
    }
    Err(Error::TooComplex {
        message: format!(
            "floors of `{var}` did not resolve after {MAX_SPLIT_ROUNDS} residue splits"
        ),
    })
}

/// The modulus `M` such that `var := M*var' + r` frees every floor and congruence from `var`.
fn residue_modulus(s: &System, var: &str) -> BigInt {
    let mut m = BigInt::one();
    for c in &s.constraints {
        if let Relation::Divisible(modulus) = c.relation() {
            let coef = c.expr().coefficient_of(var);
            if !coef.is_zero() {
                m = m.lcm(&(modulus / coef.numer().gcd(modulus)));
            }
        }
        c.expr().floor_denominators_of(var, &mut m);
    }
    s.summand.floor_denominators_of(var, &mut m);
    m
}

fn sum_out(s: System, var: &str, out: &mut Vec<System>) -> Result<(), Error> {
    let (with, without): (Vec<Constraint>, Vec<Constraint>) = s
        .constraints
        .iter()
        .cloned()
        .partition(|c| c.expr().contains_symbol(var));
    let mut lowers = BTreeSet::new();
    let mut uppers = BTreeSet::new();
    for c in &with {
        let coef = c.expr().coefficient_of(var);
        let rest = c.expr().without_symbol(var);
        if coef.is_zero() || rest.contains_symbol(var) {
            return Err(Error::TooComplex {
                message: format!("`{var}` remains inside a floor after residue splitting"),
            });
        }
        match c.relation() {
            Relation::Zero => return fix_by_equality(&s, var, &coef, &rest, out),
            Relation::NonNegative if coef.is_positive() => {
                lowers.insert(rest.scaled(&(-Rational::one() / &coef)).ceil());
            }
            Relation::NonNegative => {
                uppers.insert(rest.scaled(&(-Rational::one() / &coef)).floor());
            }
            Relation::Divisible(_) => {
                return Err(Error::TooComplex {
                    message: format!("congruence on `{var}` survived residue splitting"),
                })
            }
        }
    }
    let lowers = without_dominated(lowers.into_iter().collect(), &without, true);
    let uppers = without_dominated(uppers.into_iter().collect(), &without, false);
    for (side, bounds) in [("lower", &lowers), ("upper", &uppers)] {
        if bounds.is_empty() {
            return Err(Error::Unbounded {
                var: var.to_string(),
                side: side.to_string(),
            });
        }
    }
    let coefficients = s.summand.coefficients_in(var);
    for a in 0..lowers.len() {
        for b in 0..uppers.len() {
            let mut t = System {
                constraints: without.iter().cloned().collect(),
                summand: QuasiPolynomial::zero(),
            };
            let guards = tie_breaks(&lowers, a, true)
                .into_iter()
                .chain(tie_breaks(&uppers, b, false))
                .chain([Constraint::non_negative(uppers[b].minus(&lowers[a]))]);
            let mut ok = true;
            for g in guards {
                ok &= t.add(g);
            }
            if !ok || !t.is_feasible() {
                continue;
            }
            t.summand = sum_over_range(&coefficients, &lowers[a], &uppers[b]);
            out.push(t);
        }
    }
    Ok(())
}

/// Drops bounds that the outer constraints prove never active: a lower bound below another
/// lower bound (or an upper bound above another), so that fewer cases are split off.
fn without_dominated(mut bounds: Vec<LinExpr>, outer: &[Constraint], lower: bool) -> Vec<LinExpr> {
    let mut i = 0;
    while i < bounds.len() && bounds.len() > 1 {
        let dominated = (0..bounds.len()).any(|j| {
            // bounds[i] is never the active one if bounds[j] is always at least as tight.
            let tighter = if lower {
                bounds[j].minus(&bounds[i])
            } else {
                bounds[i].minus(&bounds[j])
            };
            j != i && implied(outer, tighter)
        });
        if dominated {
            bounds.remove(i);
        } else {
            i += 1;
        }
    }
    bounds
}

/// Whether `e >= 0` holds at every integer point of `constraints` (decided conservatively).
fn implied(constraints: &[Constraint], e: LinExpr) -> bool {
    let negation = Constraint::non_negative(e.scaled(&rat(-1)).minus(&LinExpr::integer(1)));
    match negation {
        Normalized::True => false,
        Normalized::False => true,
        Normalized::Constraint(c) => !feasible_set(constraints.iter().chain([&c])),
    }
}

/// `coef*var + rest == 0` leaves one point: `var = -rest/coef`, which must be an integer.
fn fix_by_equality(
    s: &System,
    var: &str,
    coef: &Rational,
    rest: &LinExpr,
    out: &mut Vec<System>,
) -> Result<(), Error> {
    let value = rest.scaled(&(-Rational::one() / coef));
    let Some(mut t) = s.substitute(var, &value) else {
        return Ok(());
    };
    let divisor = coef.numer().abs();
    if !divisor.is_one() && !t.add(Constraint::divisible(rest.clone(), divisor)) {
        return Ok(());
    }
    if t.is_feasible() {
        out.push(t);
    }
    Ok(())
}

/// Merges cases with identical constraints and drops cases that sum to zero.
fn merge(systems: Vec<System>) -> Vec<System> {
    let mut by: BTreeMap<BTreeSet<Constraint>, QuasiPolynomial> = BTreeMap::new();
    for s in systems {
        let slot = by.entry(s.constraints).or_default();
        *slot = &*slot + &s.summand;
    }
    by.into_iter()
        .filter(|(_, v)| !v.is_zero())
        .map(|(constraints, summand)| System {
            constraints,
            summand,
        })
        .collect()
}
