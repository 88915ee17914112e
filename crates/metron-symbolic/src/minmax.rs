//! Nested `max`/`min` loop ends (`min(max(a, b), c)`, `max(a, b) - min(c, d)`), as produced by
//! compilers' scalar evolution and by clamped bounds in real code.
//!
//! Every expression built from affine forms with `+`, multiplication by a constant, `max` and
//! `min` equals a max of mins of affine forms (distributivity of `+` over max/min, and
//! `min(max(a, b), c) = max(min(a, c), min(b, c))`): [`MaxOfMins`] keeps that normal form.
//! A loop whose end is such a max counts the union of the loops ending at each min, which
//! inclusion–exclusion turns into signed flat nests (`v <= max(m1, m2)` is
//! `[v <= m1] + [v <= m2] - [v <= min(m1, m2)]`), each counted by [`sum_over`].

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::expr::rat;
use crate::nest::{AffineExpr, Bound, LoopNest};
use crate::piecewise::Piecewise;
use crate::poly::QuasiPolynomial;
use crate::trip_count::{sum_over, CountOptions};

/// Most affine forms or terms kept while normalising; beyond it the expression is refused
/// (distributing a min of maxes is exponential).
const MAX_TERMS: usize = 64;

/// `max_i min_j e_ij`; one term with one form is the affine form itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MaxOfMins(pub Vec<Vec<AffineExpr>>);

fn too_complex(what: &str) -> Error {
    Error::TooComplex {
        message: format!("{what}: more than {MAX_TERMS} max/min terms"),
    }
}

impl MaxOfMins {
    pub fn affine(e: AffineExpr) -> Self {
        MaxOfMins(vec![vec![e]])
    }

    pub fn from_bound(b: &Bound) -> Self {
        match b {
            Bound::Max(v) => MaxOfMins(v.iter().map(|e| vec![e.clone()]).collect()),
            Bound::Min(v) => MaxOfMins(vec![v.clone()]),
        }
    }

    /// The affine form, when there is no max or min left.
    pub fn as_affine(&self) -> Option<&AffineExpr> {
        match self.0.as_slice() {
            [t] => match t.as_slice() {
                [e] => Some(e),
                _ => None,
            },
            _ => None,
        }
    }

    /// The single-level bound it is, if any (`max(a, b)` or `min(a, b)`).
    pub fn as_bound(&self) -> Option<Bound> {
        if self.0.len() == 1 {
            return Some(Bound::Min(self.0[0].clone()));
        }
        self.0
            .iter()
            .all(|t| t.len() == 1)
            .then(|| Bound::Max(self.0.iter().map(|t| t[0].clone()).collect()))
    }

    pub fn max(&self, o: &MaxOfMins) -> Result<MaxOfMins, Error> {
        MaxOfMins([self.0.clone(), o.0.clone()].concat()).simplified()
    }

    /// `min(max_i A_i, max_j B_j) = max_{i,j} min(A_i, B_j)`.
    pub fn min(&self, o: &MaxOfMins) -> Result<MaxOfMins, Error> {
        let mut out = Vec::new();
        for a in &self.0 {
            for b in &o.0 {
                out.push([a.clone(), b.clone()].concat());
            }
        }
        MaxOfMins(out).simplified()
    }

    /// `max_i min_k a_ik + max_j min_l b_jl = max_{i,j} min_{k,l} (a_ik + b_jl)`.
    pub fn add(&self, o: &MaxOfMins) -> Result<MaxOfMins, Error> {
        let mut out = Vec::new();
        for a in &self.0 {
            for b in &o.0 {
                let mut t = Vec::new();
                for x in a {
                    for y in b {
                        t.push(x.plus_scaled(y, 1)?);
                    }
                }
                out.push(t);
            }
        }
        MaxOfMins(out).simplified()
    }

    /// `k * self`; a negative `k` swaps max and min, and the min of maxes is distributed back
    /// into a max of mins.
    pub fn scale(&self, k: i64) -> Result<MaxOfMins, Error> {
        let zero = AffineExpr::constant(0);
        let scaled = |t: &Vec<AffineExpr>| {
            t.iter()
                .map(|e| zero.plus_scaled(e, k))
                .collect::<Result<Vec<_>, _>>()
        };
        if k >= 0 {
            return MaxOfMins(self.0.iter().map(scaled).collect::<Result<_, _>>()?).simplified();
        }
        // -max_i min_j e_ij = min_i max_j (-e_ij) = min_i (max over the term's forms).
        let mut acc: Option<MaxOfMins> = None;
        for t in &self.0 {
            let m = MaxOfMins(scaled(t)?.into_iter().map(|e| vec![e]).collect());
            acc = Some(match acc {
                None => m,
                Some(a) => a.min(&m)?,
            });
        }
        acc.unwrap_or_else(|| MaxOfMins(Vec::new())).simplified()
    }

