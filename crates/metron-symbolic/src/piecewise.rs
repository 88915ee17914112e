//! Piecewise quasi-polynomials: the project's one symbolic-count type.
//!
//! The value of a [`Piecewise`] at a parameter point is the SUM of the values of the pieces
//! whose guards hold there; guards may overlap. The sum semantics makes addition (sequencing
//! statements) a plain concatenation and keeps every operation exact without needing guard
//! complements. This is also how 004 Fig. 5(b) reads:
//! each `if guard: local[...] += value` line adds independently.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::{Add, Mul, Neg, Sub};
use std::sync::Arc;

use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};

use crate::error::Error;
use crate::expr::{rat, Atom, LinExpr, Rational};
use crate::guard::{feasible_set, Constraint, Guard, Relation};
use crate::poly::{owned_ops, to_integer, QuasiPolynomial};
use crate::Binding;

/// One `(guard, value)` pair.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Piece {
    pub guard: Guard,
    pub value: QuasiPolynomial,
}

/// A sum of guarded quasi-polynomials, e.g. `if y > 0: 10*y`.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(
    into = "crate::wire::PiecewiseWire",
    try_from = "crate::wire::PiecewiseWire"
)]
pub struct Piecewise {
    /// Shared: program models hold the same count for many blocks, and clones are frequent.
    pieces: Arc<Vec<Piece>>,
}

impl Piecewise {
    pub fn zero() -> Self {
        Self::default()
    }

    pub fn constant(c: i64) -> Self {
        Self::unguarded(QuasiPolynomial::integer(c))
    }

    /// The parameter `name` itself (unguarded).
    pub fn parameter(name: &str) -> Self {
        Self::unguarded(QuasiPolynomial::parameter(name))
    }

    /// A single unguarded value without floors is simplified as it stands.
    fn unguarded(value: QuasiPolynomial) -> Self {
        if value.is_zero() {
            return Self::zero();
        }
        Piecewise {
            pieces: Arc::new(vec![Piece {
                guard: Guard::always(),
                value,
            }]),
        }
    }

    /// `value` where `guard` holds, 0 elsewhere.
    pub fn guarded(guard: Guard, value: QuasiPolynomial) -> Self {
        Self::from_pieces(vec![Piece { guard, value }])
    }

    /// Builds from pieces and simplifies.
    pub fn from_pieces(pieces: Vec<Piece>) -> Self {
        let mut p = Piecewise {
            pieces: Arc::new(pieces),
        };
        p.simplify();
        p
    }

    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    pub fn is_zero(&self) -> bool {
        self.pieces.is_empty()
    }

    pub fn scaled(&self, k: &Rational) -> Self {
        if k.is_zero() {
            return Self::zero();
        }
        if k.is_one() {
            return self.clone();
        }
        // Every piece is already simplified and scaling by k != 0 keeps guards, keeps values
        // non-zero and keeps equal values equal: the result is simplified as it stands.
        Piecewise {
            pieces: Arc::new(
                self.pieces
                    .iter()
                    .map(|p| Piece {
                        guard: p.guard.clone(),
                        value: p.value.scaled(k),
                    })
                    .collect(),
            ),
        }
    }

