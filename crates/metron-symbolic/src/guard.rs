//! Guards: conjunctions of affine constraints (and congruences) on integer parameters.
//! A piece of a count holds only where its guard does (004 Fig. 5(b): `if y > 0:`).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

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
                if let Some(unfloored) = without_lone_floor(&e) {
                    return Self::normalize(unfloored, Relation::NonNegative);
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
            // Divisibility by 0 is equality with 0.
            Relation::Divisible(m) if m.is_zero() => Self::normalize(e, Relation::Zero),
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
        if let Some(v) = crate::small::lin(&self.expr, binding) {
            return Ok(match &self.relation {
                Relation::NonNegative => !v.is_negative(),
                Relation::Zero => v.is_zero(),
                Relation::Divisible(m) => v.divisible_by(m),
            });
        }
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

/// `k*floor(x) + R >= 0` (integer coefficients, `k` dividing those of `R`) without the floor:
/// with `R = k*S + c`, it is `x + S >= ceil(-c/k)` for `k > 0` and `x - S < floor(c/|k|) + 1`
/// for `k < 0`, because `S` is integer-valued and `floor(y) >= C <=> y >= C` for integer `C`.
fn without_lone_floor(e: &LinExpr) -> Option<LinExpr> {
    let mut floors = e
        .terms()
        .iter()
        .filter(|(a, _)| matches!(a, Atom::Floor(_)));
    let (Atom::Floor(x), k) = floors.next()? else {
        return None;
    };
    if floors.next().is_some() {
        return None;
    }
    let k = k.clone();
    let mut s = LinExpr::zero();
    for (a, c) in e.terms() {
        if !matches!(a, Atom::Floor(_)) {
            let q = c / &k;
            if !q.is_integer() {
                return None;
            }
            s.add_term(a.clone(), q);
        }
    }
    let c = e.constant_term() / &k;
    if k.is_positive() {
        // floor(x) + S >= -c  <=>  x + S - ceil(-c) >= 0
        let bound = (-c).ceil();
        Some(x.plus(&s).minus(&LinExpr::constant(bound)))
    } else {
        // floor(x) + S <= -c  (dividing by k < 0 flips)  <=>  x + S < floor(-c) + 1
        let limit = (-c).floor() + Rational::one();
        let strict = LinExpr::constant(limit).minus(x).minus(&s);
        let (_, d) = strict.integral_multiple();
        Some(strict.minus(&LinExpr::constant(Rational::new(BigInt::one(), d))))
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
    /// Shared: the pieces of many counts in one program carry the same guards.
    constraints: Arc<BTreeSet<Constraint>>,
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
                Arc::make_mut(&mut self.constraints).insert(c);
                true
            }
        }
    }

    /// The conjunction of two guards, or `None` if it is decidedly false.
    pub fn and(&self, other: &Guard) -> Option<Guard> {
        let mut g = self.clone();
        if !other.constraints.is_subset(&g.constraints) {
            Arc::make_mut(&mut g.constraints).extend(other.constraints.iter().cloned());
        }
        g.is_feasible().then_some(g)
    }

    pub(crate) fn from_set(constraints: BTreeSet<Constraint>) -> Self {
        Guard {
            constraints: Arc::new(constraints),
        }
    }

    pub fn holds(&self, binding: &Binding) -> Result<bool, Error> {
        for c in self.constraints.iter() {
            if !c.holds(binding)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    pub(crate) fn all_bound(&self, binding: &Binding) -> bool {
        self.constraints.iter().all(|c| c.expr.all_bound(binding))
    }

    pub fn parameters(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for c in self.constraints.iter() {
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
            constraints: Arc::new(kept.into_iter().collect()),
        }
    }
}

/// Dense row `sum(row[i] * x_i) + row[last] >= 0` over integer unknowns. Machine integers with
/// checked arithmetic: on overflow the test answers "feasible", which is always sound.
type Row = Vec<i128>;

const MAX_ROWS: usize = 600;

/// Magnitude beyond which the test gives up (answers feasible); keeps `abs` and `%` far from
/// `i128::MIN`.
const MAX_MAGNITUDE: i128 = 1 << 100;

fn small(v: &BigInt) -> Option<i128> {
    i128::try_from(v).ok().filter(|x| x.abs() < MAX_MAGNITUDE)
}

pub(crate) fn feasible_set<'a>(constraints: impl Iterator<Item = &'a Constraint>) -> bool {
    let constraints: Vec<&Constraint> = constraints.collect();
    congruences_feasible(&constraints) && inequalities_feasible(constraints.into_iter())
}

/// At most this many residue vectors are tried by [`congruences_feasible`].
const MAX_RESIDUE_VECTORS: u64 = 4096;

