//! Guards: conjunctions of affine constraints (and congruences) on integer parameters.
//! A piece of a count holds only where its guard does (004 Fig. 5(b): `if y > 0:`).

use std::collections::{BTreeMap, BTreeSet};

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{One, Signed, Zero};

use crate::error::Error;
use crate::expr::{gcd_of, int_rat, Atom, LinExpr, Rational};
use crate::Binding;

/// The relation of a constraint's expression `e` to zero.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Relation {
    /// `e >= 0`
    NonNegative,
    /// `e == 0`
    Zero,
    /// `e ≡ 0 (mod m)`, with `m >= 2` (floor/Python semantics of `%`).
    Divisible(BigInt),
}

/// One normalised constraint `expr REL 0` with integer coefficients.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Constraint {
    expr: LinExpr,
    relation: Relation,
}

/// Result of normalising a constraint: decided, or a canonical constraint.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Normalized {
    True,
    False,
    Constraint(Constraint),
}

impl Constraint {
    pub fn expr(&self) -> &LinExpr {
        &self.expr
    }

    pub fn relation(&self) -> &Relation {
        &self.relation
    }

    /// `e >= 0`
    pub fn non_negative(e: LinExpr) -> Normalized {
        Self::normalize(e, Relation::NonNegative)
    }

    /// `e == 0`
    pub fn zero(e: LinExpr) -> Normalized {
        Self::normalize(e, Relation::Zero)
    }

    /// `e ≡ 0 (mod m)`; `e` must be integer-valued wherever the constraint is evaluated.
    pub fn divisible(e: LinExpr, m: BigInt) -> Normalized {
        Self::normalize(e, Relation::Divisible(m))
    }

    /// Canonical form: integer coefficients with gcd 1 (inequalities are tightened, which is
    /// exact because every atom is an integer).
    pub fn normalize(e: LinExpr, relation: Relation) -> Normalized {
        let (e, d) = e.integral_multiple();
        match relation {
            Relation::NonNegative => {
                if let Some(c) = e.as_constant() {
                    return decided(!c.is_negative());
                }
                let g = int_rat(&gcd_of(e.terms().values()));
                let mut out = LinExpr::zero();
                for (a, c) in e.terms() {
                    out.add_term(a.clone(), c / &g);
                }
                out.add_constant(&(e.constant_term() / &g).floor());
                Normalized::Constraint(Constraint {
                    expr: out,
                    relation: Relation::NonNegative,
                })
            }
            Relation::Zero => {
                if let Some(c) = e.as_constant() {
                    return decided(c.is_zero());
                }
                let g = gcd_of(e.terms().values());
                if !(e.constant_term().numer() % &g).is_zero() {
                    return Normalized::False;
                }
                let first_negative = e.terms().values().next().is_some_and(|c| c.is_negative());
                let g = if first_negative { -g } else { g };
                Normalized::Constraint(Constraint {
                    expr: e.scaled(&(Rational::one() / int_rat(&g))),
                    relation: Relation::Zero,
                })
            }
            Relation::Divisible(m) => {
                let m = m.abs() * d;
                let mut out = LinExpr::zero();
                for (a, c) in e.terms() {
                    let r = c.numer().mod_floor(&m);
                    if !r.is_zero() {
                        out.add_term(a.clone(), int_rat(&r));
                    }
                }
                out.add_constant(&int_rat(&e.constant_term().numer().mod_floor(&m)));
                if let Some(c) = out.as_constant() {
                    return decided(c.is_zero());
                }
                let g = gcd_of(
                    out.terms()
                        .values()
                        .chain(std::iter::once(out.constant_term())),
                )
                .gcd(&m);
                let m = &m / &g;
                if m.is_one() {
                    return Normalized::True;
                }
                Normalized::Constraint(Constraint {
                    expr: out.scaled(&(Rational::one() / int_rat(&g))),
                    relation: Relation::Divisible(m),
                })
            }
        }
    }

    /// The same relation on `expr[name := value]`.
    pub fn substitute(&self, name: &str, value: &LinExpr) -> Normalized {
        if !self.expr.contains_symbol(name) {
            return Normalized::Constraint(self.clone());
        }
        Self::normalize(self.expr.substitute(name, value), self.relation.clone())
    }

    pub fn holds(&self, binding: &Binding) -> Result<bool, Error> {
        let v = self.expr.evaluate(binding)?;
        Ok(match &self.relation {
            Relation::NonNegative => !v.is_negative(),
            Relation::Zero => v.is_zero(),
            Relation::Divisible(m) => v.is_integer() && v.to_integer().mod_floor(m).is_zero(),
        })
    }