    /// Sum of many (sequencing in a program model).
    pub fn sum<'a>(items: impl IntoIterator<Item = &'a Piecewise>) -> Piecewise {
        Self::weighted_sum(items.into_iter().map(|p| (p, Rational::one())))
    }

    /// `sum(k * p)` over `(p, k)` pairs, e.g. instructions per block times block counts,
    /// without building the scaled copies.
    pub fn weighted_sum<'a>(
        terms: impl IntoIterator<Item = (&'a Piecewise, Rational)>,
    ) -> Piecewise {
        // The pieces of a `Piecewise` are simplified one by one (guards feasible and without
        // redundant constraints, constant floors resolved), so only the merging steps remain.
        let terms: Vec<(&Piecewise, Rational)> = terms
            .into_iter()
            .filter(|(p, k)| !p.is_zero() && !k.is_zero())
            .collect();
        if let [(p, k)] = terms.as_slice() {
            return p.scaled(k);
        }
        let mut by_guard: BTreeMap<Guard, QuasiPolynomial> = BTreeMap::new();
        for (p, k) in terms {
            for piece in p.pieces.iter() {
                match by_guard.get_mut(&piece.guard) {
                    Some(v) => v.add_scaled(&piece.value, &k),
                    None => {
                        by_guard.insert(piece.guard.clone(), piece.value.scaled(&k));
                    }
                }
            }
        }
        Self::merged(by_guard)
    }

    /// Restricts to where `guard` also holds.
    pub fn restricted(&self, guard: &Guard) -> Piecewise {
        Self::from_pieces(
            self.pieces
                .iter()
                .filter_map(|p| {
                    Some(Piece {
                        guard: p.guard.and(guard)?,
                        value: p.value.clone(),
                    })
                })
                .collect(),
        )
    }

    /// Replaces parameter `name` by a quasi-affine expression in guards and values: binds a
    /// callee's parameter to the caller's argument expression (004 III.C.5).
    pub fn substitute(&self, name: &str, value: &LinExpr) -> Piecewise {
        let mut pieces = Vec::new();
        'pieces: for p in self.pieces.iter() {
            let mut guard = Guard::always();
            for c in p.guard.constraints() {
                if !guard.push(c.substitute(name, value)) {
                    continue 'pieces;
                }
            }
            pieces.push(Piece {
                guard,
                value: p.value.substitute(name, value),
            });
        }
        Self::from_pieces(pieces)
    }

    /// Renames a parameter, e.g. `y` to the call-site name `y_16` (004 III.C.5).
    pub fn rename_parameter(&self, from: &str, to: &str) -> Piecewise {
        self.substitute(from, &LinExpr::symbol(to))
    }

    /// Parameter names used by guards and values.
    pub fn parameters(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for p in self.pieces.iter() {
            for c in p.guard.constraints() {
                c.expr().symbols(&mut out);
            }
            p.value.symbols_into(&mut out);
        }
        out
    }

    /// Exact value; a parameter without a value is an error naming it.
    pub fn evaluate(&self, binding: &Binding) -> Result<Rational, Error> {
        self.check_bound(binding)?;
        if let Some(v) = self.evaluate_small(binding) {
            return Ok(v.to_big());
        }
        let mut total = rat(0);
        for p in self.pieces.iter() {
            if p.guard.holds(binding)? {
                total += p.value.evaluate(binding)?;
            }
        }
        Ok(total)
    }

    /// The value on machine integers (one cache of atom values for all pieces), or `None` on
    /// overflow.
    fn evaluate_small(&self, binding: &Binding) -> Option<crate::small::Small> {
        let mut atoms = crate::small::Atoms::new(binding);
        let mut total = crate::small::Small::ZERO;
        for p in self.pieces.iter() {
            let mut holds = true;
            for c in p.guard.constraints() {
                if !atoms.holds(c)? {
                    holds = false;
                    break;
                }
            }
            if holds {
                total = total.add(atoms.poly(&p.value)?)?;
            }
        }
        Some(total)
    }

    /// Exact integer value (counts always are).
    pub fn evaluate_integer(&self, binding: &Binding) -> Result<BigInt, Error> {
        to_integer(self.evaluate(binding)?)
    }

    /// Reports the first missing parameter even if the piece using it is not active.
    fn check_bound(&self, binding: &Binding) -> Result<(), Error> {
        if self
            .pieces
            .iter()
            .all(|p| p.guard.all_bound(binding) && p.value.all_bound(binding))
        {
            return Ok(());
        }
        match self
            .parameters()
            .into_iter()
            .find(|p| !binding.contains_key(p))
        {
            Some(name) => Err(Error::MissingParameter { name }),
            None => Ok(()),
        }
    }

    /// Canonical, smaller form: drops zero values and infeasible guards, removes redundant
    /// constraints, merges pieces with equal guards, and merges two pieces with equal values
    /// whose guards differ only in one complementary inequality.
    pub fn simplify(&mut self) {
        let mut pieces = Vec::with_capacity(self.pieces.len());
        for p in self.take_pieces() {
            let Some(p) = resolve_constant_floors(p) else {
                continue;
            };
            if p.value.is_zero() || !p.guard.is_feasible() {
                continue;
            }
            pieces.push(Piece {
                guard: p.guard.without_redundant(),
                value: p.value,
            });
        }
        self.pieces = Arc::new(pieces);
        self.merge_pieces();
    }

    fn take_pieces(&mut self) -> Vec<Piece> {
        let shared = std::mem::take(&mut self.pieces);
        Arc::try_unwrap(shared).unwrap_or_else(|a| (*a).clone())
    }

    /// The merging steps of [`simplify`](Self::simplify), for pieces that are each simplified
    /// already: adds pieces with equal guards, drops zero values, merges complementary pairs.
    fn merge_pieces(&mut self) {
        let mut by_guard: BTreeMap<Guard, QuasiPolynomial> = BTreeMap::new();
        for p in self.take_pieces() {
            match by_guard.entry(p.guard) {
                std::collections::btree_map::Entry::Vacant(v) => {
                    v.insert(p.value);
                }
                std::collections::btree_map::Entry::Occupied(mut o) => {
                    o.get_mut().add_scaled(&p.value, &Rational::one());
                }
            }
        }
        *self = Self::merged(by_guard);
    }

    /// Pieces from values summed per guard: drops zero values, merges complementary pairs.
    fn merged(by_guard: BTreeMap<Guard, QuasiPolynomial>) -> Piecewise {
        let mut pieces: Vec<Piece> = by_guard
            .into_iter()
            .filter(|(_, v)| !v.is_zero())
            .map(|(guard, value)| Piece { guard, value })
            .collect();
        while let Some((i, j, merged)) = find_complementary_pair(&pieces) {
            pieces.remove(j);
            pieces[i] = merged;
        }
        pieces.sort();
        Piecewise {
            pieces: Arc::new(pieces),
        }
    }
}

