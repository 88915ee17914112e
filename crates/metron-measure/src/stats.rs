//! Summary statistics for repeated measurements, shared by every metron crate.
//!
//! Timings are skewed towards their maximum (a disturbance only ever adds time), so confidence
//! intervals come from the bootstrap rather than from a normal approximation (000 App. A.2:
//! "bootstrap method (3000 trials)"). The generator is seeded, so the same sample always gives
//! the same interval.

use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

/// A closed interval `[lo, hi]`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
}

impl Interval {
    pub fn contains(&self, x: f64) -> bool {
        self.lo <= x && x <= self.hi
    }

    pub fn width(&self) -> f64 {
        self.hi - self.lo
    }
}

/// The `p`-quantile of sorted data, interpolating linearly between order statistics
/// (Hyndman & Fan type 7, the default of R and NumPy). `None` for empty data.
pub fn quantile_sorted(sorted: &[f64], p: f64) -> Option<f64> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let h = (n - 1) as f64 * p.clamp(0.0, 1.0);
    let lo = h.floor() as usize;
    let hi = (lo + 1).min(n - 1);
    Some(sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo]))
}

fn sorted_copy(xs: &[f64]) -> Vec<f64> {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    v
}

pub fn median(xs: &[f64]) -> Option<f64> {
    quantile_sorted(&sorted_copy(xs), 0.5)
}

pub fn mean(xs: &[f64]) -> Option<f64> {
    (!xs.is_empty()).then(|| xs.iter().sum::<f64>() / xs.len() as f64)
}

/// Sample standard deviation (divisor n - 1); zero for a single value.
pub fn std_dev(xs: &[f64]) -> Option<f64> {
    let m = mean(xs)?;
    if xs.len() < 2 {
        return Some(0.0);
    }
    let ss: f64 = xs.iter().map(|x| (x - m) * (x - m)).sum();
    Some((ss / (xs.len() - 1) as f64).sqrt())
}

/// Percentile bootstrap (000 App. A.2).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Bootstrap {
    pub resamples: usize,
    pub confidence: f64,
    pub seed: u64,
}

impl Default for Bootstrap {
    fn default() -> Self {
        Bootstrap {
            resamples: 3000,
            confidence: 0.95,
            seed: 0x6d65_7472_6f6e, // "metron"
        }
    }
}

/// Draws an index in `0..n`. Multiply-shift rather than `%` keeps it unbiased to within
/// n / 2^64, and it is written out here so that the resampling never changes with a
/// dependency's version.
pub fn draw_index(rng: &mut ChaCha8Rng, n: usize) -> usize {
    ((u128::from(rng.next_u64()) * n as u128) >> 64) as usize
}

impl Bootstrap {
    pub fn rng(&self) -> ChaCha8Rng {
        ChaCha8Rng::seed_from_u64(self.seed)
    }

    /// Confidence interval of `statistic` over `sample`; `None` for an empty sample.
    pub fn interval(&self, sample: &[f64], statistic: impl Fn(&[f64]) -> f64) -> Option<Interval> {
        if sample.is_empty() {
            return None;
        }
        let mut rng = self.rng();
        let mut buf = vec![0.0; sample.len()];
        let mut stats: Vec<f64> = (0..self.resamples)
            .map(|_| {
                resample(&mut rng, sample, &mut buf);
                statistic(&buf)
            })
            .collect();
        self.percentile_interval(&mut stats)
    }

    /// Interval of `statistic(a) / statistic(b)`, resampling `a` and `b` independently.
    pub fn ratio_interval(
        &self,
        a: &[f64],
        b: &[f64],
        statistic: impl Fn(&[f64]) -> f64,
    ) -> Option<Interval> {
        if a.is_empty() || b.is_empty() {
            return None;
        }
        let mut rng = self.rng();
        let (mut ba, mut bb) = (vec![0.0; a.len()], vec![0.0; b.len()]);
        let mut stats: Vec<f64> = (0..self.resamples)
            .map(|_| {
                resample(&mut rng, a, &mut ba);
                resample(&mut rng, b, &mut bb);
                statistic(&ba) / statistic(&bb)
            })
            .collect();
        self.percentile_interval(&mut stats)
    }

    fn percentile_interval(&self, stats: &mut [f64]) -> Option<Interval> {
        stats.sort_by(f64::total_cmp);
        let tail = (1.0 - self.confidence) / 2.0;
        Some(Interval {
            lo: quantile_sorted(stats, tail)?,
            hi: quantile_sorted(stats, 1.0 - tail)?,
        })
    }
}

fn resample(rng: &mut ChaCha8Rng, from: &[f64], into: &mut [f64]) {
    for slot in into.iter_mut() {
        *slot = from[draw_index(rng, from.len())];
    }
}

/// Which fence an outlier lies beyond (Tukey's IQR rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Beyond 1.5 IQR from the quartiles.
    Mild,
    /// Beyond 3 IQR from the quartiles.
    Severe,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Outlier {
    /// Position in the sample as given (not sorted).
    pub index: usize,
    pub value: f64,
    pub severity: Severity,
    pub high: bool,
}

/// Tukey's fences: values outside [Q1 - 1.5 IQR, Q3 + 1.5 IQR] are mild outliers, outside
/// [Q1 - 3 IQR, Q3 + 3 IQR] severe ones. Quartiles are type-7 quantiles.
pub fn outliers(xs: &[f64]) -> Vec<Outlier> {
    let sorted = sorted_copy(xs);
    let (Some(q1), Some(q3)) = (
        quantile_sorted(&sorted, 0.25),
        quantile_sorted(&sorted, 0.75),
    ) else {
        return Vec::new();
    };
    let iqr = q3 - q1;
    xs.iter()
        .enumerate()
        .filter_map(|(index, &value)| {
            let high = value > q3;
            let distance = if high { value - q3 } else { q1 - value };
            let severity = if distance > 3.0 * iqr {
                Severity::Severe
            } else if distance > 1.5 * iqr {
                Severity::Mild
            } else {
                return None;
            };
            Some(Outlier {
                index,
                value,
                severity,
                high,
            })
        })
        .collect()
}

/// Everything metron reports about one metric of one benchmark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub n: usize,
    pub min: f64,
    pub max: f64,
    pub median: f64,
    pub mean: f64,
    pub std_dev: f64,
    /// Bootstrap CI of the mean.
    pub ci_mean: Interval,
    /// Bootstrap CI of the median.
    pub ci_median: Interval,
    pub outliers: Vec<Outlier>,
}

impl Summary {
    /// `None` for an empty sample.
    pub fn of(xs: &[f64], bootstrap: &Bootstrap) -> Option<Summary> {
        let sorted = sorted_copy(xs);
        Some(Summary {
            n: xs.len(),
            min: *sorted.first()?,
            max: *sorted.last()?,
            median: quantile_sorted(&sorted, 0.5)?,
            mean: mean(xs)?,
            std_dev: std_dev(xs)?,
            ci_mean: bootstrap.interval(xs, |s| mean(s).unwrap_or(f64::NAN))?,
            ci_median: bootstrap.interval(xs, |s| median(s).unwrap_or(f64::NAN))?,
            outliers: outliers(xs),
        })
    }

    /// Width of the median's CI relative to the median, in percent (the `--target-ci` test).
    pub fn median_ci_width_pct(&self) -> f64 {
        if self.median == 0.0 {
            return if self.ci_median.width() == 0.0 {
                0.0
            } else {
                f64::INFINITY
            };
        }
        100.0 * self.ci_median.width() / self.median.abs()
    }
}

#[cfg(test)]
mod tests;
