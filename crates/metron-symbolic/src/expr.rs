//! Quasi-affine expressions: rational linear combinations of atoms, where an atom is a named
//! integer symbol (a parameter or a loop variable) or the floor of another quasi-affine
//! expression. Floors are how non-unit strides and modulo conditions enter the counts
//! (004 III.C.2-3: the "holes" of Fig. 4(c) become periodic terms).

use std::collections::{BTreeMap, BTreeSet};

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{One, Zero};

use crate::error::Error;
use crate::Binding;

/// Exact rational number used throughout the algebra (no floats, no overflow).
pub type Rational = BigRational;

/// An integer-valued building block of expressions.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Atom {
    /// A named integer: a parameter of the model, or a loop variable while counting.
    Symbol(String),
    /// `floor(arg)`, kept in the canonical form produced by [`LinExpr::floor`]: every
    /// coefficient and the constant of `arg` lie in `[0, 1)`.
    Floor(std::sync::Arc<LinExpr>),
}

/// A quasi-affine expression `constant + sum(coefficient * atom)` with rational coefficients.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LinExpr {
    terms: BTreeMap<Atom, Rational>,
    constant: Rational,
}

impl Default for LinExpr {
    fn default() -> Self {
        Self::zero()
    }
}

pub(crate) fn rat(n: i64) -> Rational {
    Rational::from_integer(BigInt::from(n))
}

pub(crate) fn int_rat(n: &BigInt) -> Rational {
    Rational::from_integer(n.clone())
}

/// `a * b`; integers (most coefficients) skip the gcd reductions of a general product.
pub(crate) fn times(a: &Rational, b: &Rational) -> Rational {
    if b.is_one() {
        a.clone()
    } else if a.denom().is_one() && b.denom().is_one() {
        Rational::new_raw(a.numer() * b.numer(), BigInt::one())
    } else {
        a * b
    }
}

/// `a += b`; integers skip the gcd reductions of a general sum.
pub(crate) fn add_to(a: &mut Rational, b: &Rational) {
    if a.denom().is_one() && b.denom().is_one() {
        *a = Rational::new_raw(a.numer() + b.numer(), BigInt::one());
    } else {
        *a += b;
    }
}

/// Least common multiple of the denominators of `values` (1 if empty).
pub(crate) fn common_denominator<'a>(values: impl IntoIterator<Item = &'a Rational>) -> BigInt {
    values.into_iter().fold(BigInt::one(), |acc, v| {
        if v.denom().is_one() {
            acc
        } else {
            acc.lcm(v.denom())
        }
    })
}

impl LinExpr {
    pub fn zero() -> Self {
        LinExpr {
            terms: BTreeMap::new(),
            constant: Rational::zero(),
        }
    }

    pub fn constant(c: Rational) -> Self {
        LinExpr {
            terms: BTreeMap::new(),
            constant: c,
        }
    }

    pub fn integer(c: i64) -> Self {
        Self::constant(rat(c))
    }

    pub fn symbol(name: &str) -> Self {
        Self::atom(Atom::Symbol(name.to_string()))
    }

    pub fn atom(atom: Atom) -> Self {
        let mut e = Self::zero();
        e.add_term(atom, Rational::one());
        e
    }

    pub fn terms(&self) -> &BTreeMap<Atom, Rational> {
        &self.terms
    }

    pub fn constant_term(&self) -> &Rational {
        &self.constant
    }

    /// The value if the expression has no atoms.
    pub fn as_constant(&self) -> Option<&Rational> {
        self.terms.is_empty().then_some(&self.constant)
    }

    pub fn add_term(&mut self, atom: Atom, coefficient: Rational) {
        if coefficient.is_zero() {
            return;
        }
        match self.terms.get_mut(&atom) {
            Some(c) => {
                add_to(c, &coefficient);
                if c.is_zero() {
                    self.terms.remove(&atom);
                }
            }
            None => {
                self.terms.insert(atom, coefficient);
            }
        }
    }

    pub fn add_constant(&mut self, c: &Rational) {
        add_to(&mut self.constant, c);
    }

    pub fn plus(&self, other: &LinExpr) -> LinExpr {
        let mut out = self.clone();
        for (a, c) in &other.terms {
            out.add_term(a.clone(), c.clone());
        }
        out.constant += &other.constant;
        out
    }

