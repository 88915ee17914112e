//! Non-negative least squares without intercept for calibrating CMW's weights (001 §4.3.2):
//! minimise ‖A x − b‖ subject to x ≥ 0, by the active-set method of Lawson and Hanson
//! (*Solving Least Squares Problems*, 1974, Ch. 23). Also R² and k-fold cross-validation.
//!
//! Written here rather than taken from a crate: the Rust NNLS crates pull in a linear-algebra
//! stack for what is a ten-column problem; this one is tested against hand-solved systems,
//! a brute-force search over active sets and the KKT conditions.

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum NnlsError {
    #[error("the system has no rows")]
    Empty,
    #[error("row {row} has {found} columns, expected {expected}")]
    Ragged {
        row: usize,
        found: usize,
        expected: usize,
    },
    #[error("the right-hand side has {found} values for {expected} rows")]
    RhsLength { found: usize, expected: usize },
    #[error("row {row} holds a value that is not finite")]
    NotFinite { row: usize },
    #[error("k-fold cross-validation needs 2 <= k <= {rows} (the number of rows), got {k}")]
    Folds { k: usize, rows: usize },
}

#[derive(Debug, Clone, Serialize)]
pub struct NnlsSolution {
    pub x: Vec<f64>,
    /// b − A x
    pub residuals: Vec<f64>,
    /// ‖b − A x‖
    pub residual_norm: f64,
    pub iterations: usize,
}

fn check(a: &[Vec<f64>], b: &[f64]) -> Result<usize, NnlsError> {
    let n = a.first().ok_or(NnlsError::Empty)?.len();
    if b.len() != a.len() {
        return Err(NnlsError::RhsLength {
            found: b.len(),
            expected: a.len(),
        });
    }
    for (row, r) in a.iter().enumerate() {
        if r.len() != n {
            return Err(NnlsError::Ragged {
                row,
                found: r.len(),
                expected: n,
            });
        }
        if !r.iter().all(|v| v.is_finite()) || !b[row].is_finite() {
            return Err(NnlsError::NotFinite { row });
        }
    }
    Ok(n)
}

/// Solves min ‖A x − b‖, x ≥ 0. `a` is given by rows.
pub fn nnls(a: &[Vec<f64>], b: &[f64]) -> Result<NnlsSolution, NnlsError> {
    let n = check(a, b)?;
    // Columns scaled to unit norm: counts of 1e9 against times of 1 s would otherwise swamp
    // the tolerances. Positive scaling keeps the sign constraint.
    let scale: Vec<f64> = (0..n)
        .map(|j| {
            let norm = a.iter().map(|r| r[j] * r[j]).sum::<f64>().sqrt();
            if norm > 0.0 {
                norm
            } else {
                1.0
            }
        })
        .collect();
    let cols: Vec<Vec<f64>> = (0..n)
        .map(|j| a.iter().map(|r| r[j] / scale[j]).collect())
        .collect();
    let (z, iterations) = lawson_hanson(&cols, b);
    let x: Vec<f64> = z.iter().zip(&scale).map(|(v, s)| v / s).collect();
    let residuals: Vec<f64> = a
        .iter()
        .zip(b)
        .map(|(r, bi)| bi - r.iter().zip(&x).map(|(p, q)| p * q).sum::<f64>())
        .collect();
    let residual_norm = residuals.iter().map(|r| r * r).sum::<f64>().sqrt();
    Ok(NnlsSolution {
        x,
        residuals,
        residual_norm,
        iterations,
    })
}

fn dot(u: &[f64], v: &[f64]) -> f64 {
    u.iter().zip(v).map(|(a, b)| a * b).sum()
}

