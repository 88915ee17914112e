//! The screen of a basis's subsets for a refit ([`Basis`](super::Basis)): which few terms
//! could combine to a block's counts at the runs, before the exact check over the rationals.
//! A basis holds hundreds of terms and a block no combination fits tries every subset of up
//! to [`MAX_TERMS`](super::MAX_TERMS); so a subset costs a few operations on Cholesky rows
//! kept in place, and the triples, whose number grows with the cube of the basis, are found
//! by a search quadratic in it ([`Screen::triples`]).

/// Relative residual below which a subset passes the floating-point screen, and relative
/// length below which a term is taken as dependent on the ones before it.
const SCREEN_RESIDUAL: f64 = 1e-9;
const DEPENDENT: f64 = 1e-10;

/// The least-squares screen of every subset of terms, from their Gram matrix (computed once
/// per fit, so a subset costs a few operations rather than dot products over the samples):
/// `y` is in the span of terms `i < j < k` when its residual after projecting on them
/// (Cholesky factors of the Gram matrix, built a term at a time) is nearly zero.
use super::residues::Residues;

pub(super) struct Screen {
    pub(super) gram: Vec<Vec<f64>>,
    /// `<t_i, y>` and `<y, y>`.
    pub(super) ty: Vec<f64>,
    yy: f64,
    /// The values modulo a prime, where the exact values are known: the triples are then
    /// found from them ([`Screen::triples`]).
    residues: Option<Residues>,
}

