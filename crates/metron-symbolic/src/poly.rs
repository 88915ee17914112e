//! Multivariate quasi-polynomials: polynomials whose variables are atoms (named parameters and
//! floors of quasi-affine expressions), with exact rational coefficients.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::{Add, Mul, Neg, Sub};

use num_bigint::BigInt;
use num_traits::{One, Zero};

use crate::error::Error;
use crate::expr::{add_to, int_rat, rat, times, Atom, LinExpr, Rational};
use crate::Binding;

/// A product of atoms with positive exponents; the empty product is 1.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Monomial(BTreeMap<Atom, u32>);

impl Monomial {
    pub fn one() -> Self {
        Monomial(BTreeMap::new())
    }

    pub fn factors(&self) -> &BTreeMap<Atom, u32> {
        &self.0
    }

    pub fn from_factors(factors: impl IntoIterator<Item = (Atom, u32)>) -> Self {
        Monomial(factors.into_iter().filter(|(_, e)| *e > 0).collect())
    }

    pub fn degree(&self) -> u32 {
        self.0.values().sum()
    }

    fn times(&self, other: &Monomial) -> Monomial {
        let mut out = self.0.clone();
        for (a, e) in &other.0 {
            *out.entry(a.clone()).or_insert(0) += e;
        }
        Monomial(out)
    }
}

/// A quasi-polynomial `sum(coefficient * monomial)`, e.g. `(n^2 - n)/2` or
/// `n*floor((m + 1)/2)`. Counts of loop nests are quasi-polynomials on each piece of their
/// domain (004 III.C.2).
#[derive(
    Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(into = "crate::wire::PolyWire", try_from = "crate::wire::PolyWire")]
pub struct QuasiPolynomial {
    terms: BTreeMap<Monomial, Rational>,
}

impl QuasiPolynomial {
    pub fn zero() -> Self {
        Self::default()
    }

    pub fn constant(c: Rational) -> Self {
        let mut p = Self::zero();
        p.add_term(Monomial::one(), c);
        p
    }

    pub fn integer(c: i64) -> Self {
        Self::constant(rat(c))
    }

    /// The parameter `name` as a polynomial.
    pub fn parameter(name: &str) -> Self {
        Self::from(&LinExpr::symbol(name))
    }

    pub fn terms(&self) -> &BTreeMap<Monomial, Rational> {
        &self.terms
    }

    pub fn is_zero(&self) -> bool {
        self.terms.is_empty()
    }

    /// The value if the polynomial has no atoms.
    pub fn as_constant(&self) -> Option<Rational> {
        match self.terms.len() {
            0 => Some(Rational::zero()),
            1 => self.terms.get(&Monomial::one()).cloned(),
            _ => None,
        }
    }

    pub fn add_term(&mut self, m: Monomial, c: Rational) {
        if c.is_zero() {
            return;
        }
        match self.terms.get_mut(&m) {
            Some(entry) => {
                add_to(entry, &c);
                if entry.is_zero() {
                    self.terms.remove(&m);
                }
            }
            None => {
                self.terms.insert(m, c);
            }
        }
    }

    /// `self += k * other`, in place.
    pub(crate) fn add_scaled(&mut self, other: &QuasiPolynomial, k: &Rational) {
        for (m, c) in &other.terms {
            let c = times(c, k);
            match self.terms.get_mut(m) {
                Some(entry) => {
                    add_to(entry, &c);
                    if entry.is_zero() {
                        self.terms.remove(m);
                    }
                }
                None if c.is_zero() => {}
                None => {
                    self.terms.insert(m.clone(), c);
                }
            }
        }
    }

    pub fn scaled(&self, k: &Rational) -> Self {
        if k.is_zero() {
            return Self::zero();
        }
        QuasiPolynomial {
            terms: self
                .terms
                .iter()
                .map(|(m, c)| (m.clone(), times(c, k)))
                .collect(),
        }
    }

