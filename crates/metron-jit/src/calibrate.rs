//! Calibrating CMW's weights (001 §4.3): the measured time of each program against its executed
//! operations per class, fitted by non-negative least squares without intercept (001 Eq. 6).
//! The weights come out in seconds per operation. Timing is not done here: samples carry times
//! measured by metron-measure in runs without counters (counting instruments the code).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::cost::Weights;
use crate::nnls::{self, CrossValidation, NnlsError};

/// The classes 001 Eq. 3 weights, plus calls and strings, which PyPy programs are full of.
pub const DEFAULT_FEATURES: [&str; 7] = [
    "numeric", "guard", "alloc", "array", "object", "call", "string",
];

/// One program: its mean time and the operations it executed per class (from `Analysis`).
#[derive(Debug, Clone, Serialize)]
pub struct Sample {
    pub program: String,
    pub seconds: f64,
    pub executed_ops: BTreeMap<String, u64>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ProgramFit {
    pub program: String,
    pub seconds: f64,
    pub predicted: f64,
    /// seconds − predicted
    pub residual: f64,
    /// prediction of a fit without this program (leave-one-out)
    pub loo_predicted: f64,
    pub loo_error: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Calibration {
    /// Seconds per operation, per class.
    pub weights: BTreeMap<String, f64>,
    pub r_squared: f64,
    pub programs: Vec<ProgramFit>,
    /// Root mean square of the leave-one-out errors, in seconds.
    pub loo_rmse: f64,
}

impl Calibration {
    pub fn to_weights(&self, origin: &str) -> Weights {
        Weights {
            per_class: self.weights.clone(),
            origin: origin.to_string(),
            unit: "s".to_string(),
        }
    }

    /// A weights file that `Weights::parse` (and `--weights`) reads back.
    pub fn weights_file(&self, header: &str) -> String {
        let mut out = String::new();
        for line in header.lines() {
            out.push_str("# ");
            out.push_str(line);
            out.push('\n');
        }
        out.push_str(&format!(
            "# seconds per operation; R² = {:.4}, leave-one-out RMSE = {:.4e} s\n",
            self.r_squared, self.loo_rmse
        ));
        for (class, w) in &self.weights {
            out.push_str(&format!("{class} {w:e}\n"));
        }
        out
    }
}

/// Fits t(P) = Σ_c w_c · ops_c(P), w ≥ 0 (001 Eq. 6 with k = 1 and γ from Eq. 3).
pub fn calibrate(samples: &[Sample], features: &[&str]) -> Result<Calibration, NnlsError> {
    let a: Vec<Vec<f64>> = samples
        .iter()
        .map(|s| {
            features
                .iter()
                .map(|c| s.executed_ops.get(*c).copied().unwrap_or(0) as f64)
                .collect()
        })
        .collect();
    let b: Vec<f64> = samples.iter().map(|s| s.seconds).collect();
    let fit = nnls::nnls(&a, &b)?;
    let predicted: Vec<f64> = b.iter().zip(&fit.residuals).map(|(t, r)| t - r).collect();
    let CrossValidation {
        predicted: loo,
        errors,
        rmse,
        ..
    } = nnls::leave_one_out(&a, &b)?;
    let programs = samples
        .iter()
        .enumerate()
        .map(|(i, s)| ProgramFit {
            program: s.program.clone(),
            seconds: s.seconds,
            predicted: predicted[i],
            residual: fit.residuals[i],
            loo_predicted: loo[i],
            loo_error: errors[i],
        })
        .collect();
    Ok(Calibration {
        weights: features
            .iter()
            .zip(&fit.x)
            .map(|(c, w)| (c.to_string(), *w))
            .collect(),
        r_squared: nnls::r_squared(&b, &predicted),
        programs,
        loo_rmse: rmse,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn sample(name: &str, ops: &[(&str, u64)], weights: &[(&str, f64)]) -> Sample {
        let executed_ops: BTreeMap<String, u64> =
            ops.iter().map(|(c, n)| (c.to_string(), *n)).collect();
        let seconds = weights
            .iter()
            .map(|(c, w)| w * *executed_ops.get(*c).unwrap_or(&0) as f64)
            .sum();
        Sample {
            program: name.to_string(),
            seconds,
            executed_ops,
        }
    }

    #[test]
    fn recovers_known_weights_and_writes_a_readable_file() {
        // 001 Eq. 7's weights scaled to seconds per op; object weight zero as in the paper
        let w = [
            ("numeric", 4.884e-10),
            ("alloc", 4.797e-9),
            ("guard", 4.623e-10),
        ];
        let samples: Vec<Sample> = (1..=8u64)
            .map(|i| {
                sample(
                    &format!("p{i}"),
                    &[
                        ("numeric", 1_000_000_000 * i),
                        ("alloc", 10_000_000 * (9 - i) * (i % 3 + 1)),
                        ("guard", 700_000_000 * (i * i % 7 + 1)),
                        ("object", 300_000_000 * (i % 4 + 1)),
                    ],
                    &w,
                )
            })
            .collect();
        let cal = calibrate(&samples, &["numeric", "alloc", "guard", "object"]).unwrap();
        for (c, want) in w {
            let got = cal.weights[c];
            assert!((got - want).abs() <= 1e-6 * want, "{c}: {got} vs {want}");
        }
        assert!(cal.weights["object"].abs() < 1e-15);
        assert!((cal.r_squared - 1.0).abs() < 1e-9);
        assert!(cal.loo_rmse < 1e-9);
        let file = cal.weights_file("test machine");
        let back = Weights::parse(&file, Path::new("w.txt")).unwrap();
        for (c, want) in w {
            assert!((back.per_class[c] - want).abs() <= 1e-6 * want);
        }
    }

    #[test]
    fn reports_residuals_per_program() {
        // two programs, one class: w = (1·2 + 2·5)/(1 + 4) = 2.4 by hand
        let samples = vec![
            Sample {
                program: "a".into(),
                seconds: 2.0,
                executed_ops: [("numeric".to_string(), 1)].into(),
            },
            Sample {
                program: "b".into(),
                seconds: 5.0,
                executed_ops: [("numeric".to_string(), 2)].into(),
            },
        ];
        let cal = calibrate(&samples, &["numeric"]).unwrap();
        assert!((cal.weights["numeric"] - 2.4).abs() < 1e-12);
        assert!((cal.programs[0].residual - (2.0 - 2.4)).abs() < 1e-12);
        assert!((cal.programs[1].residual - (5.0 - 4.8)).abs() < 1e-12);
        // leave-one-out: a predicted from b alone (w = 2.5), b from a alone (w = 2)
        assert!((cal.programs[0].loo_predicted - 2.5).abs() < 1e-12);
        assert!((cal.programs[1].loo_predicted - 4.0).abs() < 1e-12);
    }
}
