//! Counts modulo a prime, for exact span tests at integer speed: which pairs of terms, with
//! one term fixed, hold a block's counts in their span ([`Residues::pairs_with`]).
//!
//! Over the rationals, `y = a t_i + b t_j + c t_k` with `c != 0` puts `t_k` in the span of
//! `t_i`, `t_j` and `y`: modulo the span of `t_i` and `y`, `t_j` and `t_k` are parallel (or
//! one of them is zero). So with `i` fixed, the pairs are found by grouping the other terms
//! by direction in that quotient, one pass over them, instead of trying every pair. Modulo
//! [`P`] the arithmetic is exact; a relation over the rationals holds modulo `P` as well
//! (unless `P` divides a denominator of its coefficients, about one chance in 2^61), and a
//! relation that holds only modulo `P` is a false candidate the exact check refuses. So the
//! candidates hold every triple whose span holds `y` with no coefficient zero (the exact
//! check refuses a zero coefficient: a smaller subset fits).

use std::collections::HashMap;

use num_bigint::BigInt;
use num_integer::Integer;

/// The Mersenne prime 2^61 - 1.
pub(super) const P: u64 = (1 << 61) - 1;

/// A value modulo [`P`].
pub(super) fn residue(v: &BigInt) -> u64 {
    let r = v.mod_floor(&BigInt::from(P));
    u64::try_from(r).unwrap_or(0)
}

fn add(a: u64, b: u64) -> u64 {
    let s = a + b;
    if s >= P {
        s - P
    } else {
        s
    }
}

fn sub(a: u64, b: u64) -> u64 {
    add(a, P - b)
}

fn mul(a: u64, b: u64) -> u64 {
    let z = u128::from(a) * u128::from(b);
    // 2^61 = 1 (mod P): the high bits fold onto the low ones.
    add((z as u64) & P, (z >> 61) as u64)
}

fn inverse(a: u64) -> u64 {
    let (mut base, mut e, mut r) = (a, P - 2, 1);
    while e > 0 {
        if e & 1 == 1 {
            r = mul(r, base);
        }
        base = mul(base, base);
        e >>= 1;
    }
    r
}

/// Two linear functionals, fixed pseudo-random coefficients per sample: a vector's values
/// under them tell its direction (`F1 / F2`) up to a chance of 1 in `P` of two directions
/// meeting.
fn functionals(rows: usize) -> [Vec<u64>; 2] {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        // splitmix64
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % P
    };
    let first = (0..rows).map(|_| next()).collect();
    let second = (0..rows).map(|_| next()).collect();
    [first, second]
}

/// The terms' and `y`'s values at the samples modulo [`P`], and their images under the two
/// direction functionals.
pub(super) struct Residues {
    terms: Vec<Vec<u64>>,
    y: Vec<u64>,
    /// `(F1, F2)` of each term and of `y`.
    images: Vec<[u64; 2]>,
    y_image: [u64; 2],
}

impl Residues {
    pub(super) fn new(terms: Vec<Vec<u64>>, y: Vec<u64>) -> Residues {
        let f = functionals(y.len());
        let image = |v: &[u64]| {
            let apply = |g: &[u64]| v.iter().zip(g).fold(0, |s, (&x, &c)| add(s, mul(x, c)));
            [apply(&f[0]), apply(&f[1])]
        };
        Residues {
            images: terms.iter().map(|t| image(t)).collect(),
            y_image: image(&y),
            terms,
            y,
        }
    }