    /// Drops repeated forms and terms dominated by another (a term whose forms include all of
    /// another term's forms is a smaller min, so never the max).
    pub fn simplified(mut self) -> Result<MaxOfMins, Error> {
        for t in &mut self.0 {
            t.sort();
            t.dedup();
        }
        self.0.sort();
        self.0.dedup();
        self.cancel_symmetric_pairs()?;
        let terms = self.0.clone();
        self.0 = terms
            .iter()
            .enumerate()
            .filter(|(i, t)| {
                !terms
                    .iter()
                    .enumerate()
                    .any(|(j, u)| j != *i && u.len() < t.len() && u.iter().all(|e| t.contains(e)))
            })
            .map(|(_, t)| t.clone())
            .collect();
        if self.0.len() > MAX_TERMS || self.0.iter().any(|t| t.len() > MAX_TERMS) {
            return Err(too_complex(&self.to_string()));
        }
        Ok(self)
    }

    /// `max(min(e, e + d), min(e, e - d)) = e` (one of d, -d is >= 0): what `X - X` leaves
    /// for `X = max(a, b)`, which the normal form cannot cancel otherwise.
    fn cancel_symmetric_pairs(&mut self) -> Result<(), Error> {
        let other = |t: &[AffineExpr], e: &AffineExpr| t.iter().find(|f| *f != e).cloned();
        loop {
            let mut found = None;
            'search: for (i, t) in self.0.iter().enumerate() {
                for (j, u) in self.0.iter().enumerate().skip(i + 1) {
                    if t.len() != 2 || u.len() != 2 {
                        continue;
                    }
                    for e in t.iter().filter(|e| u.contains(e)) {
                        let (Some(x), Some(y)) = (other(t, e), other(u, e)) else {
                            continue;
                        };
                        if x.plus_scaled(&y, 1)? == e.plus_scaled(e, 1)? {
                            found = Some((i, j, e.clone()));
                            break 'search;
                        }
                    }
                }
            }
            let Some((i, j, e)) = found else {
                return Ok(());
            };
            self.0.remove(j);
            self.0[i] = vec![e];
        }
    }

    pub fn map(&self, f: impl Fn(&AffineExpr) -> AffineExpr) -> MaxOfMins {
        MaxOfMins(self.0.iter().map(|t| t.iter().map(&f).collect()).collect())
    }

    pub fn evaluate(&self, values: &crate::Binding) -> Result<i64, Error> {
        let mut best: Option<i64> = None;
        for t in &self.0 {
            let m = Bound::Min(t.clone()).evaluate(values)?;
            best = Some(best.map_or(m, |b| b.max(m)));
        }
        best.ok_or_else(|| Error::InvalidNest {
            message: "an empty max".into(),
        })
    }

    /// Inclusion–exclusion over the terms: `[v <= max_i m_i]` is the sum over non-empty
    /// subsets S of `(-1)^(|S|+1) [v <= min_{i in S} m_i]`, each a flat `min` bound.
    pub fn union_terms(&self) -> Result<Vec<(i64, Bound)>, Error> {
        let n = self.0.len();
        if n > 8 {
            return Err(too_complex(&self.to_string()));
        }
        let mut out = Vec::new();
        for mask in 1u32..(1 << n) {
            let mut forms: Vec<AffineExpr> = (0..n)
                .filter(|i| mask & (1 << i) != 0)
                .flat_map(|i| self.0[i].clone())
                .collect();
            forms.sort();
            forms.dedup();
            let sign = if mask.count_ones() % 2 == 1 { 1 } else { -1 };
            out.push((sign, Bound::Min(forms)));
        }
        Ok(out)
    }
}

impl std::fmt::Display for MaxOfMins {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let min = |t: &Vec<AffineExpr>| {
            if t.len() == 1 {
                t[0].to_string()
            } else {
                let p: Vec<String> = t.iter().map(|e| e.to_string()).collect();
                format!("min({})", p.join(", "))
            }
        };
        if self.0.len() == 1 {
            return f.write_str(&min(&self.0[0]));
        }
        let p: Vec<String> = self.0.iter().map(min).collect();
        write!(f, "max({})", p.join(", "))
    }
}