/// Whether the congruences among `constraints` have a common integer solution, each atom (a
/// `floor` too) taken as a free integer: a relaxation, so `false` is exact. A solution exists
/// iff one exists modulo the lcm `L` of the moduli, so the `L^k` residue vectors of the `k`
/// atoms decide it; past [`MAX_RESIDUE_VECTORS`] the answer is `true` (sound). Without it a
/// guard such as `2n ≡ 0 (mod 3) and 2n + 1 ≡ 0 (mod 3)` passes as feasible, and the pieces
/// of a count by residues multiply until counting gives up.
fn congruences_feasible(constraints: &[&Constraint]) -> bool {
    let congruences: Vec<(&LinExpr, i128)> = constraints
        .iter()
        .filter_map(|c| match &c.relation {
            Relation::Divisible(m) => Some((&c.expr, small(m)?)),
            _ => None,
        })
        .collect();
    if congruences.len() < 2 {
        return true;
    }
    let Some(modulus) = congruences
        .iter()
        .try_fold(1i128, |l, (_, m)| l.checked_mul(m / gcd(l, *m)))
    else {
        return true;
    };
    let atoms: Vec<&Atom> = congruences
        .iter()
        .flat_map(|(e, _)| e.terms().keys())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let vectors = u32::try_from(atoms.len())
        .ok()
        .and_then(|k| u64::try_from(modulus).ok()?.checked_pow(k));
    if vectors.is_none_or(|v| v > MAX_RESIDUE_VECTORS) {
        return true;
    }
    let Some(rows) = congruences
        .iter()
        .map(|(e, m)| residue_row(e, &atoms, *m))
        .collect::<Option<Vec<_>>>()
    else {
        return true;
    };
    let mut x = vec![0i128; atoms.len()];
    loop {
        if rows.iter().all(|(row, c, m)| {
            let v = row
                .iter()
                .zip(&x)
                .fold(*c, |acc, (a, xi)| (acc + a * xi) % m);
            v == 0
        }) {
            return true;
        }
        // The next residue vector, or the end.
        let Some(i) = x.iter().position(|xi| *xi + 1 < modulus) else {
            return false;
        };
        x[i] += 1;
        x[..i].iter_mut().for_each(|xi| *xi = 0);
    }
}

/// A congruence `e ≡ 0 (mod m)` as coefficients over `atoms` and a constant, reduced mod `m`.
fn residue_row(e: &LinExpr, atoms: &[&Atom], m: i128) -> Option<(Vec<i128>, i128, i128)> {
    let reduce = |r: &Rational| -> Option<i128> {
        r.is_integer()
            .then(|| small(r.numer()))
            .flatten()
            .map(|v| v.rem_euclid(m))
    };
    let row = atoms
        .iter()
        .map(|a| e.terms().get(*a).map_or(Some(0), reduce))
        .collect::<Option<Vec<_>>>()?;
    Some((row, reduce(e.constant_term())?, m))
}

/// [`feasible_set`] of the inequalities and equalities alone.
fn inequalities_feasible<'a>(constraints: impl Iterator<Item = &'a Constraint>) -> bool {
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
        let f = LinExpr::atom(Atom::Floor(std::sync::Arc::new(arg.clone())));
        let (diff, d) = f.minus(&arg).integral_multiple();
        exprs.push(diff.scaled(&crate::expr::rat(-1)));
        exprs.push(diff.plus(&LinExpr::constant(int_rat(&(d - BigInt::one())))));
    }
    let mut unknowns: BTreeMap<&Atom, usize> = BTreeMap::new();
    let integral: Vec<LinExpr> = exprs.iter().map(|e| e.integral_multiple().0).collect();
    for e in &integral {
        for a in e.terms().keys() {
            let n = unknowns.len();
            unknowns.entry(a).or_insert(n);
        }
    }
    let width = unknowns.len() + 1;
    let mut rows: Vec<Row> = Vec::with_capacity(integral.len());
    for e in &integral {
        let mut row = vec![0i128; width];
        for (a, c) in e.terms() {
            let Some(v) = small(c.numer()) else {
                return true;
            };
            row[unknowns[a]] = v;
        }
        let Some(v) = small(e.constant_term().numer()) else {
            return true;
        };
        row[width - 1] = v;
        match tighten(row) {
            Tight::Contradiction => return false,
            Tight::Trivial => {}
            Tight::Row(r) => rows.push(r),
        }
    }
    fourier_motzkin(rows, unknowns.len())
}

enum Tight {
    Contradiction,
    Trivial,
    Row(Row),
}

fn gcd(mut a: i128, mut b: i128) -> i128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a.abs()
}