    pub fn pow(&self, e: u32) -> Self {
        let mut out = Self::integer(1);
        for _ in 0..e {
            out = &out * self;
        }
        out
    }

    /// Total degree (0 for constants and for zero).
    pub fn degree(&self) -> u32 {
        self.terms.keys().map(Monomial::degree).max().unwrap_or(0)
    }

    /// Parameter names, including those inside floors.
    pub fn parameters(&self) -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        self.symbols_into(&mut out);
        out
    }

    pub(crate) fn symbols_into(&self, out: &mut BTreeSet<String>) {
        for m in self.terms.keys() {
            for a in m.0.keys() {
                a.symbols(out);
            }
        }
    }

    pub fn contains_symbol(&self, name: &str) -> bool {
        self.terms
            .keys()
            .any(|m| m.0.keys().any(|a| a.contains_symbol(name)))
    }

    /// Replaces the symbol `name` by a quasi-affine expression everywhere.
    pub fn substitute(&self, name: &str, value: &LinExpr) -> Self {
        let mut out = Self::zero();
        for (m, c) in &self.terms {
            let mut prod = Self::constant(c.clone());
            for (a, e) in &m.0 {
                if a.contains_symbol(name) {
                    prod = &prod * &Self::from(&a.substitute(name, value)).pow(*e);
                } else {
                    prod = &prod * &Self::from_monomial(Monomial::from_factors([(a.clone(), *e)]));
                }
            }
            out = &out + &prod;
        }
        out
    }

    fn from_monomial(m: Monomial) -> Self {
        let mut p = Self::zero();
        p.add_term(m, Rational::one());
        p
    }

    /// Coefficients `c_k` with `self = sum(c_k * name^k)`; `name` must not occur inside floors.
    pub(crate) fn coefficients_in(&self, name: &str) -> Vec<QuasiPolynomial> {
        let key = Atom::Symbol(name.to_string());
        let mut out: Vec<QuasiPolynomial> = Vec::new();
        for (m, c) in &self.terms {
            let k = m.0.get(&key).copied().unwrap_or(0) as usize;
            let mut rest = m.0.clone();
            rest.remove(&key);
            if out.len() <= k {
                out.resize(k + 1, QuasiPolynomial::zero());
            }
            out[k].add_term(Monomial(rest), c.clone());
        }
        out
    }

    /// The polynomial with every power of `atom` replaced by the constant `value`.
    pub(crate) fn replace_atom(&self, atom: &Atom, value: &Rational) -> Self {
        let mut out = Self::zero();
        for (m, c) in &self.terms {
            let mut factors = m.0.clone();
            let c = match factors.remove(atom) {
                Some(e) => c * num_traits::pow(value.clone(), e as usize),
                None => c.clone(),
            };
            out.add_term(Monomial(factors), c);
        }
        out
    }

    /// Floor atoms that are factors of some monomial (top level only).
    pub(crate) fn floor_atoms(&self) -> BTreeSet<Atom> {
        self.terms
            .keys()
            .flat_map(|m| m.0.keys())
            .filter(|a| matches!(a, Atom::Floor(_)))
            .cloned()
            .collect()
    }

    pub(crate) fn floor_denominators_of(&self, name: &str, out: &mut BigInt) {
        for m in self.terms.keys() {
            for a in m.0.keys() {
                LinExpr::atom(a.clone()).floor_denominators_of(name, out);
            }
        }
    }

    /// Exact value under `binding`; a parameter without a value is an error.
    pub fn evaluate(&self, binding: &Binding) -> Result<Rational, Error> {
        if let Some(v) = crate::small::poly(self, binding) {
            return Ok(v.to_big());
        }
        let mut total = Rational::zero();
        for (m, c) in &self.terms {
            let mut v = c.clone();
            for (a, e) in &m.0 {
                let x = a.evaluate(binding)?;
                v *= num_traits::pow(x, *e as usize);
            }
            total += v;
        }
        Ok(total)
    }

    pub(crate) fn all_bound(&self, binding: &Binding) -> bool {
        self.terms
            .keys()
            .all(|m| m.0.keys().all(|a| a.all_bound(binding)))
    }

    /// Like [`evaluate`](Self::evaluate) but requires an integer result (counts always are).
    pub fn evaluate_integer(&self, binding: &Binding) -> Result<BigInt, Error> {
        to_integer(self.evaluate(binding)?)
    }

    /// The least positive integer `d` such that `d * self` has integer coefficients.
    pub(crate) fn denominator(&self) -> BigInt {
        crate::expr::common_denominator(self.terms.values())
    }

    pub(crate) fn scaled_by_int(&self, d: &BigInt) -> Self {
        self.scaled(&int_rat(d))
    }
}