/// Replaces floors that are constant on the piece's guard: if the guard bounds every parameter
/// of `floor(x)` so that `k <= x < k + 1`, the floor is `k` there (e.g. `floor((n + 7)/8)` is 1
/// under `0 < n <= 7`). `None` if the guard turns out contradictory.
fn resolve_constant_floors(mut p: Piece) -> Option<Piece> {
    loop {
        let bounds = parameter_box(&p.guard);
        let mut floors = p.value.floor_atoms();
        for c in p.guard.constraints() {
            floors.extend(
                c.expr()
                    .terms()
                    .keys()
                    .filter(|a| matches!(a, Atom::Floor(_)))
                    .cloned(),
            );
        }
        let found = floors.into_iter().find_map(|f| match &f {
            Atom::Floor(arg) => constant_floor(arg, &bounds).map(|k| (f.clone(), k)),
            Atom::Symbol(_) => None,
        });
        let Some((atom, k)) = found else {
            return Some(p);
        };
        let mut guard = Guard::always();
        for c in p.guard.constraints() {
            let e = c.expr().replace_atom(&atom, &k);
            if !guard.push(Constraint::normalize(e, c.relation().clone())) {
                return None;
            }
        }
        p = Piece {
            guard,
            value: p.value.replace_atom(&atom, &k),
        };
    }
}

/// Bounds `lo <= name <= hi` stated directly by single-parameter constraints of a guard.
fn parameter_box(guard: &Guard) -> BTreeMap<String, (Option<Rational>, Option<Rational>)> {
    let mut out: BTreeMap<String, (Option<Rational>, Option<Rational>)> = BTreeMap::new();
    for c in guard.constraints() {
        let e = c.expr();
        let mut terms = e.terms().iter();
        let (Some((Atom::Symbol(name), a)), None) = (terms.next(), terms.next()) else {
            continue;
        };
        let at = -e.constant_term() / a; // a*name + c = 0
        let entry = out.entry(name.clone()).or_default();
        let tighten_lo = |lo: &mut Option<Rational>| {
            if lo.as_ref().is_none_or(|l| *l < at) {
                *lo = Some(at.clone());
            }
        };
        let tighten_hi = |hi: &mut Option<Rational>| {
            if hi.as_ref().is_none_or(|h| *h > at) {
                *hi = Some(at.clone());
            }
        };
        match c.relation() {
            Relation::NonNegative if a.is_positive() => tighten_lo(&mut entry.0),
            Relation::NonNegative => tighten_hi(&mut entry.1),
            Relation::Zero => {
                tighten_lo(&mut entry.0);
                tighten_hi(&mut entry.1);
            }
            Relation::Divisible(_) => {}
        }
    }
    out
}