    /// The integer complement of an inequality: `not (e >= 0)` is `-e - 1 >= 0`.
    pub(crate) fn negated_inequality(&self) -> Option<Constraint> {
        match (
            &self.relation,
            Self::non_negative(
                self.expr
                    .scaled(&crate::expr::rat(-1))
                    .minus(&LinExpr::integer(1)),
            ),
        ) {
            (Relation::NonNegative, Normalized::Constraint(c)) => Some(c),
            _ => None,
        }
    }
}

fn decided(b: bool) -> Normalized {
    if b {
        Normalized::True
    } else {
        Normalized::False
    }
}

/// A conjunction of constraints; the empty guard is `true`.
#[derive(
    Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(into = "crate::wire::GuardWire", try_from = "crate::wire::GuardWire")]
pub struct Guard {
    constraints: BTreeSet<Constraint>,
}

impl Guard {
    pub fn always() -> Self {
        Self::default()
    }

    pub fn constraints(&self) -> &BTreeSet<Constraint> {
        &self.constraints
    }

    pub fn is_always(&self) -> bool {
        self.constraints.is_empty()
    }

    /// Adds a constraint; returns `false` if the guard became contradictory.
    pub fn push(&mut self, c: Normalized) -> bool {
        match c {
            Normalized::True => true,
            Normalized::False => false,
            Normalized::Constraint(c) => {
                self.constraints.insert(c);
                true
            }
        }
    }

    /// The conjunction of two guards, or `None` if it is decidedly false.
    pub fn and(&self, other: &Guard) -> Option<Guard> {
        let mut g = self.clone();
        g.constraints.extend(other.constraints.iter().cloned());
        g.is_feasible().then_some(g)
    }

    pub(crate) fn from_set(constraints: BTreeSet<Constraint>) -> Self {
        Guard { constraints }
    }