pub(crate) fn to_integer(v: Rational) -> Result<BigInt, Error> {
    if v.is_integer() {
        Ok(v.to_integer())
    } else {
        Err(Error::NotInteger {
            value: v.to_string(),
        })
    }
}

impl From<&LinExpr> for QuasiPolynomial {
    fn from(e: &LinExpr) -> Self {
        let mut p = Self::constant(e.constant_term().clone());
        for (a, c) in e.terms() {
            p.add_term(Monomial::from_factors([(a.clone(), 1)]), c.clone());
        }
        p
    }
}

impl From<i64> for QuasiPolynomial {
    fn from(c: i64) -> Self {
        Self::integer(c)
    }
}

impl Add for &QuasiPolynomial {
    type Output = QuasiPolynomial;
    fn add(self, rhs: &QuasiPolynomial) -> QuasiPolynomial {
        let mut out = self.clone();
        for (m, c) in &rhs.terms {
            out.add_term(m.clone(), c.clone());
        }
        out
    }
}

impl Sub for &QuasiPolynomial {
    type Output = QuasiPolynomial;
    fn sub(self, rhs: &QuasiPolynomial) -> QuasiPolynomial {
        self + &(-rhs)
    }
}

impl Neg for &QuasiPolynomial {
    type Output = QuasiPolynomial;
    fn neg(self) -> QuasiPolynomial {
        self.scaled(&rat(-1))
    }
}

impl Mul for &QuasiPolynomial {
    type Output = QuasiPolynomial;
    fn mul(self, rhs: &QuasiPolynomial) -> QuasiPolynomial {
        let mut out = QuasiPolynomial::zero();
        for (m1, c1) in &self.terms {
            for (m2, c2) in &rhs.terms {
                out.add_term(m1.times(m2), times(c1, c2));
            }
        }
        out
    }
}

macro_rules! owned_ops {
    ($t:ty) => {
        impl Add for $t {
            type Output = $t;
            fn add(self, rhs: $t) -> $t {
                &self + &rhs
            }
        }
        impl Sub for $t {
            type Output = $t;
            fn sub(self, rhs: $t) -> $t {
                &self - &rhs
            }
        }
        impl Mul for $t {
            type Output = $t;
            fn mul(self, rhs: $t) -> $t {
                &self * &rhs
            }
        }
        impl Neg for $t {
            type Output = $t;
            fn neg(self) -> $t {
                -&self
            }
        }
    };
}
pub(crate) use owned_ops;
owned_ops!(QuasiPolynomial);