/// Divides a row by the gcd of its coefficients, rounding the constant down (exact for
/// integer unknowns).
fn tighten(mut row: Row) -> Tight {
    let last = row.len() - 1;
    let g = row[..last].iter().fold(0, |acc, a| gcd(acc, *a));
    if g == 0 {
        return if row[last] < 0 {
            Tight::Contradiction
        } else {
            Tight::Trivial
        };
    }
    if g > 1 {
        for a in &mut row[..last] {
            *a /= g;
        }
        row[last] = row[last].div_euclid(g);
    }
    Tight::Row(row)
}

fn fourier_motzkin(mut rows: Vec<Row>, unknowns: usize) -> bool {
    let mut remaining: Vec<usize> = (0..unknowns).collect();
    while !remaining.is_empty() {
        rows.sort_unstable();
        rows.dedup();
        // Eliminate the unknown that creates the fewest new rows first.
        let cost = |x: usize| {
            let pos = rows.iter().filter(|r| r[x] > 0).count();
            let neg = rows.iter().filter(|r| r[x] < 0).count();
            pos * neg
        };
        let Some((at, &x)) = remaining.iter().enumerate().min_by_key(|(_, x)| cost(**x)) else {
            break;
        };
        remaining.swap_remove(at);
        let (with, mut next): (Vec<Row>, Vec<Row>) = rows.into_iter().partition(|r| r[x] != 0);
        let (pos, neg): (Vec<Row>, Vec<Row>) = with.into_iter().partition(|r| r[x] > 0);
        if pos.len() * neg.len() + next.len() > MAX_ROWS {
            return true; // too large to decide cheaply: assume feasible
        }
        for p in &pos {
            for n in &neg {
                let (a, b) = (p[x], -n[x]);
                let mut row = Vec::with_capacity(p.len());
                for (u, v) in p.iter().zip(n) {
                    let c = u
                        .checked_mul(b)
                        .and_then(|t| v.checked_mul(a)?.checked_add(t));
                    let Some(c) = c.filter(|c| c.abs() < MAX_MAGNITUDE) else {
                        return true;
                    };
                    row.push(c);
                }
                match tighten(row) {
                    Tight::Contradiction => return false,
                    Tight::Trivial => {}
                    Tight::Row(r) => next.push(r),
                }
            }
        }
        rows = next;
    }
    true
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

    /// `terms + constant ≡ 0 (mod modulus)`.
    type Congruence<'a> = (&'a [(&'a str, i64)], i64, i64);

    fn divisible(terms: &[(&str, i64)], c: i64, m: i64) -> Normalized {
        let mut e = LinExpr::integer(c);
        for (n, k) in terms {
            e.add_term(Atom::Symbol(n.to_string()), rat(*k));
        }
        Constraint::divisible(e, BigInt::from(m))
    }

    /// Brute force over a window wider than every modulus: whether some point of `x, y`
    /// satisfies all congruences `(terms, c, m)`.
    fn solvable(congruences: &[Congruence]) -> bool {
        (-30..30i64).any(|x| {
            (-30..30i64).any(|y| {
                congruences.iter().all(|(terms, c, m)| {
                    let v = c + terms
                        .iter()
                        .map(|(n, k)| k * if *n == "x" { x } else { y })
                        .sum::<i64>();
                    v.rem_euclid(*m) == 0
                })
            })
        })
    }

    #[test]
    fn contradictory_congruences_are_infeasible() {
        let cases: [&[Congruence]; 6] = [
            // 2x ≡ 0 and 2x + 1 ≡ 0 (mod 3): the pieces a count by residues of 3 made.
            &[(&[("x", 2)], 0, 3), (&[("x", 2)], 1, 3)],
            // x even and x ≡ 1 (mod 4)
            &[(&[("x", 1)], 0, 2), (&[("x", 1)], -1, 4)],
            // x even and x ≡ 1 (mod 3): x = 4
            &[(&[("x", 1)], 0, 2), (&[("x", 1)], -1, 3)],
            // x + y ≡ 0, x - y ≡ 1 (mod 2): parity of 2x
            &[
                (&[("x", 1), ("y", 1)], 0, 2),
                (&[("x", 1), ("y", -1)], -1, 2),
            ],
            // x + y ≡ 0 (mod 3), x - y ≡ 1 (mod 3), y ≡ 0 (mod 2)
            &[
                (&[("x", 1), ("y", 1)], 0, 3),
                (&[("x", 1), ("y", -1)], -1, 3),
                (&[("y", 1)], 0, 2),
            ],
            // 3x + y ≡ 2 (mod 6) and y ≡ 1 (mod 3)
            &[(&[("x", 3), ("y", 1)], -2, 6), (&[("y", 1)], -1, 3)],
        ];
        for case in cases {
            let mut g = Guard::always();
            let pushed = case.iter().all(|(t, c, m)| g.push(divisible(t, *c, *m)));
            assert_eq!(pushed && g.is_feasible(), solvable(case), "{case:?}");
        }
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