    pub fn holds(&self, binding: &Binding) -> Result<bool, Error> {
        for c in &self.constraints {
            if !c.holds(binding)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    pub fn parameters(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for c in &self.constraints {
            c.expr.symbols(&mut out);
        }
        out
    }

    /// `false` only if no integer point satisfies the guard (decided by Fourier-Motzkin
    /// elimination over the rationals with integer tightening; `true` may be conservative).
    pub fn is_feasible(&self) -> bool {
        feasible_set(self.constraints.iter())
    }

    /// Drops inequalities implied by the others.
    pub fn without_redundant(&self) -> Guard {
        let mut kept: Vec<Constraint> = self.constraints.iter().cloned().collect();
        let mut i = 0;
        while i < kept.len() {
            if let Some(neg) = kept[i].negated_inequality() {
                let others = kept
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .map(|(_, c)| c)
                    .chain(std::iter::once(&neg));
                if !feasible_set(others) {
                    kept.remove(i);
                    continue;
                }
            }
            i += 1;
        }
        Guard {
            constraints: kept.into_iter().collect(),
        }
    }
}

/// Rows `sum(a_i x_i) + c >= 0` over integer unknowns.
type Row = (BTreeMap<usize, BigInt>, BigInt);

const MAX_ROWS: usize = 600;

pub(crate) fn feasible_set<'a>(constraints: impl Iterator<Item = &'a Constraint>) -> bool {
    let mut unknowns: BTreeMap<Atom, usize> = BTreeMap::new();
    let mut rows: BTreeSet<Row> = BTreeSet::new();
    let mut floors = BTreeSet::new();
    let mut exprs = Vec::new();
    for c in constraints {
        c.expr.floors(&mut floors);
        match c.relation {
            Relation::NonNegative => exprs.push(c.expr.clone()),
            Relation::Zero => {
                exprs.push(c.expr.clone());
                exprs.push(c.expr.scaled(&crate::expr::rat(-1)));
            }
            // Dropping a congruence only enlarges the set: the test stays sound.
            Relation::Divisible(_) => {}
        }
    }
    // floor(a) = f  implies  a - f >= 0  and  f - a + 1 > 0, i.e. d*(f - a) + d - 1 >= 0.
    for arg in floors {
        let f = LinExpr::atom(Atom::Floor(Box::new(arg.clone())));
        let (diff, d) = f.minus(&arg).integral_multiple();
        exprs.push(diff.scaled(&crate::expr::rat(-1)));
        exprs.push(diff.plus(&LinExpr::constant(int_rat(&(d - BigInt::one())))));
    }
    for e in exprs {
        let (e, _) = e.integral_multiple();
        let mut row = BTreeMap::new();
        for (a, c) in e.terms() {
            let n = unknowns.len();
            let idx = *unknowns.entry(a.clone()).or_insert(n);
            row.insert(idx, c.numer().clone());
        }
        match tighten((row, e.constant_term().numer().clone())) {
            Some(r) => {
                rows.insert(r);
            }
            None => return false,
        }
    }
    fourier_motzkin(rows, unknowns.len())
}

/// Divides a row by the gcd of its coefficients, rounding the constant down; `None` if the row
/// is a contradiction `c >= 0` with `c < 0`.
fn tighten((row, c): Row) -> Option<Row> {
    let row: BTreeMap<usize, BigInt> = row.into_iter().filter(|(_, a)| !a.is_zero()).collect();
    if row.is_empty() {
        return (!c.is_negative()).then_some((row, c));
    }
    let g = row.values().fold(BigInt::zero(), |acc, a| acc.gcd(a));
    Some((
        row.into_iter().map(|(k, a)| (k, a / &g)).collect(),
        c.div_floor(&g),
    ))
}

fn fourier_motzkin(mut rows: BTreeSet<Row>, unknowns: usize) -> bool {
    for x in 0..unknowns {
        let (with, without): (Vec<Row>, Vec<Row>) =
            rows.into_iter().partition(|(r, _)| r.contains_key(&x));
        let (pos, neg): (Vec<Row>, Vec<Row>) =
            with.into_iter().partition(|(r, _)| r[&x].is_positive());
        if pos.len() * neg.len() + without.len() > MAX_ROWS {
            return true; // too large to decide cheaply: assume feasible
        }
        rows = without.into_iter().collect();
        for (p, pc) in &pos {
            for (n, nc) in &neg {
                let a = &p[&x];
                let b = -&n[&x];
                let mut row: BTreeMap<usize, BigInt> = BTreeMap::new();
                for (k, v) in p {
                    *row.entry(*k).or_insert_with(BigInt::zero) += v * &b;
                }
                for (k, v) in n {
                    *row.entry(*k).or_insert_with(BigInt::zero) += v * a;
                }
                row.remove(&x);
                match tighten((row, pc * &b + nc * a)) {
                    Some(r) => {
                        rows.insert(r);
                    }
                    None => return false,
                }
            }
        }
    }
    rows.iter().all(|(_, c)| !c.is_negative())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::rat;

    fn ge(terms: &[(&str, i64)], c: i64) -> Normalized {
        let mut e = LinExpr::integer(c);
        for (n, k) in terms {
            e.add_term(Atom::Symbol(n.to_string()), rat(*k));
        }
        Constraint::non_negative(e)
    }

    #[test]
    fn integer_tightening_detects_parity_gaps() {
        // 2x >= 1 and 2x <= 1 has a rational solution but no integer one.
        let mut g = Guard::always();
        assert!(g.push(ge(&[("x", 2)], -1)));
        assert!(g.push(ge(&[("x", -2)], 1)));
        assert!(!g.is_feasible());
    }

    #[test]
    fn redundant_bounds_are_dropped() {
        let mut g = Guard::always();
        g.push(ge(&[("n", 1)], -1)); // n >= 1
        g.push(ge(&[("n", 1)], -3)); // n >= 3
        g.push(ge(&[("n", 1), ("m", -1)], 0)); // n >= m
        let r = g.without_redundant();
        assert_eq!(r.constraints().len(), 2);
        assert!(g.is_feasible());
    }

    #[test]
    fn congruence_normalisation() {
        // 4i + 2 ≡ 0 (mod 6)  <=>  2i + 1 ≡ 0 (mod 3)
        let mut e = LinExpr::integer(2);
        e.add_term(Atom::Symbol("i".into()), rat(4));
        let Normalized::Constraint(c) = Constraint::divisible(e, BigInt::from(6)) else {
            panic!("expected a constraint")
        };
        assert_eq!(c.relation(), &Relation::Divisible(BigInt::from(3)));
        for i in -7..7 {
            let b: Binding = [("i".to_string(), i)].into();
            assert_eq!(c.holds(&b).unwrap(), (4 * i + 2).rem_euclid(6) == 0);
        }
    }
}