impl Screen {
    pub(super) fn new(terms: &[Vec<f64>], y: &[f64]) -> Screen {
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(x, y)| x * y).sum::<f64>();
        Screen {
            gram: terms
                .iter()
                .map(|a| terms.iter().map(|b| dot(a, b)).collect())
                .collect(),
            ty: terms.iter().map(|a| dot(a, y)).collect(),
            yy: dot(y, y),
            residues: None,
        }
    }

    /// With the terms' and `y`'s exact values modulo the prime of [`Residues`]
    /// (`residues::residue`).
    pub(super) fn with_residues(self, terms: Vec<Vec<u64>>, y: Vec<u64>) -> Screen {
        Screen {
            residues: Some(Residues::new(terms, y)),
            ..self
        }
    }

    /// The first subset of at most `most` terms, fewest terms first and lexicographic
    /// within a size, that passes the screen and for which `check` gives a result. With
    /// residues, the triples `check` sees are only those whose span holds `y` with no
    /// coefficient zero ([`Screen::triples`]).
    pub(super) fn first<T>(
        &self,
        most: usize,
        check: &mut dyn FnMut(&[usize]) -> Option<T>,
    ) -> Option<T> {
        let most = most.min(self.ty.len());
        let mut factor = Factor::new(most);
        let accept = SCREEN_RESIDUAL * self.yy;
        let check = &mut |c: &[usize], _: f64| check(c);
        (1..=most).find_map(|size| match (size, &self.residues) {
            (3, Some(r)) => self.triples(r, &mut factor, accept, check),
            _ => self.extend(&mut factor, (size, accept), self.yy, check),
        })
    }

    /// What [`Screen::extend`] gives for triples with an exact check that refuses a zero
    /// coefficient ([`super::solve`]), visiting only the triples whose span holds `y` modulo
    /// the prime with every coefficient nonzero (the others may pass the float screen, never
    /// that check): the pairs for each first term come from one pass over the basis, so a
    /// basis of `T` terms costs about `T^2` operations, not `T^3 / 6` subsets.
    fn triples<T>(
        &self,
        r: &Residues,
        f: &mut Factor,
        accept: f64,
        check: &mut dyn FnMut(&[usize], f64) -> Option<T>,
    ) -> Option<T> {
        for i in 0..self.ty.len() {
            for (j, k) in r.pairs_with(i) {
                if let Some(found) = self.screen_subset(f, &[i, j, k], accept, check) {
                    return Some(found);
                }
            }
        }
        None
    }

    /// `chosen` through the screen as [`Screen::extend`] builds it a term at a time, and
    /// through `check` when it passes.
    fn screen_subset<T>(
        &self,
        f: &mut Factor,
        chosen: &[usize],
        accept: f64,
        check: &mut dyn FnMut(&[usize], f64) -> Option<T>,
    ) -> Option<T> {
        f.chosen.clear();
        let mut residual = self.yy;
        for (d, &k) in chosen.iter().enumerate() {
            let Some((length, b)) = self.project(f, k) else {
                f.chosen.clear();
                return None;
            };
            residual -= b * b;
            f.chosen.push(k);
            (f.length[d], f.along[d]) = (length, b);
        }
        let found = (residual <= accept)
            .then(|| check(&f.chosen, residual))
            .flatten();
        f.chosen.clear();
        found
    }

    /// The subset of at most `most` terms that leaves the least residual, and the residual
    /// (`|y|^2` less what it explains).
    pub(super) fn closest(&self, most: usize) -> Option<(Vec<usize>, f64)> {
        let mut best: Option<(Vec<usize>, f64)> = None;
        let mut keep = |c: &[usize], left: f64| -> Option<()> {
            if best.as_ref().is_none_or(|(_, b)| left < *b) {
                best = Some((c.to_vec(), left));
            }
            None
        };
        let most = most.min(self.ty.len());
        let mut factor = Factor::new(most);
        for size in 1..=most {
            let all = (size, f64::INFINITY);
            self.extend(&mut factor, all, self.yy, &mut keep);
        }
        best
    }

    /// Extends `f.chosen` by later terms up to `size`; `residual` is `|y|^2` minus what
    /// `f.chosen` explains. Every subset tried costs a few operations on `f`'s rows, written
    /// in place: the screen visits millions of subsets of a large basis, and an allocation
    /// per subset was half its time.
    fn extend<T>(
        &self,
        f: &mut Factor,
        (size, accept): (usize, f64),
        residual: f64,
        check: &mut dyn FnMut(&[usize], f64) -> Option<T>,
    ) -> Option<T> {
        let d = f.chosen.len();
        let from = f.chosen.last().map_or(0, |&l| l + 1);
        for k in from..self.ty.len() {
            let Some((length, b)) = self.project(f, k) else {
                continue;
            };
            let left = residual - b * b;
            if d + 1 == size && left > accept {
                continue;
            }
            f.chosen.push(k);
            f.length[d] = length;
            f.along[d] = b;
            let found = match d + 1 == size {
                true => check(&f.chosen, left),
                false => self.extend(f, (size, accept), left, check),
            };
            f.chosen.pop();
            if found.is_some() {
                return found;
            }
        }
        None
    }

    /// Term `k`'s Cholesky row after `f.chosen` (its coordinates on their orthonormal basis,
    /// written to `f.rows[d]`), its own length and `y`'s projection on it; `None` when it
    /// (nearly) lies in their span.
    fn project(&self, f: &mut Factor, k: usize) -> Option<(f64, f64)> {
        let d = f.chosen.len();
        let (earlier, row) = f.rows.split_at_mut(d);
        let row = &mut row[0];
        for r in 0..d {
            let dot: f64 = row[..r]
                .iter()
                .zip(&earlier[r][..r])
                .map(|(x, y)| x * y)
                .sum();
            row[r] = (self.gram[f.chosen[r]][k] - dot) / f.length[r];
        }
        let own = self.gram[k][k] - row[..d].iter().map(|x| x * x).sum::<f64>();
        if own <= DEPENDENT * self.gram[k][k] {
            return None;
        }
        let length = own.sqrt();
        let along: f64 = f.along[..d].iter().zip(&row[..d]).map(|(b, x)| b * x).sum();
        Some((length, (self.ty[k] - along) / length))
    }
}

/// The Cholesky factor of the terms a [`Screen`] has chosen so far: for chosen term `r`, its
/// coordinates on the orthonormalised earlier ones (`rows[r][..r]`), its own length, and
/// `y`'s projection on it.
struct Factor {
    chosen: Vec<usize>,
    rows: Vec<Vec<f64>>,
    length: Vec<f64>,
    along: Vec<f64>,
}

