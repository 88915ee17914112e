//! Machine-integer fast path for exact evaluation. Counts are evaluated millions of times
//! (every block's count for every `--param` point); with `BigRational` each step allocates.
//! `Small` is a reduced fraction of two `i128`s whose every operation is checked: on overflow it
//! answers `None` and the caller redoes the whole evaluation with `BigRational`, so results are
//! always exact and identical to the arbitrary-precision path.

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::{ToPrimitive, Zero};

use crate::expr::{Atom, LinExpr, Rational};
use crate::guard::{Constraint, Relation};
use crate::poly::QuasiPolynomial;
use crate::Binding;

/// `num / den` in lowest terms with `den > 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Small {
    num: i128,
    den: i128,
}

impl Small {
    pub(crate) const ZERO: Small = Small { num: 0, den: 1 };

    pub(crate) fn integer(v: i64) -> Small {
        Small {
            num: i128::from(v),
            den: 1,
        }
    }

    /// `num / den`, reduced; `None` if `den == 0` or a value is out of range.
    fn new(num: i128, den: i128) -> Option<Small> {
        if den == 0 || num == i128::MIN || den == i128::MIN {
            return None;
        }
        let g = num.gcd(&den);
        let (mut num, mut den) = (num / g, den / g);
        if den < 0 {
            (num, den) = (-num, -den);
        }
        Some(Small { num, den })
    }

    /// An integer (already in lowest terms); `None` for `i128::MIN`, kept out of range so
    /// that negation and `abs` never overflow.
    fn integral(num: i128) -> Option<Small> {
        (num != i128::MIN).then_some(Small { num, den: 1 })
    }

    pub(crate) fn from_big(r: &Rational) -> Option<Small> {
        Small::new(r.numer().to_i128()?, r.denom().to_i128()?)
    }

    pub(crate) fn to_big(self) -> Rational {
        Rational::new(BigInt::from(self.num), BigInt::from(self.den))
    }

    pub(crate) fn add(self, o: Small) -> Option<Small> {
        if self.den == 1 && o.den == 1 {
            return Small::integral(self.num.checked_add(o.num)?);
        }
        if self.den == o.den {
            return Small::new(self.num.checked_add(o.num)?, self.den);
        }
        let g = self.den.gcd(&o.den);
        let (a, b) = (self.den / g, o.den / g);
        let num = self
            .num
            .checked_mul(b)?
            .checked_add(o.num.checked_mul(a)?)?;
        Small::new(num, self.den.checked_mul(b)?)
    }

    pub(crate) fn mul(self, o: Small) -> Option<Small> {
        if self.den == 1 && o.den == 1 {
            return Small::integral(self.num.checked_mul(o.num)?);
        }
        // Cross-reduce first so that products stay small.
        let g1 = self.num.gcd(&o.den).max(1);
        let g2 = o.num.gcd(&self.den).max(1);
        let num = (self.num / g1).checked_mul(o.num / g2)?;
        let den = (self.den / g2).checked_mul(o.den / g1)?;
        Small::new(num, den)
    }

    pub(crate) fn pow(self, e: u32) -> Option<Small> {
        let mut out = Small::integer(1);
        for _ in 0..e {
            out = out.mul(self)?;
        }
        Some(out)
    }

    pub(crate) fn floor(self) -> Small {
        Small {
            num: Integer::div_floor(&self.num, &self.den),
            den: 1,
        }
    }

    pub(crate) fn is_negative(self) -> bool {
        self.num < 0
    }

    pub(crate) fn is_zero(self) -> bool {
        self.num == 0
    }

    /// Whether the value is an integer divisible by `m` (floor remainder, as `Divisible`).
    pub(crate) fn divisible_by(self, m: &BigInt) -> bool {
        if self.den != 1 {
            return false;
        }
        match m.to_i128() {
            Some(m) if m != 0 => self.num.mod_floor(&m) == 0,
            _ => BigInt::from(self.num).mod_floor(m).is_zero(),
        }
    }
}

/// Values of atoms under one binding, each computed once: the same floors recur in many
/// monomials, guards and pieces of one count. `None` from any method means overflow or a
/// missing parameter (the slow path then reports it).
pub(crate) struct Atoms<'a> {
    binding: &'a Binding,
    known: Vec<(&'a Atom, Small)>,
}

impl<'a> Atoms<'a> {
    pub(crate) fn new(binding: &'a Binding) -> Self {
        Atoms {
            binding,
            known: Vec::new(),
        }
    }