    pub fn minus(&self, other: &LinExpr) -> LinExpr {
        self.plus(&other.scaled(&rat(-1)))
    }

    pub fn scaled(&self, k: &Rational) -> LinExpr {
        if k.is_zero() {
            return LinExpr::zero();
        }
        if k.is_one() {
            return self.clone();
        }
        LinExpr {
            terms: self
                .terms
                .iter()
                .map(|(a, c)| (a.clone(), times(c, k)))
                .collect(),
            constant: times(&self.constant, k),
        }
    }

    /// Coefficient of the symbol `name` at the top level (not inside floors).
    pub fn coefficient_of(&self, name: &str) -> Rational {
        self.terms
            .get(&Atom::Symbol(name.to_string()))
            .cloned()
            .unwrap_or_else(Rational::zero)
    }

    /// The expression without the top-level term of `name`.
    pub fn without_symbol(&self, name: &str) -> LinExpr {
        let mut out = self.clone();
        out.terms.remove(&Atom::Symbol(name.to_string()));
        out
    }

    /// Whether `name` occurs anywhere, including inside floors.
    pub fn contains_symbol(&self, name: &str) -> bool {
        self.terms.keys().any(|a| a.contains_symbol(name))
    }

    /// All symbol names, including those inside floors.
    pub fn symbols(&self, out: &mut BTreeSet<String>) {
        for a in self.terms.keys() {
            a.symbols(out);
        }
    }

    /// `floor(self)` in canonical form: integer parts of the coefficients are pulled out
    /// (atoms are integers), so `floor(n/2 + 3*i/2)` becomes `i + floor(n/2 + i/2)`.
    pub fn floor(&self) -> LinExpr {
        let mut out = LinExpr::zero();
        let mut rest = LinExpr::zero();
        for (a, c) in &self.terms {
            let whole = c.floor();
            let frac = c - &whole;
            if !whole.is_zero() {
                out.add_term(a.clone(), whole);
            }
            if !frac.is_zero() {
                rest.add_term(a.clone(), frac);
            }
        }
        let whole = self.constant.floor();
        rest.constant = &self.constant - &whole;
        out.constant = whole;
        if !rest.terms.is_empty() {
            out.add_term(Atom::Floor(std::sync::Arc::new(rest)), Rational::one());
        }
        out
    }

    /// `ceil(self)`, written as `floor(self + (d - 1)/d)` where `d` is the common denominator
    /// (exact because `d * self` is an integer); this keeps small positive coefficients inside
    /// the floor, e.g. `ceil((n - 7)/8) = floor(n/8)`.
    pub fn ceil(&self) -> LinExpr {
        let (_, d) = self.integral_multiple();
        let d = int_rat(&d);
        self.plus(&LinExpr::constant((&d - Rational::one()) / d))
            .floor()
    }

    /// Replaces the symbol `name` by `value` everywhere (floors are re-normalised).
    pub fn substitute(&self, name: &str, value: &LinExpr) -> LinExpr {
        let mut out = LinExpr::constant(self.constant.clone());
        for (a, c) in &self.terms {
            out = out.plus(&a.substitute(name, value).scaled(c));
        }
        out
    }

    pub fn evaluate(&self, binding: &Binding) -> Result<Rational, Error> {
        if let Some(v) = crate::small::lin(self, binding) {
            return Ok(v.to_big());
        }
        let mut v = self.constant.clone();
        for (a, c) in &self.terms {
            v += a.evaluate(binding)? * c;
        }
        Ok(v)
    }

    /// Whether every symbol (also inside floors) has a value in `binding`.
    pub(crate) fn all_bound(&self, binding: &Binding) -> bool {
        self.terms.keys().all(|a| a.all_bound(binding))
    }

    /// Multiplies by the least positive integer that makes every coefficient and the constant
    /// integral.
    pub(crate) fn integral_multiple(&self) -> (LinExpr, BigInt) {
        let d = common_denominator(self.terms.values().chain(std::iter::once(&self.constant)));
        if d.is_one() {
            return (self.clone(), d);
        }
        (self.scaled(&int_rat(&d)), d)
    }

    /// The expression with the top-level `atom` replaced by the constant `value`.
    pub(crate) fn replace_atom(&self, atom: &Atom, value: &Rational) -> LinExpr {
        let mut out = self.clone();
        if let Some(c) = out.terms.remove(atom) {
            out.constant += c * value;
        }
        out
    }