/// Lawson-Hanson NNLS on column-major `cols`.
fn lawson_hanson(cols: &[Vec<f64>], b: &[f64]) -> (Vec<f64>, usize) {
    let n = cols.len();
    let bnorm = b.iter().map(|v| v * v).sum::<f64>().sqrt().max(1e-300);
    let tol = 1e-12 * bnorm * (cols.first().map_or(1, Vec::len) as f64).max(1.0);
    let mut x = vec![0.0; n];
    let mut passive = vec![false; n];
    let max_iter = 3 * n + 30;
    let mut iterations = 0;
    let gradient = |x: &[f64]| -> Vec<f64> {
        let r: Vec<f64> = (0..b.len())
            .map(|i| b[i] - (0..n).map(|j| cols[j][i] * x[j]).sum::<f64>())
            .collect();
        cols.iter().map(|c| dot(c, &r)).collect()
    };
    loop {
        let w = gradient(&x);
        let candidate = (0..n)
            .filter(|&j| !passive[j] && w[j] > tol)
            .max_by(|&i, &j| w[i].total_cmp(&w[j]));
        let Some(t) = candidate else {
            break;
        };
        if iterations >= max_iter {
            break;
        }
        iterations += 1;
        passive[t] = true;
        loop {
            let idx: Vec<usize> = (0..n).filter(|&j| passive[j]).collect();
            let sub: Vec<&[f64]> = idx.iter().map(|&j| cols[j].as_slice()).collect();
            let s_p = least_squares(&sub, b);
            if s_p.iter().all(|&v| v > 0.0) {
                x = vec![0.0; n];
                for (k, &j) in idx.iter().enumerate() {
                    x[j] = s_p[k];
                }
                break;
            }
            // Step from x towards s until the first passive variable hits zero.
            let mut alpha = f64::INFINITY;
            for (k, &j) in idx.iter().enumerate() {
                if s_p[k] <= 0.0 {
                    let denom = x[j] - s_p[k];
                    if denom > 0.0 {
                        alpha = alpha.min(x[j] / denom);
                    }
                }
            }
            if !alpha.is_finite() {
                alpha = 0.0;
            }
            for (k, &j) in idx.iter().enumerate() {
                x[j] += alpha * (s_p[k] - x[j]);
            }
            for &j in &idx {
                if x[j] <= tol.min(1e-14) || x[j] <= 0.0 {
                    x[j] = 0.0;
                    passive[j] = false;
                }
            }
            if !passive.iter().any(|&p| p) {
                break;
            }
        }
    }
    (x, iterations)
}

/// Unconstrained least squares by Householder QR; columns given as slices. Columns that are
/// (numerically) dependent get coefficient 0.
fn least_squares(cols: &[&[f64]], b: &[f64]) -> Vec<f64> {
    let m = b.len();
    let k = cols.len();
    let mut r: Vec<Vec<f64>> = cols.iter().map(|c| c.to_vec()).collect();
    let mut qtb = b.to_vec();
    let steps = k.min(m);
    for j in 0..steps {
        let norm = (j..m).map(|i| r[j][i] * r[j][i]).sum::<f64>().sqrt();
        if norm == 0.0 {
            continue;
        }
        let alpha = if r[j][j] > 0.0 { -norm } else { norm };
        let mut v: Vec<f64> = (j..m).map(|i| r[j][i]).collect();
        v[0] -= alpha;
        let vnorm2 = dot(&v, &v);
        if vnorm2 == 0.0 {
            continue;
        }
        for col in r.iter_mut().skip(j) {
            let f = 2.0 * dot(&v, &col[j..]) / vnorm2;
            for (i, vi) in v.iter().enumerate() {
                col[j + i] -= f * vi;
            }
        }
        let f = 2.0 * dot(&v, &qtb[j..]) / vnorm2;
        for (i, vi) in v.iter().enumerate() {
            qtb[j + i] -= f * vi;
        }
    }
    let diag_max = (0..steps).map(|j| r[j][j].abs()).fold(0.0, f64::max);
    let mut x = vec![0.0; k];
    for j in (0..steps).rev() {
        let d = r[j][j];
        if d.abs() <= 1e-12 * diag_max {
            continue;
        }
        let s: f64 = (j + 1..steps).map(|c| r[c][j] * x[c]).sum();
        x[j] = (qtb[j] - s) / d;
    }
    x
}

/// Coefficient of determination, 1 − SS_res / SS_tot with SS_tot about the mean of `observed`.
pub fn r_squared(observed: &[f64], predicted: &[f64]) -> f64 {
    let n = observed.len().min(predicted.len());
    if n == 0 {
        return f64::NAN;
    }
    let mean = observed[..n].iter().sum::<f64>() / n as f64;
    let ss_tot: f64 = observed[..n].iter().map(|y| (y - mean).powi(2)).sum();
    let ss_res: f64 = (0..n).map(|i| (observed[i] - predicted[i]).powi(2)).sum();
    1.0 - ss_res / ss_tot
}

/// 1 − SS_res / Σ observed²: the R² of a regression through the origin (no intercept), as R's
/// `lm(y ~ 0 + x)` reports it. It measures proportionality, which is what 001 Eq. 5 claims;
/// the centred [`r_squared`] instead compares with predicting the mean, a model with an
/// intercept, and goes negative when times vary little around a large mean.
pub fn uncentered_r_squared(observed: &[f64], predicted: &[f64]) -> f64 {
    let n = observed.len().min(predicted.len());
    let ss: f64 = observed[..n].iter().map(|y| y * y).sum();
    let ss_res: f64 = (0..n).map(|i| (observed[i] - predicted[i]).powi(2)).sum();
    1.0 - ss_res / ss
}

/// Held-out predictions of k-fold cross-validation: row i is in fold i mod k; each fold is
/// predicted from an NNLS fit on the other folds. `k = rows` is leave-one-out.
#[derive(Debug, Clone, Serialize)]
pub struct CrossValidation {
    pub k: usize,
    pub predicted: Vec<f64>,
    /// observed − predicted, per row
    pub errors: Vec<f64>,
    /// root mean square of `errors`
    pub rmse: f64,
}