    fn atom(&mut self, a: &'a Atom) -> Option<Small> {
        if let Some((_, x)) = self.known.iter().find(|(k, _)| *k == a) {
            return Some(*x);
        }
        let x = match a {
            Atom::Symbol(s) => Small::integer(*self.binding.get(s)?),
            Atom::Floor(arg) => self.lin(arg)?.floor(),
        };
        self.known.push((a, x));
        Some(x)
    }

    pub(crate) fn lin(&mut self, e: &'a LinExpr) -> Option<Small> {
        let mut v = Small::from_big(e.constant_term())?;
        for (a, c) in e.terms() {
            v = v.add(self.atom(a)?.mul(Small::from_big(c)?)?)?;
        }
        Some(v)
    }

    pub(crate) fn poly(&mut self, p: &'a QuasiPolynomial) -> Option<Small> {
        let mut total = Small::ZERO;
        for (m, c) in p.terms() {
            let mut v = Small::from_big(c)?;
            for (a, e) in m.factors() {
                v = v.mul(self.atom(a)?.pow(*e)?)?;
            }
            total = total.add(v)?;
        }
        Some(total)
    }

    pub(crate) fn holds(&mut self, c: &'a Constraint) -> Option<bool> {
        let v = self.lin(c.expr())?;
        Some(match c.relation() {
            Relation::NonNegative => !v.is_negative(),
            Relation::Zero => v.is_zero(),
            Relation::Divisible(m) => v.divisible_by(m),
        })
    }
}

pub(crate) fn lin(e: &LinExpr, binding: &Binding) -> Option<Small> {
    Atoms::new(binding).lin(e)
}

pub(crate) fn poly(p: &QuasiPolynomial, binding: &Binding) -> Option<Small> {
    Atoms::new(binding).poly(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn big(n: i128, d: i128) -> Rational {
        Rational::new(BigInt::from(n), BigInt::from(d))
    }

    /// Integers spread over every magnitude, with extra weight near the overflow edges of
    /// `i64` and `i128` (where the checked arithmetic must hand over to the big path).
    fn edgy() -> impl Strategy<Value = i128> {
        prop_oneof![
            -20i128..=20,
            any::<i64>().prop_map(i128::from),
            (0u32..127, -3i128..=3, any::<bool>()).prop_map(|(bits, d, neg)| {
                let v = (1i128 << bits).saturating_add(d);
                if neg {
                    -v
                } else {
                    v
                }
            }),
            (-3i128..=3).prop_map(|d| i128::MAX - 3 + d.abs()),
            (-3i128..=3).prop_map(|d| i128::MIN + 3 - d.abs()),
            (-3i128..=3).prop_map(|d| i128::from(i64::MAX) + d),
            (-3i128..=3).prop_map(|d| i128::from(i64::MIN) + d),
        ]
    }

    fn nonzero() -> impl Strategy<Value = i128> {
        edgy().prop_filter("denominator", |d| *d != 0)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn small_arithmetic_is_exact_or_declines(
            (a, b) in (edgy(), nonzero()),
            (c, d) in (edgy(), nonzero()),
            e in 0u32..5,
        ) {
            let (x, y) = (big(a, b), big(c, d));
            let (sx, sy) = (Small::new(a, b), Small::new(c, d));
            if let Some(sx) = sx {
                prop_assert_eq!(sx.to_big(), x.clone());
                prop_assert_eq!(Small::from_big(&x), Some(sx));
                prop_assert_eq!(sx.floor().to_big(), x.floor());
                prop_assert_eq!(sx.is_negative(), x < Rational::zero());
                if let Some(p) = sx.pow(e) {
                    prop_assert_eq!(p.to_big(), num_traits::pow(x.clone(), e as usize));
                }
                for m in [2i64, 3, 7] {
                    let m = BigInt::from(m);
                    let want = x.is_integer() && x.to_integer().mod_floor(&m).is_zero();
                    prop_assert_eq!(sx.divisible_by(&m), want);
                }
            }
            if let (Some(sx), Some(sy)) = (sx, sy) {
                if let Some(s) = sx.add(sy) {
                    prop_assert_eq!(s.to_big(), &x + &y);
                }
                if let Some(p) = sx.mul(sy) {
                    prop_assert_eq!(p.to_big(), &x * &y);
                }
            }
        }

        /// Small operands whose exact result fits comfortably must not fall back.
        #[test]
        fn small_operands_stay_on_the_fast_path(
            a in -(1i128 << 40)..(1i128 << 40), b in 1i128..(1 << 20),
            c in -(1i128 << 40)..(1i128 << 40), d in 1i128..(1 << 20),
        ) {
            let (x, y) = (Small::new(a, b).unwrap(), Small::new(c, d).unwrap());
            prop_assert!(x.add(y).is_some());
            prop_assert!(x.mul(y).is_some());
        }
    }
}
