//! Loop starts and bounds that hold a residue `e % k` of the outer indices (red-black
//! ordering: `for (j = 1 + (i + colour) % 2; j < n - 1; j += 2)`). The count is no
//! polynomial in the indices (003 §4.1.2 counts affine nests), but it is one in each residue:
//! the value `e % k` stands in the count as a symbol of its own, and the nest is split into
//! the k parts where `e % k == r` (a modulo condition, which [`crate::trip_count`] counts
//! exactly, 004 Listing 5), in each of which the symbol is the constant r.
//!
//! metron memory reads the residues from scalar evolution, metron static from the source;
//! both split their nests here.

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::nest::{AffineExpr, Bound, Condition, LoopNest};
use crate::Binding;

/// Most parts one nest is split into (the product of its residues' moduli).
pub const MAX_PARTS: usize = 64;

/// A value `expr mod modulus` standing in a count as the symbol `symbol`. The remainder is
/// the mathematical one, in `[0, modulus)`: C's `%` agrees while `expr >= 0`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Residue {
    pub symbol: String,
    #[serde(with = "affine_text")]
    pub expr: AffineExpr,
    pub modulus: i64,
}

impl Residue {
    /// The condition under which the symbol is `value`: `expr % modulus == value`.
    pub fn condition(&self, value: i64) -> Condition {
        Condition::Modulo {
            expr: self.expr.clone(),
            modulus: self.modulus,
            residue: value,
            negated: false,
        }
    }
}

/// One part of a nest split into residues: the conditions that select it and the value of
/// each residue symbol in it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ResiduePart {
    pub conditions: Vec<Condition>,
    pub fixed: Binding,
}

/// Every combination of the residues' values (the product of their moduli, at most
/// `max_parts`; `None` when larger or when a modulus is not positive). The counts of the
/// parts add up to the whole: the parts' conditions are exclusive and exhaustive. No
/// residues: one part without conditions.
pub fn split_residues(residues: &[&Residue], max_parts: usize) -> Option<Vec<ResiduePart>> {
    let size = residues.iter().try_fold(1usize, |n, r| {
        let m = usize::try_from(r.modulus).ok().filter(|&m| m > 0)?;
        n.checked_mul(m)
    })?;
    if size > max_parts {
        return None;
    }
    let mut parts = vec![ResiduePart::default()];
    for r in residues {
        parts = parts
            .into_iter()
            .flat_map(|p| {
                (0..r.modulus).map(move |v| {
                    let mut p = p.clone();
                    p.conditions.push(r.condition(v));
                    p.fixed.insert(r.symbol.clone(), v);
                    p
                })
            })
            .collect();
    }
    Some(parts)
}

/// The parts of a nest whose loops hold residues: in each, the residues' conditions on the
/// body and their symbols replaced by their values; `None` when no loop holds one.
pub(crate) fn nest_parts(nest: &LoopNest) -> Result<Option<Vec<LoopNest>>, Error> {
    let residues: Vec<&Residue> = nest.loops.iter().flat_map(|l| &l.residues).collect();
    if residues.is_empty() {
        return Ok(None);
    }
    let parts = split_residues(&residues, MAX_PARTS).ok_or_else(|| Error::TooComplex {
        message: format!("more than {MAX_PARTS} residue parts"),
    })?;
    let parts = parts.into_iter().map(|p| {
        let mut n = nest.clone();
        for l in &mut n.loops {
            l.residues.clear();
            for b in [&mut l.start, &mut l.end] {
                let (Bound::Max(es) | Bound::Min(es)) = b;
                for e in es.iter_mut() {
                    *e = fixed(e, &p.fixed)?;
                }
            }
        }
        for c in &mut n.conditions {
            match c {
                Condition::Affine { lhs, rhs, .. } => {
                    *lhs = fixed(lhs, &p.fixed)?;
                    *rhs = fixed(rhs, &p.fixed)?;
                }
                Condition::Modulo { expr, .. } => *expr = fixed(expr, &p.fixed)?,
            }
        }
        n.conditions.extend(p.conditions);
        Ok(n)
    });
    parts.collect::<Result<Vec<_>, Error>>().map(Some)
}