pub fn k_fold(a: &[Vec<f64>], b: &[f64], k: usize) -> Result<CrossValidation, NnlsError> {
    check(a, b)?;
    let rows = a.len();
    if k < 2 || k > rows {
        return Err(NnlsError::Folds { k, rows });
    }
    let mut predicted = vec![0.0; rows];
    for fold in 0..k {
        let train: Vec<usize> = (0..rows).filter(|i| i % k != fold).collect();
        let ta: Vec<Vec<f64>> = train.iter().map(|&i| a[i].clone()).collect();
        let tb: Vec<f64> = train.iter().map(|&i| b[i]).collect();
        let fit = nnls(&ta, &tb)?;
        for i in (0..rows).filter(|i| i % k == fold) {
            predicted[i] = dot(&a[i], &fit.x);
        }
    }
    let errors: Vec<f64> = b.iter().zip(&predicted).map(|(o, p)| o - p).collect();
    let rmse = (errors.iter().map(|e| e * e).sum::<f64>() / rows as f64).sqrt();
    Ok(CrossValidation {
        k,
        predicted,
        errors,
        rmse,
    })
}

/// Leave-one-out cross-validation.
pub fn leave_one_out(a: &[Vec<f64>], b: &[f64]) -> Result<CrossValidation, NnlsError> {
    k_fold(a, b, a.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64], tol: f64) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
    }

    #[test]
    fn hand_solved_interior_solution() {
        // AᵀA = [[2,1],[1,2]], Aᵀb = [3,2] -> x = [4/3, 1/3], both positive
        let a = vec![vec![1.0, 0.0], vec![0.0, 1.0], vec![1.0, 1.0]];
        let s = nnls(&a, &[2.0, 1.0, 1.0]).unwrap();
        assert!(close(&s.x, &[4.0 / 3.0, 1.0 / 3.0], 1e-12), "{:?}", s.x);
    }

    #[test]
    fn hand_solved_bound_solution() {
        // unconstrained [1, -1]; with x2 = 0: x1 = a1·b / a1·a1 = 1/2
        let a = vec![vec![1.0, 0.0], vec![0.0, 1.0], vec![1.0, 1.0]];
        let s = nnls(&a, &[1.0, -1.0, 0.0]).unwrap();
        assert!(close(&s.x, &[0.5, 0.0], 1e-12), "{:?}", s.x);
        assert!(close(&s.residuals, &[0.5, -1.0, -0.5], 1e-12));
    }

    #[test]
    fn identity_clips_negatives() {
        let a = vec![
            vec![1.0, 0.0, 0.0],
            vec![0.0, 1.0, 0.0],
            vec![0.0, 0.0, 1.0],
        ];
        let s = nnls(&a, &[3.0, -2.0, 0.5]).unwrap();
        assert!(close(&s.x, &[3.0, 0.0, 0.5], 1e-12), "{:?}", s.x);
    }

    #[test]
    fn recovers_exact_weights_at_calibration_scale() {
        // counts ~1e9, weights ~1e-9 s: t = 2e-9 n1 + 5e-10 n2 + 0 n3
        let a: Vec<Vec<f64>> = (1..=8)
            .map(|i| {
                let i = i as f64;
                vec![1e9 * i, 3e9 * (9.0 - i), 2e8 * (i * i % 5.0 + 1.0)]
            })
            .collect();
        let w = [2e-9, 5e-10, 0.0];
        let b: Vec<f64> = a.iter().map(|r| dot(r, &w)).collect();
        let s = nnls(&a, &b).unwrap();
        for (got, want) in s.x.iter().zip(&w) {
            assert!((got - want).abs() <= 1e-6 * 2e-9, "{:?}", s.x);
        }
    }

    /// Pseudo-random numbers without a dependency (xorshift).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        }
    }

    /// Solves the normal equations of a column subset by Gaussian elimination with pivoting,
    /// a route independent of the QR code above.
    fn normal_equations(a: &[Vec<f64>], b: &[f64], set: &[usize]) -> Option<Vec<f64>> {
        let k = set.len();
        let mut m: Vec<Vec<f64>> = (0..k)
            .map(|p| {
                let mut row: Vec<f64> = (0..k)
                    .map(|q| a.iter().map(|r| r[set[p]] * r[set[q]]).sum())
                    .collect();
                row.push(a.iter().zip(b).map(|(r, bi)| r[set[p]] * bi).sum());
                row
            })
            .collect();
        for c in 0..k {
            let piv = (c..k).max_by(|&i, &j| m[i][c].abs().total_cmp(&m[j][c].abs()))?;
            if m[piv][c].abs() < 1e-12 {
                return None;
            }
            m.swap(c, piv);
            let pivot_row = m[c].clone();
            for (r, row) in m.iter_mut().enumerate() {
                if r != c {
                    let f = row[c] / pivot_row[c];
                    for (x, p) in row.iter_mut().zip(&pivot_row).skip(c) {
                        *x -= f * p;
                    }
                }
            }
        }
        Some((0..k).map(|i| m[i][k] / m[i][i]).collect())
    }

    #[test]
    fn matches_brute_force_over_active_sets_and_kkt() {
        let mut rng = Rng(0x9e3779b97f4a7c15);
        for case in 0..200 {
            let n = 1 + case % 5;
            let m = n + 1 + case % 7;
            let a: Vec<Vec<f64>> = (0..m)
                .map(|_| (0..n).map(|_| rng.next()).collect())
                .collect();
            let b: Vec<f64> = (0..m).map(|_| rng.next()).collect();
            let s = nnls(&a, &b).unwrap();
            // brute force: best feasible unconstrained solution over all supports
            let mut best = dot(&b, &b); // x = 0
            for mask in 1u32..(1 << n) {
                let set: Vec<usize> = (0..n).filter(|j| mask & (1 << j) != 0).collect();
                if let Some(xs) = normal_equations(&a, &b, &set) {
                    if xs.iter().all(|&v| v >= 0.0) {
                        let mut x = vec![0.0; n];
                        for (p, &j) in set.iter().enumerate() {
                            x[j] = xs[p];
                        }
                        let r: f64 = a
                            .iter()
                            .zip(&b)
                            .map(|(row, bi)| (bi - dot(row, &x)).powi(2))
                            .sum();
                        best = best.min(r);
                    }
                }
            }
            let got = s.residual_norm.powi(2);
            assert!(
                got <= best + 1e-9,
                "case {case}: nnls {got} > brute force {best}"
            );
            // KKT: x >= 0; gradient w = Aᵀ r is 0 where x > 0 and <= 0 where x = 0
            let w: Vec<f64> = (0..n)
                .map(|j| a.iter().zip(&s.residuals).map(|(row, r)| row[j] * r).sum())
                .collect();
            for (j, (x, wj)) in s.x.iter().zip(&w).enumerate() {
                assert!(*x >= 0.0, "case {case}");
                if *x > 0.0 {
                    assert!(wj.abs() < 1e-9, "case {case}: w[{j}] = {wj}");
                } else {
                    assert!(*wj < 1e-9, "case {case}: w[{j}] = {wj}");
                }
            }
        }
    }

    #[test]
    fn rejects_malformed_systems() {
        assert_eq!(nnls(&[], &[]).unwrap_err(), NnlsError::Empty);
        let err = nnls(&[vec![1.0], vec![1.0, 2.0]], &[1.0, 2.0]).unwrap_err();
        assert_eq!(
            err,
            NnlsError::Ragged {
                row: 1,
                found: 2,
                expected: 1
            }
        );
        assert!(matches!(
            nnls(&[vec![f64::NAN]], &[1.0]),
            Err(NnlsError::NotFinite { row: 0 })
        ));
        assert!(matches!(
            nnls(&[vec![1.0]], &[1.0, 2.0]),
            Err(NnlsError::RhsLength { .. })
        ));
    }

    #[test]
    fn r_squared_hand_values() {
        // mean 2, SS_tot = 2, SS_res = 0.5 -> 0.75
        assert!((r_squared(&[1.0, 2.0, 3.0], &[1.5, 2.0, 2.5]) - 0.75).abs() < 1e-12);
        assert_eq!(r_squared(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]), 1.0);
    }

    #[test]
    fn leave_one_out_on_exact_data_has_zero_error() {
        let a: Vec<Vec<f64>> = (1..=6).map(|i| vec![i as f64, (i * i) as f64]).collect();
        let b: Vec<f64> = a.iter().map(|r| 2.0 * r[0] + 0.5 * r[1]).collect();
        let cv = leave_one_out(&a, &b).unwrap();
        assert_eq!(cv.k, 6);
        assert!(cv.rmse < 1e-9, "{cv:?}");
        assert!(matches!(
            k_fold(&a, &b, 1),
            Err(NnlsError::Folds { k: 1, rows: 6 })
        ));
    }

    #[test]
    fn leave_one_out_hand_computed() {
        // one column of ones: each held-out row is predicted by the mean of the others
        let a = vec![vec![1.0]; 3];
        let b = [1.0, 2.0, 6.0];
        let cv = leave_one_out(&a, &b).unwrap();
        assert!(
            close(&cv.predicted, &[4.0, 3.5, 1.5], 1e-12),
            "{:?}",
            cv.predicted
        );
        assert!(close(&cv.errors, &[-3.0, -1.5, 4.5], 1e-12));
    }
}
