//! Piecewise quasi-polynomials: the project's one symbolic-count type.
//!
//! The value of a [`Piecewise`] at a parameter point is the SUM of the values of the pieces
//! whose guards hold there. Counting produces pieces with disjoint guards, but the sum
//! semantics makes addition (sequencing statements) a plain concatenation and keeps every
//! operation exact without needing guard complements. This is also how 004 Fig. 5(b) reads:
//! each `if guard: local[...] += value` line adds independently.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::{Add, Mul, Neg, Sub};

use num_bigint::BigInt;

use crate::error::Error;
use crate::expr::{rat, Rational};
use crate::guard::Guard;
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
    pieces: Vec<Piece>,
}

impl Piecewise {
    pub fn zero() -> Self {
        Self::default()
    }

    pub fn constant(c: i64) -> Self {
        Self::from(QuasiPolynomial::integer(c))
    }

    /// The parameter `name` itself (unguarded).
    pub fn parameter(name: &str) -> Self {
        Self::from(QuasiPolynomial::parameter(name))
    }

    /// `value` where `guard` holds, 0 elsewhere.
    pub fn guarded(guard: Guard, value: QuasiPolynomial) -> Self {
        Self::from_pieces(vec![Piece { guard, value }])
    }

    /// Builds from pieces and simplifies.
    pub fn from_pieces(pieces: Vec<Piece>) -> Self {
        let mut p = Piecewise { pieces };
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
        Self::from_pieces(
            self.pieces
                .iter()
                .map(|p| Piece {
                    guard: p.guard.clone(),
                    value: p.value.scaled(k),
                })
                .collect(),
        )
    }

    /// Sum of many (sequencing in a program model).
    pub fn sum<'a>(items: impl IntoIterator<Item = &'a Piecewise>) -> Piecewise {
        Self::from_pieces(
            items
                .into_iter()
                .flat_map(|p| p.pieces.iter().cloned())
                .collect(),
        )
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

    /// Parameter names used by guards and values.
    pub fn parameters(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        for p in &self.pieces {
            out.extend(p.guard.parameters());
            p.value.symbols_into(&mut out);
        }
        out
    }

    /// Exact value; a parameter without a value is an error naming it.
    pub fn evaluate(&self, binding: &Binding) -> Result<Rational, Error> {
        self.check_bound(binding)?;
        let mut total = rat(0);
        for p in &self.pieces {
            if p.guard.holds(binding)? {
                total += p.value.evaluate(binding)?;
            }
        }
        Ok(total)
    }

    /// Exact integer value (counts always are).
    pub fn evaluate_integer(&self, binding: &Binding) -> Result<BigInt, Error> {
        to_integer(self.evaluate(binding)?)
    }

    /// Reports the first missing parameter even if the piece using it is not active.
    fn check_bound(&self, binding: &Binding) -> Result<(), Error> {
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
        let mut by_guard: BTreeMap<Guard, QuasiPolynomial> = BTreeMap::new();
        for p in std::mem::take(&mut self.pieces) {
            if p.value.is_zero() || !p.guard.is_feasible() {
                continue;
            }
            let g = p.guard.without_redundant();
            let slot = by_guard.entry(g).or_default();
            *slot = &*slot + &p.value;
        }
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
        self.pieces = pieces;
    }
}

fn find_complementary_pair(pieces: &[Piece]) -> Option<(usize, usize, Piece)> {
    for i in 0..pieces.len() {
        for j in i + 1..pieces.len() {
            if pieces[i].value != pieces[j].value {
                continue;
            }
            let a = pieces[i].guard.constraints();
            let b = pieces[j].guard.constraints();
            if a.len() != b.len() {
                continue;
            }
            let only_a: Vec<_> = a.difference(b).collect();
            let only_b: Vec<_> = b.difference(a).collect();
            if only_a.len() == 1
                && only_b.len() == 1
                && only_a[0].negated_inequality().as_ref() == Some(only_b[0])
            {
                let common: BTreeSet<_> = a.intersection(b).cloned().collect();
                let guard = Guard::from_set(common).without_redundant();
                let value = pieces[i].value.clone();
                return Some((i, j, Piece { guard, value }));
            }
        }
    }
    None
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
        let mut pieces = Vec::new();
        for a in &self.pieces {
            for b in &rhs.pieces {
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