    /// The pairs `j < k` after `i` (ascending) with `y` in the span of `t_i`, `t_j`, `t_k`
    /// modulo [`P`] and the coefficients of `t_j` and `t_k` not zero. A term in the span of
    /// `t_i` and `y` (zero in the quotient) is in no such pair: with it, `y` needs no third
    /// term. Empty when `t_i` and `y` are parallel (or `y` is zero) modulo `P`: `y` needs no
    /// second term.
    pub(super) fn pairs_with(&self, i: usize) -> Vec<(usize, usize)> {
        let Some(quotient) = self.quotient(i) else {
            return Vec::new();
        };
        let images: Vec<(usize, u64, u64)> = (i + 1..self.terms.len())
            .map(|j| (j, quotient.image(self, j)))
            .filter(|(_, image)| *image != [0, 0])
            .map(|(j, [f1, f2])| (j, f1, f2))
            .collect();
        let mut classes: HashMap<u64, Vec<usize>> = HashMap::new();
        for (j, key) in directions(&images) {
            classes.entry(key).or_default().push(j);
        }
        let mut pairs = Vec::new();
        for class in classes.values() {
            for (a, &j) in class.iter().enumerate() {
                pairs.extend(class[a + 1..].iter().map(|&k| (j, k)));
            }
        }
        pairs.sort_unstable();
        pairs
    }

    /// The quotient by the span of `y` and `t_i`: a term's representative there is itself
    /// less multiples of `y` and of `t_i`'s own part (pivots `c1` and `c2` eliminated).
    fn quotient(&self, i: usize) -> Option<Quotient> {
        let c1 = self.y.iter().position(|&v| v != 0)?;
        let inv1 = inverse(self.y[c1]);
        let t = &self.terms[i];
        let a = mul(t[c1], inv1);
        let own: Vec<u64> = t
            .iter()
            .zip(&self.y)
            .map(|(&x, &v)| sub(x, mul(a, v)))
            .collect();
        let c2 = own.iter().position(|&v| v != 0)?;
        let own_image = [0, 1].map(|f| sub(self.images[i][f], mul(a, self.y_image[f])));
        Some(Quotient {
            c1,
            inv1,
            c2,
            inv2: inverse(own[c2]),
            own_c2_y: self.y[c2],
            own_image,
        })
    }
}

/// The quotient of [`Residues::quotient`].
struct Quotient {
    c1: usize,
    inv1: u64,
    c2: usize,
    inv2: u64,
    own_c2_y: u64,
    own_image: [u64; 2],
}

impl Quotient {
    /// `(F1, F2)` of term `j`'s representative: linear, so from the term's own images.
    fn image(&self, r: &Residues, j: usize) -> [u64; 2] {
        let t = &r.terms[j];
        let a = mul(t[self.c1], self.inv1);
        let b = mul(sub(t[self.c2], mul(a, self.own_c2_y)), self.inv2);
        [0, 1].map(|f| {
            let less_y = sub(r.images[j][f], mul(a, r.y_image[f]));
            sub(less_y, mul(b, self.own_image[f]))
        })
    }
}

/// Each term's direction key `F1 / F2` (one inversion for all: Montgomery's trick); a term
/// with `F2 = 0` keys on `P`, which no quotient takes.
fn directions(images: &[(usize, u64, u64)]) -> Vec<(usize, u64)> {
    let mut prefix = Vec::with_capacity(images.len());
    let mut running = 1u64;
    for &(_, _, f2) in images {
        prefix.push(running);
        if f2 != 0 {
            running = mul(running, f2);
        }
    }
    let mut inv = inverse(running);
    let mut keys = vec![(0, 0); images.len()];
    for (n, &(j, f1, f2)) in images.iter().enumerate().rev() {
        keys[n] = match f2 {
            0 => (j, P),
            _ => {
                let inv_f2 = mul(inv, prefix[n]);
                inv = mul(inv, f2);
                (j, mul(f1, inv_f2))
            }
        };
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic_modulo_p_matches_u128() {
        let mut x = 12345u64;
        for _ in 0..1000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let (a, b) = (x % P, (x >> 3) % P);
            let want = (u128::from(a) * u128::from(b) % u128::from(P)) as u64;
            assert_eq!(mul(a, b), want);
            assert_eq!(
                add(a, b),
                ((u128::from(a) + u128::from(b)) % u128::from(P)) as u64
            );
            if a != 0 {
                assert_eq!(mul(a, inverse(a)), 1);
            }
        }
        assert_eq!(residue(&BigInt::from(-1)), P - 1);
    }
}
