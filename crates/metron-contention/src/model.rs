//! The access-conflict models of 003 §4.2 and their training (§5.2.1).
//!
//! A [`Sample`] is one thread k of one co-running group: its sequential and parallel times,
//! its access count N_k, and (N_i, t_i,seq) of the other threads of the group.

use serde::Serialize;

use crate::ContentionError;

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Sample {
    /// Threads running in parallel (T in 003 Eq. 4.1).
    pub threads: usize,
    pub t_seq: f64,
    pub t_par: f64,
    pub n: f64,
    /// (N_i, t_i,seq) of every other thread of the group.
    pub others: Vec<(f64, f64)>,
    /// Memory banks the data is spread over (model 4); 1 as in the thesis.
    pub banks: f64,
    /// Free text (function name) for reports.
    pub label: String,
}

impl Sample {
    /// 003 Eq. 3.1: Δt_k = t_k,comb − t_k,ind.
    pub fn delta(&self) -> f64 {
        self.t_par - self.t_seq
    }
    pub fn relative_increase(&self) -> f64 {
        self.delta() / self.t_seq
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum ModelKind {
    /// 003 Eq. 4.1: Δt = c1 (T−1) t_seq.
    One,
    /// 003 Eq. 4.2: Δt = c2 (T−1) N_k.
    Two,
    /// 003 Eq. 4.3: Δt = c3 N_k Σ_{i≠k} N_i / t_i,seq.
    Three,
    /// Beyond the thesis: Δt = a · (1/B) Σ_{i≠k} N_k (N_i/t_i) · overlap_ik + b, where
    /// overlap_ik = min(t_i, t_k)/t_k is the share of k's life that i runs alongside.
    Four,
}

impl ModelKind {
    pub fn parse(s: &str) -> Result<ModelKind, ContentionError> {
        match s {
            "1" => Ok(ModelKind::One),
            "2" => Ok(ModelKind::Two),
            "3" => Ok(ModelKind::Three),
            "4" => Ok(ModelKind::Four),
            _ => Err(ContentionError::Invalid(format!(
                "expected model 1, 2, 3 or 4, found `{s}`"
            ))),
        }
    }
    pub fn all() -> [ModelKind; 4] {
        [
            ModelKind::One,
            ModelKind::Two,
            ModelKind::Three,
            ModelKind::Four,
        ]
    }
    pub fn number(self) -> u8 {
        match self {
            ModelKind::One => 1,
            ModelKind::Two => 2,
            ModelKind::Three => 3,
            ModelKind::Four => 4,
        }
    }
}

/// The model's regressor: Δt = c · feature (models 1-3) or a · feature + b (model 4).
pub fn feature(kind: ModelKind, s: &Sample) -> f64 {
    let others = (s.threads.saturating_sub(1)) as f64;
    match kind {
        ModelKind::One => others * s.t_seq,
        ModelKind::Two => others * s.n,
        ModelKind::Three => s.n * s.others.iter().map(|(n, t)| n / t).sum::<f64>(),
        ModelKind::Four => {
            s.others
                .iter()
                .map(|(n, t)| s.n * (n / t) * (t.min(s.t_seq) / s.t_seq))
                .sum::<f64>()
                / s.banks.max(1.0)
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Training {
    /// 003 §5.2.1: the median of the per-sample constants c = Δt / feature.
    Median,
    /// Least squares through the origin: c = Σ x Δ / Σ x².
    LeastSquares,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Fitted {
    pub model: u8,
    pub training: Training,
    pub coefficient: f64,
    /// Model 4 only.
    pub intercept: f64,
    pub samples: usize,
}

impl Fitted {
    pub fn predict(&self, kind: ModelKind, s: &Sample) -> f64 {
        self.coefficient * feature(kind, s) + self.intercept
    }
}

pub fn median(values: &mut [f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(|a, b| a.total_cmp(b));
    let m = values.len() / 2;
    Some(if values.len() % 2 == 1 {
        values[m]
    } else {
        (values[m - 1] + values[m]) / 2.0
    })
}

/// Trains a model on `samples` (003 §5.2.1). Model 4 is always an ordinary least-squares
/// line with intercept ("what is missing is a linear coefficient", 003 §5.2.2).
pub fn fit(
    kind: ModelKind,
    training: Training,
    samples: &[Sample],
) -> Result<Fitted, ContentionError> {
    let xs: Vec<(f64, f64)> = samples
        .iter()
        .map(|s| (feature(kind, s), s.delta()))
        .filter(|(x, _)| *x > 0.0 && x.is_finite())
        .collect();
    if xs.is_empty() {
        return Err(ContentionError::Invalid(format!(
            "model {}: no training sample has a positive feature (T > 1 and N > 0 needed)",
            kind.number()
        )));
    }
    let (coefficient, intercept) = if kind == ModelKind::Four {
        let n = xs.len() as f64;
        let mx = xs.iter().map(|p| p.0).sum::<f64>() / n;
        let my = xs.iter().map(|p| p.1).sum::<f64>() / n;
        let sxx: f64 = xs.iter().map(|p| (p.0 - mx).powi(2)).sum();
        let sxy: f64 = xs.iter().map(|p| (p.0 - mx) * (p.1 - my)).sum();
        if sxx == 0.0 {
            (my / mx, 0.0)
        } else {
            let a = sxy / sxx;
            (a, my - a * mx)
        }
    } else {
        match training {
            Training::Median => {
                let mut cs: Vec<f64> = xs.iter().map(|(x, d)| d / x).collect();
                (median(&mut cs).unwrap_or(0.0), 0.0)
            }
            Training::LeastSquares => {
                let sxy: f64 = xs.iter().map(|(x, d)| x * d).sum();
                let sxx: f64 = xs.iter().map(|(x, _)| x * x).sum();
                (sxy / sxx, 0.0)
            }
        }
    };
    Ok(Fitted {
        model: kind.number(),
        training,
        coefficient,
        intercept,
        samples: xs.len(),
    })
}

/// One model on one test set (003 §5.2: the error Δt − Δt^j, the relative increase).
#[derive(Clone, Debug, Serialize)]
pub struct Evaluation {
    pub model: u8,
    pub threads: usize,
    pub samples: usize,
    pub median_abs_error: f64,
    /// Median of (Δt − Δt^j): positive = the model is optimistic.
    pub median_error: f64,
    pub median_relative_increase: f64,
    /// Median |Δt − Δt^j| / t_seq.
    pub median_abs_error_relative: f64,
    pub errors: Vec<f64>,
}

pub fn evaluate(kind: ModelKind, fitted: &Fitted, test: &[Sample], threads: usize) -> Evaluation {
    let errors: Vec<f64> = test
        .iter()
        .map(|s| s.delta() - fitted.predict(kind, s))
        .collect();
    let mut abs: Vec<f64> = errors.iter().map(|e| e.abs()).collect();
    let mut signed = errors.clone();
    let mut rel: Vec<f64> = test.iter().map(Sample::relative_increase).collect();
    let mut abs_rel: Vec<f64> = errors
        .iter()
        .zip(test)
        .map(|(e, s)| e.abs() / s.t_seq)
        .collect();
    Evaluation {
        model: kind.number(),
        threads,
        samples: test.len(),
        median_abs_error: median(&mut abs).unwrap_or(f64::NAN),
        median_error: median(&mut signed).unwrap_or(f64::NAN),
        median_relative_increase: median(&mut rel).unwrap_or(f64::NAN),
        median_abs_error_relative: median(&mut abs_rel).unwrap_or(f64::NAN),
        errors,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(threads: usize, t_seq: f64, t_par: f64, n: f64, others: Vec<(f64, f64)>) -> Sample {
        Sample {
            threads,
            t_seq,
            t_par,
            n,
            others,
            banks: 1.0,
            label: String::new(),
        }
    }

    /// Hand-computed: k runs 1000 cycles with 100 accesses next to two threads with
    /// (50 accesses, 500 cycles) and (200, 1000): Σ N_i/t_i = 0.1 + 0.2 = 0.3.
    #[test]
    fn features_are_the_equations() {
        let x = s(
            3,
            1000.0,
            1060.0,
            100.0,
            vec![(50.0, 500.0), (200.0, 1000.0)],
        );
        assert_eq!(feature(ModelKind::One, &x), 2000.0); // (T-1) t_seq
        assert_eq!(feature(ModelKind::Two, &x), 200.0); // (T-1) N_k
        assert!((feature(ModelKind::Three, &x) - 30.0).abs() < 1e-12); // N_k Σ N_i/t_i
                                                                       // overlap: thread 1 lives 500 of k's 1000 cycles -> 100*0.1*0.5 + 100*0.2*1 = 25
        assert!((feature(ModelKind::Four, &x) - 25.0).abs() < 1e-12);
        // Eq. 4.3 written the long way: c3 t_k p_c with p_c = Σ N_k N_i/(t_k t_i).
        let pc = 100.0 * 50.0 / (1000.0 * 500.0) + 100.0 * 200.0 / (1000.0 * 1000.0);
        assert!((1000.0 * pc - feature(ModelKind::Three, &x)).abs() < 1e-9);
    }

    #[test]
    fn median_training_and_least_squares() {
        // Δ = 60, 10, 300 over features 2000, 1000, 3000 -> constants .03, .01, .1: median .03
        let data = vec![
            s(3, 1000.0, 1060.0, 1.0, vec![]),
            s(3, 500.0, 510.0, 1.0, vec![]),
            s(3, 1500.0, 1800.0, 1.0, vec![]),
        ];
        let m = fit(ModelKind::One, Training::Median, &data).unwrap();
        assert!((m.coefficient - 0.03).abs() < 1e-12);
        let l = fit(ModelKind::One, Training::LeastSquares, &data).unwrap();
        let expect = (2000.0 * 60.0 + 1000.0 * 10.0 + 3000.0 * 300.0)
            / (2000.0f64.powi(2) + 1000.0f64.powi(2) + 3000.0f64.powi(2));
        assert!((l.coefficient - expect).abs() < 1e-12);
        let e = evaluate(ModelKind::One, &m, &data, 3);
        assert_eq!(e.errors, vec![0.0, 10.0 - 30.0, 300.0 - 90.0]);
        assert_eq!(e.median_abs_error, 20.0);
    }

    #[test]
    fn model_four_recovers_a_line_with_intercept() {
        let data: Vec<Sample> = (1..20)
            .map(|i| {
                let n = 10.0 * i as f64;
                let x = n * (100.0 / 1000.0); // one other thread, same length
                s(2, 1000.0, 1000.0 + 0.7 * x + 5.0, n, vec![(100.0, 1000.0)])
            })
            .collect();
        let f = fit(ModelKind::Four, Training::LeastSquares, &data).unwrap();
        assert!(
            (f.coefficient - 0.7).abs() < 1e-9 && (f.intercept - 5.0).abs() < 1e-9,
            "{f:?}"
        );
    }

    #[test]
    fn no_usable_sample_is_an_error() {
        assert!(fit(
            ModelKind::Two,
            Training::Median,
            &[s(1, 1.0, 1.0, 5.0, vec![])]
        )
        .is_err());
    }
}