    /// Every floor atom at any depth, each once.
    pub(crate) fn floors(&self, out: &mut BTreeSet<LinExpr>) {
        for a in self.terms.keys() {
            if let Atom::Floor(arg) = a {
                arg.floors(out);
                out.insert((**arg).clone());
            }
        }
    }

    /// For every floor argument (at any depth) with a direct term in `name`, the denominator of
    /// that coefficient: the modulus that a residue split of `name` must use to free the floor.
    pub(crate) fn floor_denominators_of(&self, name: &str, out: &mut BigInt) {
        for a in self.terms.keys() {
            if let Atom::Floor(arg) = a {
                let c = arg.coefficient_of(name);
                if !c.is_zero() {
                    *out = out.lcm(c.denom());
                }
                arg.floor_denominators_of(name, out);
            }
        }
    }
}

impl Atom {
    pub fn contains_symbol(&self, name: &str) -> bool {
        match self {
            Atom::Symbol(s) => s == name,
            Atom::Floor(arg) => arg.contains_symbol(name),
        }
    }

    pub(crate) fn symbols(&self, out: &mut BTreeSet<String>) {
        match self {
            Atom::Symbol(s) => {
                if !out.contains(s) {
                    out.insert(s.clone());
                }
            }
            Atom::Floor(arg) => arg.symbols(out),
        }
    }

    pub(crate) fn all_bound(&self, binding: &Binding) -> bool {
        match self {
            Atom::Symbol(s) => binding.contains_key(s),
            Atom::Floor(arg) => arg.all_bound(binding),
        }
    }

    /// The atom with `name := value`, as an expression (a floor may simplify away).
    pub fn substitute(&self, name: &str, value: &LinExpr) -> LinExpr {
        match self {
            Atom::Symbol(s) if s == name => value.clone(),
            Atom::Floor(arg) if arg.contains_symbol(name) => arg.substitute(name, value).floor(),
            other => LinExpr::atom(other.clone()),
        }
    }

    pub fn evaluate(&self, binding: &Binding) -> Result<Rational, Error> {
        match self {
            Atom::Symbol(s) => binding
                .get(s)
                .map(|v| rat(*v))
                .ok_or_else(|| Error::MissingParameter { name: s.clone() }),
            Atom::Floor(arg) => Ok(arg.evaluate(binding)?.floor()),
        }
    }
}

/// Greatest common divisor of the numerators of integral rationals (0 if empty).
pub(crate) fn gcd_of<'a>(values: impl IntoIterator<Item = &'a Rational>) -> BigInt {
    values
        .into_iter()
        .fold(BigInt::zero(), |acc, v| acc.gcd(v.numer()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floor_pulls_integer_parts_out() {
        // floor(3i/2 + n/2 + 7/4) = i + 1 + floor(i/2 + n/2 + 3/4)
        let mut e = LinExpr::constant(Rational::new(7.into(), 4.into()));
        e.add_term(Atom::Symbol("i".into()), Rational::new(3.into(), 2.into()));
        e.add_term(Atom::Symbol("n".into()), Rational::new(1.into(), 2.into()));
        let f = e.floor();
        assert_eq!(f.coefficient_of("i"), rat(1));
        assert_eq!(f.constant_term(), &rat(1));
        let b: Binding = [("i".to_string(), 5), ("n".to_string(), -4)].into();
        // direct: floor(15/2 - 2 + 7/4) = floor(7.25) = 7
        assert_eq!(f.evaluate(&b).unwrap(), rat(7));
        assert_eq!(e.evaluate(&b).unwrap().floor(), rat(7));
    }

    #[test]
    fn substituting_a_residue_frees_the_floor() {
        // floor((j + 1)/3) with j := 3t + 2 is t + 1.
        let mut arg = LinExpr::symbol("j");
        arg.add_constant(&rat(1));
        let f = arg.scaled(&Rational::new(1.into(), 3.into())).floor();
        let mut v = LinExpr::symbol("t").scaled(&rat(3));
        v.add_constant(&rat(2));
        let g = f.substitute("j", &v);
        let mut want = LinExpr::symbol("t");
        want.add_constant(&rat(1));
        assert_eq!(g, want);
    }
}