/// `e` with the names of `values` replaced by their values.
fn fixed(e: &AffineExpr, values: &Binding) -> Result<AffineExpr, Error> {
    let mut out = e.clone();
    for (name, v) in values {
        if let Some(c) = out.terms.remove(name) {
            out = out.plus_scaled(&AffineExpr::constant(*v), c)?;
        }
    }
    Ok(out)
}

/// An affine expression in JSON as its text (`k_a + k_b + 1`), as reports show it.
mod affine_text {
    use serde::{Deserialize, Deserializer, Serializer};

    use crate::nest::AffineExpr;

    pub fn serialize<S: Serializer>(e: &AffineExpr, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&e.to_string())
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<AffineExpr, D::Error> {
        let text = String::deserialize(d)?;
        AffineExpr::parse(&text).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{trip_count, CountOptions, Loop, LoopNest};

    fn parity(symbol: &str) -> Residue {
        Residue {
            symbol: symbol.into(),
            expr: AffineExpr::parse("i + c").unwrap(),
            modulus: 2,
        }
    }

    #[test]
    fn red_black_rows_counted_per_residue() {
        // for c < 2, for i = 1..n-2, for j = 1 + (i + c) % 2; j < n - 1; j += 2: the j loop
        // names the parity r; the nest is counted per parity.
        let j = Loop {
            residues: vec![parity("r")],
            ..Loop::exclusive("j", "1 + r", "n - 1", 2).unwrap()
        };
        let nest = LoopNest::new(vec![
            Loop::exclusive("c", "0", "2", 1).unwrap(),
            Loop::exclusive("i", "1", "n - 1", 1).unwrap(),
            j,
        ]);
        assert_eq!(nest.parameters().into_iter().collect::<Vec<_>>(), ["n"]);
        let total = trip_count(&nest, &CountOptions::default()).unwrap();
        for n in [2, 3, 4, 9, 10, 61] {
            let brute: i64 = (0..2)
                .flat_map(|c| (1..n - 1).map(move |i| (c, i)))
                .map(|(c, i)| (1 + (i + c) % 2..n - 1).step_by(2).count() as i64)
                .sum();
            let b = crate::binding([("n", n)]);
            assert_eq!(total.evaluate_integer(&b).unwrap(), brute.into(), "n = {n}");
            assert_eq!(
                crate::oracle::enumerate(&nest, &b, 1 << 20).unwrap() as i64,
                brute
            );
        }
        // A residue of the loop's own counter is refused.
        let own = Loop {
            residues: vec![Residue {
                expr: AffineExpr::var("k"),
                ..parity("r")
            }],
            ..Loop::exclusive("k", "r", "n", 1).unwrap()
        };
        assert!(trip_count(&LoopNest::new(vec![own]), &CountOptions::default()).is_err());
    }

    #[test]
    fn parts_are_the_product_of_the_moduli() {
        let a = parity("a");
        let b = Residue {
            modulus: 3,
            ..parity("b")
        };
        let parts = split_residues(&[&a, &b], 16).unwrap();
        assert_eq!(parts.len(), 6);
        assert_eq!(parts[5].fixed, crate::binding([("a", 1), ("b", 2)]));
        assert!(split_residues(&[&a, &b], 5).is_none());
        let bad = Residue {
            modulus: 0,
            ..parity("z")
        };
        assert!(split_residues(&[&bad], 16).is_none());
        assert_eq!(split_residues(&[], 16).unwrap().len(), 1);
    }

    #[test]
    fn json_shows_the_expression() {
        let r = parity("r");
        let text = serde_json::to_string(&r).unwrap();
        assert_eq!(text, r#"{"symbol":"r","expr":"c + i","modulus":2}"#);
        assert_eq!(serde_json::from_str::<Residue>(&text).unwrap(), r);
    }
}