impl Factor {
    /// Room for subsets of up to `most` terms.
    fn new(most: usize) -> Factor {
        Factor {
            chosen: Vec::with_capacity(most),
            rows: vec![vec![0.0; most]; most],
            length: vec![0.0; most],
            along: vec![0.0; most],
        }
    }
}

/// `x` with `a x = b` (Gaussian elimination with partial pivoting; `None` when singular).
pub(super) fn solve_f64(mut a: Vec<Vec<f64>>, mut b: Vec<f64>) -> Option<Vec<f64>> {
    let n = b.len();
    for col in 0..n {
        let p = (col..n).max_by(|&i, &j| a[i][col].abs().total_cmp(&a[j][col].abs()))?;
        if a[p][col].abs() < 1e-12 {
            return None;
        }
        a.swap(col, p);
        b.swap(col, p);
        let (pivot, below) = a.split_at_mut(col + 1);
        let pivot = &pivot[col];
        for (k, row) in below.iter_mut().enumerate() {
            let f = row[col] / pivot[col];
            for (x, p) in row.iter_mut().zip(pivot).skip(col) {
                *x -= f * p;
            }
            b[col + 1 + k] -= f * b[col];
        }
    }
    let mut x = vec![0.0; n];
    for r in (0..n).rev() {
        let rest: f64 = (r + 1..n).map(|c| a[r][c] * x[c]).sum();
        x[r] = (b[r] - rest) / a[r][r];
    }
    Some(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The screen tries subsets fewest terms first, lexicographically, each once, and
    /// passes the one whose span holds `y` (here `t1 + t3`, with `t0` and `t2` not).
    #[test]
    fn the_screen_visits_subsets_in_order_and_passes_the_span() {
        let terms: Vec<Vec<f64>> = vec![
            vec![1.0, 0.0, 0.0, 0.0],
            vec![0.0, 1.0, 0.0, 0.0],
            vec![0.0, 0.0, 1.0, 1.0],
            vec![0.0, 0.0, 1.0, 0.0],
        ];
        let screen = Screen::new(&terms, &[0.0, 2.0, 3.0, 0.0]);
        let mut seen = Vec::new();
        let found = screen.first(2, &mut |c| {
            seen.push(c.to_vec());
            Some(c.to_vec())
        });
        assert_eq!(found, Some(vec![1, 3]));
        assert_eq!(seen, vec![vec![1, 3]]);
        let mut all = Vec::new();
        let everything = Screen::new(&terms[..3], &[1.0, 1.0, 1.0, 1.0]);
        let none: Option<()> = everything.first(3, &mut |c| {
            all.push(c.to_vec());
            None
        });
        assert!(none.is_none());
        assert_eq!(all, vec![vec![0, 1, 2]]);
    }

    /// With no exact fit, `closest` takes the subset that leaves the least residual, checked
    /// against every subset's least-squares residual computed here by brute force.
    #[test]
    fn the_closest_subset_leaves_the_least_residual() {
        let terms: Vec<Vec<f64>> = vec![
            vec![1.0, 2.0, 3.0, 4.0, 5.0],
            vec![1.0, 1.0, 1.0, 1.0, 1.0],
            vec![1.0, 4.0, 9.0, 16.0, 25.0],
            vec![0.0, 1.0, 0.0, 1.0, 0.0],
        ];
        let y = [2.0, 5.5, 10.0, 17.5, 26.0];
        let screen = Screen::new(&terms, &y);
        let (chosen, left) = screen.closest(2).unwrap();
        let residual = |c: &[usize]| {
            let gram: Vec<Vec<f64>> = c
                .iter()
                .map(|&i| c.iter().map(|&j| screen.gram[i][j]).collect())
                .collect();
            let k = solve_f64(gram, c.iter().map(|&i| screen.ty[i]).collect()).unwrap();
            (0..y.len())
                .map(|r| {
                    let p: f64 = c.iter().zip(&k).map(|(&j, k)| k * terms[j][r]).sum();
                    (p - y[r]).powi(2)
                })
                .sum::<f64>()
        };
        let mut subsets: Vec<Vec<usize>> = (0..4).map(|i| vec![i]).collect();
        subsets.extend((0..4).flat_map(|i| (i + 1..4).map(move |j| vec![i, j])));
        let best = subsets
            .iter()
            .min_by(|a, b| residual(a).total_cmp(&residual(b)))
            .unwrap();
        assert_eq!(&chosen, best);
        assert!(
            (left - residual(best)).abs() < 1e-6,
            "{left} {}",
            residual(best)
        );
        assert_eq!(chosen, vec![1, 2], "y = x^2 + 1 but for one sample");
    }

    /// The triples found from residues are those the full enumeration screens, less the
    /// ones the exact check refuses (`y` outside their span, or a coefficient zero), in the
    /// same order: checked on random integer bases with planted fits of one to three terms,
    /// multiples and combinations of other terms, against the enumeration and the exact
    /// rational solve.
    #[test]
    fn triples_from_residues_are_the_enumerations_exact_ones_in_its_order() {
        use num_bigint::BigInt;
        use num_rational::BigRational;
        let mut state = 7u64;
        let mut next = |m: i64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % (2 * m as u64 + 1)) as i64 - m
        };
        for _ in 0..60 {
            let (rows, count) = (7usize, 24usize);
            let mut terms: Vec<Vec<i64>> = Vec::new();
            while terms.len() < count {
                let t: Vec<i64> = match next(3) {
                    // A combination of two earlier terms, or a multiple of one.
                    -3 | -2 if terms.len() > 2 => {
                        let (a, b) = (next(2), next(2));
                        let (p, q) = (
                            next(50).unsigned_abs() as usize,
                            next(50).unsigned_abs() as usize,
                        );
                        let (p, q) = (&terms[p % terms.len()], &terms[q % terms.len()]);
                        p.iter().zip(q).map(|(x, y)| a * x + b * y).collect()
                    }
                    _ => (0..rows).map(|_| next(6)).collect(),
                };
                if t.iter().any(|&x| x != 0) {
                    terms.push(t);
                }
            }
            let pick = |k: i64| (k.unsigned_abs() as usize) % count;
            let (i, j, k) = (pick(next(100)), pick(next(100)), pick(next(100)));
            // One, two or three planted terms: `y` on a single term or a pair makes every
            // triple holding them a fit.
            let (b, c) = match next(1) {
                -1 => (0, 0),
                0 => (-3, 0),
                _ => (-3, 1),
            };
            let y: Vec<i64> = (0..rows)
                .map(|r| 2 * terms[i][r] + b * terms[j][r] + c * terms[k][r])
                .collect();
            if y.iter().all(|&v| v == 0) {
                continue;
            }
            let f = |v: &[i64]| v.iter().map(|&x| x as f64).collect::<Vec<f64>>();
            let approx: Vec<Vec<f64>> = terms.iter().map(|t| f(t)).collect();
            let big = |v: &[i64]| v.iter().map(|&x| BigInt::from(x)).collect::<Vec<_>>();
            let exact_span = |c: &[usize]| {
                let columns: Vec<Vec<BigRational>> = c
                    .iter()
                    .map(|&t| {
                        big(&terms[t])
                            .into_iter()
                            .map(BigRational::from_integer)
                            .collect()
                    })
                    .collect();
                let columns: Vec<&[BigRational]> = columns.iter().map(Vec::as_slice).collect();
                let y: Vec<BigRational> =
                    big(&y).into_iter().map(BigRational::from_integer).collect();
                super::super::solve(&columns, &y).is_some()
            };
            let residue = |v: &[i64]| big(v).iter().map(super::super::residues::residue).collect();
            let plain = Screen::new(&approx, &f(&y));
            let fast = Screen::new(&approx, &f(&y))
                .with_residues(terms.iter().map(|t| residue(t)).collect(), residue(&y));
            let triples = |screen: &Screen| {
                let mut seen = Vec::new();
                let none: Option<()> = screen.first(3, &mut |c| {
                    if c.len() == 3 && exact_span(c) {
                        seen.push(c.to_vec());
                    }
                    None
                });
                assert!(none.is_none());
                seen
            };
            let want = triples(&plain);
            assert!(!want.is_empty() || exact_span(&[i, j, k]).then_some(()).is_none());
            assert_eq!(triples(&fast), want, "terms {terms:?}, y {y:?}");
        }
    }
}