/// `floor(arg)` if it is the same integer over the whole box, by interval arithmetic.
fn constant_floor(
    arg: &LinExpr,
    bounds: &BTreeMap<String, (Option<Rational>, Option<Rational>)>,
) -> Option<Rational> {
    let mut lo = arg.constant_term().clone();
    let mut hi = arg.constant_term().clone();
    for (a, c) in arg.terms() {
        let Atom::Symbol(name) = a else {
            return None;
        };
        let (min, max) = bounds.get(name)?;
        let (min, max) = (min.as_ref()?, max.as_ref()?);
        if c.is_positive() {
            lo += c * min;
            hi += c * max;
        } else {
            lo += c * max;
            hi += c * min;
        }
    }
    (lo.floor() == hi.floor()).then(|| lo.floor())
}

fn find_complementary_pair(pieces: &[Piece]) -> Option<(usize, usize, Piece)> {
    // Only pieces with equal values can merge: group them first (values rarely repeat).
    let mut by_value: BTreeMap<&QuasiPolynomial, Vec<usize>> = BTreeMap::new();
    for (i, p) in pieces.iter().enumerate() {
        by_value.entry(&p.value).or_default().push(i);
    }
    for group in by_value.values().filter(|g| g.len() > 1) {
        for (x, &i) in group.iter().enumerate() {
            for &j in &group[x + 1..] {
                let (a, b) = (&pieces[i].guard, &pieces[j].guard);
                if let Some(guard) = complementary_union(a, b).or_else(|| complementary_union(b, a))
                {
                    let value = pieces[i].value.clone();
                    return Some((i.min(j), i.max(j), Piece { guard, value }));
                }
            }
        }
    }
    None
}

/// `(A and c) or (B and not c)` is `B` when `A and c` is equivalent to `B and c`.
fn complementary_union(a: &Guard, b: &Guard) -> Option<Guard> {
    for c in a.constraints() {
        let Some(not_c) = c.negated_inequality() else {
            continue;
        };
        if !b.constraints().contains(&not_c) {
            continue;
        }
        let rest_a: Vec<&Constraint> = a.constraints().iter().filter(|x| *x != c).collect();
        let rest_b: Vec<&Constraint> = b.constraints().iter().filter(|x| **x != not_c).collect();
        if implies_all(&rest_a, c, &rest_b) && implies_all(&rest_b, c, &rest_a) {
            let kept: BTreeSet<Constraint> = rest_b.into_iter().cloned().collect();
            return Some(Guard::from_set(kept).without_redundant());
        }
    }
    None
}

/// Whether `premises and extra` implies every constraint of `goals`.
fn implies_all(premises: &[&Constraint], extra: &Constraint, goals: &[&Constraint]) -> bool {
    goals.iter().all(|g| {
        if premises.contains(g) || *g == extra {
            return true;
        }
        match g.negated_inequality() {
            Some(not_g) => !feasible_set(premises.iter().copied().chain([extra, &not_g])),
            None => false,
        }
    })
}

impl From<QuasiPolynomial> for Piecewise {
    fn from(value: QuasiPolynomial) -> Self {
        Self::guarded(Guard::always(), value)
    }
}

impl Add for &Piecewise {
    type Output = Piecewise;
    fn add(self, rhs: &Piecewise) -> Piecewise {
        Piecewise::sum([self, rhs])
    }
}

impl Neg for &Piecewise {
    type Output = Piecewise;
    fn neg(self) -> Piecewise {
        self.scaled(&rat(-1))
    }
}

impl Sub for &Piecewise {
    type Output = Piecewise;
    fn sub(self, rhs: &Piecewise) -> Piecewise {
        self + &(-rhs)
    }
}

/// Product: every pair of pieces, under the conjunction of their guards (used to multiply a
/// body count by an enclosing trip count, 004 III.C.5 `handle_function_call`).
impl Mul for &Piecewise {
    type Output = Piecewise;
    fn mul(self, rhs: &Piecewise) -> Piecewise {
        // A constant factor (instructions per block, a call count) only scales.
        for (a, b) in [(self, rhs), (rhs, self)] {
            if let [p] = b.pieces.as_slice() {
                if let (true, Some(k)) = (p.guard.is_always(), p.value.as_constant()) {
                    return a.scaled(&k);
                }
            }
        }
        let mut pieces = Vec::new();
        for a in self.pieces.iter() {
            for b in rhs.pieces.iter() {
                if let Some(guard) = a.guard.and(&b.guard) {
                    pieces.push(Piece {
                        guard,
                        value: &a.value * &b.value,
                    });
                }
            }
        }
        Piecewise::from_pieces(pieces)
    }
}

owned_ops!(Piecewise);