/// Faulhaber polynomials: `F_k(x) = sum_{t=1..x} t^k` as coefficient vectors in `x`, for
/// `k = 0..=max_k`. `F_k(x) - F_k(x - 1) = x^k` holds for every integer `x`, so
/// `sum_{t=a..b} t^k = F_k(b) - F_k(a - 1)` whenever `b >= a - 1`.
pub(crate) fn faulhaber(max_k: usize) -> Vec<Vec<Rational>> {
    // (x+1)^(k+1) - 1 = sum_{j=0..k} C(k+1, j) F_j(x)  (telescoping sum of (t+1)^(k+1) - t^(k+1))
    let mut fs: Vec<Vec<Rational>> = Vec::with_capacity(max_k + 1);
    for k in 0..=max_k {
        let mut acc = vec![Rational::zero(); k + 2];
        for (i, slot) in acc.iter_mut().enumerate() {
            *slot = int_rat(&binomial(k + 1, i));
        }
        acc[0] -= Rational::one();
        for (j, fj) in fs.iter().enumerate() {
            let b = int_rat(&binomial(k + 1, j));
            for (i, c) in fj.iter().enumerate() {
                acc[i] -= &b * c;
            }
        }
        let inv = Rational::new(BigInt::one(), BigInt::from(k + 1));
        fs.push(acc.into_iter().map(|c| c * &inv).collect());
    }
    fs
}

fn binomial(n: usize, k: usize) -> BigInt {
    if k > n {
        return BigInt::zero();
    }
    let mut r = BigInt::one();
    for i in 0..k {
        r = r * BigInt::from(n - i) / BigInt::from(i + 1);
    }
    r
}

/// `sum_{t=lo..hi} summand(t)` for a summand polynomial in `t` (given by its coefficients),
/// valid when `hi >= lo - 1` (Faulhaber summation, the core of counting 004 III.C.2).
pub(crate) fn sum_over_range(
    coefficients: &[QuasiPolynomial],
    lo: &LinExpr,
    hi: &LinExpr,
) -> QuasiPolynomial {
    let fs = faulhaber(coefficients.len().saturating_sub(1));
    let hi_p = QuasiPolynomial::from(hi);
    let below = lo.minus(&LinExpr::integer(1));
    let lo_p = QuasiPolynomial::from(&below);
    let mut total = QuasiPolynomial::zero();
    for (k, ck) in coefficients.iter().enumerate() {
        if ck.is_zero() {
            continue;
        }
        let eval = |x: &QuasiPolynomial| {
            let mut acc = QuasiPolynomial::zero();
            let mut power = QuasiPolynomial::integer(1);
            for c in &fs[k] {
                acc = &acc + &power.scaled(c);
                power = &power * x;
            }
            acc
        };
        let range = &eval(&hi_p) - &eval(&lo_p);
        total = &total + &(ck * &range);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faulhaber_matches_direct_sums() {
        let fs = faulhaber(5);
        for (k, f) in fs.iter().enumerate() {
            for x in -6i64..=9 {
                let poly: Rational = f
                    .iter()
                    .enumerate()
                    .map(|(i, c)| c * num_traits::pow(rat(x), i))
                    .sum();
                // F_k(x) - F_k(x-1) = x^k must hold for all integers
                let prev: Rational = f
                    .iter()
                    .enumerate()
                    .map(|(i, c)| c * num_traits::pow(rat(x - 1), i))
                    .sum();
                assert_eq!(&poly - &prev, num_traits::pow(rat(x), k));
                if x >= 0 {
                    let direct: i64 = (1..=x).map(|t| t.pow(k as u32)).sum();
                    assert_eq!(poly, rat(direct));
                }
            }
        }
    }

    #[test]
    fn polynomial_arithmetic_and_substitution() {
        let n = QuasiPolynomial::parameter("n");
        let p = &(&n * &n) - &n; // n^2 - n
        let b: Binding = [("n".to_string(), 7)].into();
        assert_eq!(p.evaluate(&b).unwrap(), rat(42));
        let q = p.substitute("n", &LinExpr::symbol("m").plus(&LinExpr::integer(1)));
        let b: Binding = [("m".to_string(), 6)].into();
        assert_eq!(q.evaluate(&b).unwrap(), rat(42));
        assert!(matches!(
            p.evaluate(&Binding::new()),
            Err(Error::MissingParameter { name }) if name == "n"
        ));
    }
}