/// [`sum_over`] of a nest whose loop ends may be nested max/min: `ends[d]`, when given,
/// replaces the end of loop `d` (which must count upwards). Each such loop is split by
/// [`MaxOfMins::union_terms`] and the signed flat nests are summed.
pub fn sum_over_nested(
    nest: &LoopNest,
    ends: &[Option<MaxOfMins>],
    summand: &QuasiPolynomial,
    options: &CountOptions,
) -> Result<Piecewise, Error> {
    let mut variants: Vec<(i64, LoopNest)> = vec![(1, nest.clone())];
    for (d, end) in ends.iter().enumerate() {
        let Some(end) = end else { continue };
        if let Some(b) = end.as_bound() {
            for (_, v) in &mut variants {
                v.loops[d].end = b.clone();
            }
            continue;
        }
        if nest.loops.get(d).is_none_or(|l| l.stride <= 0) {
            return Err(Error::InvalidNest {
                message: format!("a nested max/min end needs an upward loop at depth {d}"),
            });
        }
        let terms = end.union_terms()?;
        let mut next = Vec::new();
        for (s, v) in &variants {
            for (t, b) in &terms {
                let mut w = v.clone();
                w.loops[d].end = b.clone();
                next.push((s * t, w));
            }
        }
        if next.len() > 4 * MAX_TERMS {
            return Err(too_complex(&end.to_string()));
        }
        variants = next;
    }
    let mut parts = Vec::new();
    for (s, v) in &variants {
        parts.push(sum_over(v, summand, options)?.scaled(&rat(*s)));
    }
    let mut p = Piecewise::sum(&parts);
    p.simplify();
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nest::Loop;
    use crate::{binding, Binding};

    fn e(t: &str) -> MaxOfMins {
        MaxOfMins::affine(AffineExpr::parse(t).unwrap())
    }

    #[test]
    fn normal_form_of_nested_expressions() {
        // min(max(a, b), c) = max(min(a, c), min(b, c))
        let m = e("a").max(&e("b")).unwrap().min(&e("c")).unwrap();
        assert_eq!(m.to_string(), "max(min(a, c), min(b, c))");
        // -max(a, b) = min(-a, -b); max(a, b) - min(c, d) = max(a - c, a - d, b - c, b - d)
        assert_eq!(
            e("a").max(&e("b")).unwrap().scale(-1).unwrap().to_string(),
            "min(-a, -b)"
        );
        let d = e("a")
            .max(&e("b"))
            .unwrap()
            .add(&e("c").min(&e("d")).unwrap().scale(-1).unwrap())
            .unwrap();
        assert_eq!(d.0.len(), 4);
        // X - X for X = max(a, b) is 0.
        let x = e("a").max(&e("b")).unwrap();
        assert_eq!(x.add(&x.scale(-1).unwrap()).unwrap().to_string(), "0");
        // max(a, min(a, b)) = a: the min term is dominated.
        assert_eq!(e("a").max(&e("a").min(&e("b")).unwrap()).unwrap(), e("a"));
    }

    /// Every normal form evaluates like the expression it came from, on a grid.
    #[test]
    fn normal_forms_evaluate_like_the_expression() {
        let x = e("a")
            .max(&e("b - 2"))
            .unwrap()
            .min(&e("c + 1"))
            .unwrap()
            .scale(-2)
            .unwrap()
            .add(&e("a").min(&e("c")).unwrap())
            .unwrap();
        for a in -3..4 {
            for b in -3..4 {
                for c in -3..4 {
                    let v: Binding = binding([("a", a), ("b", b), ("c", c)]);
                    let want = -2 * a.max(b - 2).min(c + 1) + a.min(c);
                    assert_eq!(x.evaluate(&v).unwrap(), want, "a={a} b={b} c={c}");
                }
            }
        }
    }

    /// `for i in 0..=min(max(n - 3, 2), m)` and an inner `for j in 0..=max(i, m - i)`:
    /// brute-force enumeration is the oracle.
    #[test]
    fn nested_ends_count_like_enumeration() {
        let outer = e("n - 3").max(&e("2")).unwrap().min(&e("m")).unwrap();
        let inner = e("i").max(&e("m - i")).unwrap();
        let placeholder = |v: &str| Loop::inclusive(v, "0", "0", 1).unwrap();
        let nest = LoopNest::new(vec![placeholder("i"), placeholder("j")]);
        let ends = [Some(outer.clone()), Some(inner.clone())];
        let p = sum_over_nested(
            &nest,
            &ends,
            &QuasiPolynomial::integer(1),
            &CountOptions::default(),
        )
        .unwrap();
        for n in -1..9 {
            for m in -1..7 {
                let b = binding([("n", n), ("m", m)]);
                let mut want = 0i64;
                for i in 0..=outer.evaluate(&b).unwrap() {
                    let mut bi = b.clone();
                    bi.insert("i".into(), i);
                    want += (inner.evaluate(&bi).unwrap() + 1).max(0);
                }
                assert_eq!(p.evaluate_integer(&b).unwrap(), want.into(), "n={n} m={m}");
            }
        }
    }

    #[test]
    fn too_many_terms_is_an_error_not_a_hang() {
        let mut x = e("a0");
        for i in 1..10 {
            x = x.max(&e(&format!("a{i}"))).unwrap();
        }
        let y = x.min(&e("b").max(&e("c")).unwrap());
        assert!(y.is_err() || y.unwrap().union_terms().is_err());
    }
}
