//! The period of a count in one parameter: a `P` such that, on each residue class of the
//! parameter modulo `P`, every floor and every divisibility guard of the count is affine in
//! it. Between guards' inequalities the count is then a polynomial in the parameter along
//! each class, and a secant over `P` steps is its average slope (the slope a mean value of
//! a data-dependent bound has: `loop_profile` in metron-static). `P` is a multiple of the
//! least such period, not always the least.
//! [`Piecewise::at_mean`] counts a mean value of such a parameter the same way.

use num_bigint::BigInt;
use num_integer::Integer;
use num_traits::One;

use crate::expr::{Atom, LinExpr, Rational};
use crate::guard::{Constraint, Relation};
use crate::piecewise::Piecewise;
use crate::poly::QuasiPolynomial;

impl Atom {
    /// Steps of `name` after which the atom moves by an integer times its step-1 slope.
    fn period(&self, name: &str) -> BigInt {
        match self {
            Atom::Symbol(_) => BigInt::one(),
            Atom::Floor(arg) => floor_period(arg, name),
        }
    }
}

/// `floor(arg)` moves by an integer after `P` steps of `name` where every term of `arg` that
/// reads `name` does: its coefficient's denominator times its atom's own period.
fn floor_period(arg: &LinExpr, name: &str) -> BigInt {
    arg.terms()
        .iter()
        .filter(|(a, _)| a.contains_symbol(name))
        .fold(BigInt::one(), |p, (a, c)| {
            p.lcm(&(c.denom() * a.period(name)))
        })
}

impl LinExpr {
    /// The period in `name` of the floors this expression holds.
    pub fn period(&self, name: &str) -> BigInt {
        self.terms()
            .keys()
            .filter(|a| a.contains_symbol(name))
            .fold(BigInt::one(), |p, a| p.lcm(&a.period(name)))
    }
}

impl QuasiPolynomial {
    /// The period in `name` of the floors of every monomial.
    pub fn period(&self, name: &str) -> BigInt {
        (self.terms().keys())
            .flat_map(|m| m.factors().keys())
            .filter(|a| a.contains_symbol(name))
            .fold(BigInt::one(), |p, a| p.lcm(&a.period(name)))
    }
}

impl Constraint {
    /// The period in `name` of the constraint: its floors', and a divisibility's modulus.
    pub fn period(&self, name: &str) -> BigInt {
        let floors = self.expr().period(name);
        match self.relation() {
            Relation::Divisible(m) if self.expr().contains_symbol(name) => floors.lcm(m),
            _ => floors,
        }
    }
}

impl Piecewise {
    /// The period in `name` of every guard and value (1 where `name` is not read or reads
    /// affinely).
    pub fn period(&self, name: &str) -> BigInt {
        self.pieces().iter().fold(BigInt::one(), |p, piece| {
            let guards = (piece.guard.constraints().iter())
                .fold(BigInt::one(), |q, c| q.lcm(&c.period(name)));
            p.lcm(&guards).lcm(&piece.value.period(name))
        })
    }

    /// The count at a mean value of `name` (a data-dependent bound over many entries). Along
    /// one period `P` the count is affine in `name` on each residue class, with one slope `s`;
    /// values with mean `m` spread over the classes count the average of those lines,
    /// `mean(C(u), ..., C(u + P - 1)) + s (m - u - (P - 1)/2)` with `u = floor(m)` and
    /// `s = (C(u + P) - C(u)) / P`. Substituting `m` into a floor would count `floor(m / P)`,
    /// not the mean of the floors. Periods past `max_period` are taken as 1.
    pub fn at_mean(&self, name: &str, mean: &Rational, max_period: i64) -> Piecewise {
        let period = i64::try_from(self.period(name))
            .ok()
            .filter(|&p| p <= max_period)
            .unwrap_or(1);
        if period == 1 {
            return self.substitute(name, &LinExpr::constant(mean.clone()));
        }
        let u = mean.floor();
        let at = |j: i64| {
            let x = &u + Rational::from_integer(j.into());
            self.substitute(name, &LinExpr::constant(x))
        };
        let p = Rational::from_integer(period.into());
        let classes: Vec<Piecewise> = (0..period).map(at).collect();
        let average = Piecewise::sum(&classes).scaled(&(Rational::one() / &p));
        let offset = mean - &u - (&p - Rational::one()) / Rational::from_integer(2.into());
        let slope = (&at(period) - &at(0)).scaled(&(offset / &p));
        &average + &slope
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binding(pairs: &[(&str, i64)]) -> crate::Binding {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    /// Brute force: the least `P` such that the count's second differences along `P`-steps
    /// vanish on every residue class, over a window past the guards' thresholds.
    fn least_period(p: &Piecewise, name: &str) -> i64 {
        let at = |x: i64| p.evaluate(&binding(&[(name, x), ("n", 100)])).unwrap();
        let two = crate::Rational::from_integer(2.into());
        (1..=60)
            .find(|&q| (20..60).all(|x| at(x + 2 * q) + at(x) == at(x + q) * &two))
            .unwrap()
    }

    #[test]
    fn the_period_is_a_multiple_of_the_least_one_found_by_evaluation() {
        let x = LinExpr::symbol("x");
        let n = LinExpr::symbol("n");
        let half = x.scaled(&crate::Rational::new(1.into(), 2.into())).floor();
        // floor(floor(x/3)/5): 15 steps of x move it by one.
        let third = x.scaled(&crate::Rational::new(1.into(), 3.into())).floor();
        let nested = third
            .scaled(&crate::Rational::new(1.into(), 5.into()))
            .floor();
        let cases = [
            (n.minus(&x), 1),
            (n.minus(&half), 2),
            (n.minus(&nested).plus(&half), 30),
        ];
        for (value, period) in cases {
            let p = Piecewise::guarded(crate::Guard::always(), QuasiPolynomial::from(&value));
            assert_eq!(p.period("x"), BigInt::from(period), "{value:?}");
            assert_eq!(period % least_period(&p, "x"), 0, "{value:?}");
        }
    }

    /// A loop unrolled twice runs `floor((n - x)/2)` passes and one remainder pass where
    /// `n - x` is odd; over entries whose bounds `x` have the mean 3.5 (3 and 4 alike), the
    /// passes average the counts at 3 and 4, which substituting 3.5 does not give.
    #[test]
    fn a_mean_counts_the_average_over_values_with_that_mean_not_the_floor_at_it() {
        let x = LinExpr::symbol("x");
        let n = LinExpr::symbol("n");
        let half = |e: &LinExpr| e.scaled(&Rational::new(1.into(), 2.into())).floor();
        let passes = half(&n.minus(&x));
        let p = Piecewise::guarded(crate::Guard::always(), QuasiPolynomial::from(&passes));
        let mean = Rational::new(7.into(), 2.into());
        let at = |c: &Piecewise, n: i64| c.evaluate(&binding(&[("n", n)])).unwrap();
        for n in [20, 21] {
            let by_value = |x: i64| {
                at(
                    &p.substitute("x", &LinExpr::constant(Rational::from_integer(x.into()))),
                    n,
                )
            };
            let average = (by_value(3) + by_value(4)) / Rational::from_integer(2.into());
            assert_eq!(at(&p.at_mean("x", &mean, 64), n), average, "n = {n}");
        }
    }
}
