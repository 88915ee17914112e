//! Change-point segmentation of a profile group without a predicate: PELT, the exact
//! penalised optimal partitioning with pruning of Killick, Fearnhead and Eckley, "Optimal
//! detection of changepoints with a linear computational cost", JASA 107(500), 2012.
//!
//! The signal is the rates Δ(M_j)/Δ(T) of the members, each divided by its standard deviation
//! so that one penalty fits all events. The segment cost is the multivariate L2 (Gaussian mean-change) cost, the same
//! as the `l2` model of the `ruptures` package, so both find the same optimum for the same
//! penalty (docs/pep.md compares them).

use serde::{Deserialize, Serialize};

use crate::execution_region::{region_of, Region};
use crate::profile::ProfileGroup;

/// Settings of the segmentation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PeltConfig {
    /// β per change point; `None`: 3·d·ln(n) on the scaled signal (BIC-like).
    pub penalty: Option<f64>,
    /// Minimum segment length in samples.
    pub min_size: usize,
}

impl Default for PeltConfig {
    fn default() -> Self {
        PeltConfig {
            penalty: None,
            min_size: 3,
        }
    }
}

/// Prefix sums of a multivariate signal, for O(d) segment costs.
struct L2Cost {
    s1: Vec<Vec<f64>>,
    s2: Vec<Vec<f64>>,
}

impl L2Cost {
    fn new(signal: &[Vec<f64>]) -> L2Cost {
        let prefix = |f: fn(f64) -> f64| -> Vec<Vec<f64>> {
            signal
                .iter()
                .map(|x| {
                    let mut acc = vec![0.0; x.len() + 1];
                    for (i, &v) in x.iter().enumerate() {
                        acc[i + 1] = acc[i] + f(v);
                    }
                    acc
                })
                .collect()
        };
        L2Cost {
            s1: prefix(|v| v),
            s2: prefix(|v| v * v),
        }
    }

    /// Σ_d Σ_{a ≤ i < b} (y_{d,i} − mean_d)².
    fn cost(&self, a: usize, b: usize) -> f64 {
        let len = (b - a) as f64;
        self.s1
            .iter()
            .zip(&self.s2)
            .map(|(s1, s2)| {
                let sum = s1[b] - s1[a];
                (s2[b] - s2[a] - sum * sum / len).max(0.0)
            })
            .sum()
    }
}

/// PELT on `signal` (d series of equal length n). Returns the change points: the indices at
/// which a new segment starts, increasing, without 0 and n.
pub fn pelt(signal: &[Vec<f64>], penalty: f64, min_size: usize) -> Vec<usize> {
    partition(signal, penalty, min_size, true)
}

/// The same optimum as [`pelt`] without pruning, O(n²): the reference the tests check
/// pruning against.
pub fn optimal_partitioning(signal: &[Vec<f64>], penalty: f64, min_size: usize) -> Vec<usize> {
    partition(signal, penalty, min_size, false)
}

/// Optimal partitioning, F(t) = min_τ F(τ) + C(τ, t) + β, with or without PELT's pruning.
fn partition(signal: &[Vec<f64>], penalty: f64, min_size: usize, prune: bool) -> Vec<usize> {
    let n = signal.first().map_or(0, Vec::len);
    let m = min_size.max(1);
    if n < 2 * m {
        return Vec::new();
    }
    let cost = L2Cost::new(signal);
    let mut f = vec![f64::INFINITY; n + 1];
    let mut last = vec![0usize; n + 1];
    f[0] = -penalty;
    let mut candidates: Vec<usize> = Vec::new();
    for t in m..=n {
        // Killick et al. (2012) Thm 3.1 with K = 0 for the L2 cost: τ can never again be the
        // last change if F(τ) + C(τ, s) > F(s) for an s at which a segment may start, i.e.
        // s ≤ t − m; with a minimum segment length the test must wait m steps.
        let s = t - m;
        if prune && s >= m {
            candidates.retain(|&c| c >= s || f[c] + cost.cost(c, s) <= f[s]);
        }
        // τ = t − m becomes admissible once F(τ) is defined (τ = 0 or τ ≥ m).
        if s == 0 || s >= m {
            candidates.push(s);
        }
        let (best, arg) = candidates
            .iter()
            .map(|&s| (f[s] + cost.cost(s, t) + penalty, s))
            .fold((f64::INFINITY, 0), |a, b| if b.0 < a.0 { b } else { a });
        f[t] = best;
        last[t] = arg;
    }
    let mut cps = Vec::new();
    let mut t = last[n];
    while t > 0 {
        cps.push(t);
        t = last[t];
    }
    cps.reverse();
    cps
}

/// Each series divided by its standard deviation over the whole run, so that the penalty is
/// in units of each event's total variance: a change point must explain a share of what
/// varies. (An iid-noise scale such as the MAD of first differences over-segments counter
/// rates, which drift and dip periodically within a phase: the page-fault rate of a loop
/// that maps and unmaps memory, say.) A constant series is left as it is.
pub fn standardise(series: &[Vec<f64>]) -> Vec<Vec<f64>> {
    series
        .iter()
        .map(|x| {
            let n = x.len().max(1) as f64;
            let mean = x.iter().sum::<f64>() / n;
            let sd = (x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n).sqrt();
            let scale = if sd > 0.0 { sd } else { 1.0 };
            x.iter().map(|v| v / scale).collect()
        })
        .collect()
}

pub(crate) fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        0.0
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The segmentation of a profile group: its regions, one per segment.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Segmentation {
    pub method: String,
    pub penalty: f64,
    pub min_size: usize,
    /// The events whose rates were segmented.
    pub events: Vec<String>,
    pub change_points: Vec<usize>,
    pub segments: Vec<Region>,
}

/// Segments `g` on the rates of `events` (all members when empty).
pub fn segment(g: &ProfileGroup, events: &[String], config: PeltConfig) -> Segmentation {
    let rates = g.rates();
    let chosen: Vec<usize> = if events.is_empty() {
        (0..g.events.len()).collect()
    } else {
        events
            .iter()
            .filter_map(|e| g.events.iter().position(|x| x == e))
            .collect()
    };
    // The first sample also holds the start-up before the first overflow: keep it out of the
    // signal and in the first segment.
    let signal: Vec<Vec<f64>> = chosen
        .iter()
        .map(|&j| rates[j].iter().skip(1).copied().collect())
        .collect();
    let signal = standardise(&signal);
    let n = signal.first().map_or(0, Vec::len);
    let d = signal.len().max(1) as f64;
    let penalty = config.penalty.unwrap_or(3.0 * d * (n.max(2) as f64).ln());
    let cps: Vec<usize> = pelt(&signal, penalty, config.min_size)
        .into_iter()
        .map(|c| c + 1)
        .collect();
    let mut bounds = vec![0];
    bounds.extend(&cps);
    bounds.push(g.len());
    let segments = if g.is_empty() {
        Vec::new()
    } else {
        bounds
            .windows(2)
            .map(|w| region_of(g, w[0], w[1] - 1))
            .collect()
    };
    Segmentation {
        method: "PELT (Killick et al. 2012), L2 cost on standardised rates".into(),
        penalty,
        min_size: config.min_size,
        events: chosen.iter().map(|&j| g.events[j].clone()).collect(),
        change_points: cps,
        segments,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A small deterministic generator (SplitMix64) so tests need no dependency.
    pub(crate) struct Rng(pub u64);

    impl Rng {
        pub(crate) fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^ (z >> 31)
        }

        pub(crate) fn uniform(&mut self) -> f64 {
            (self.next() >> 11) as f64 / (1u64 << 53) as f64
        }

        /// Standard normal by Box–Muller.
        pub(crate) fn normal(&mut self) -> f64 {
            let u = self.uniform().max(1e-300);
            let v = self.uniform();
            (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
        }
    }

    #[test]
    fn pelt_equals_unpruned_optimal_partitioning() {
        let mut rng = Rng(7);
        for case in 0..60 {
            let n = 20 + (rng.next() % 80) as usize;
            let d = 1 + (rng.next() % 3) as usize;
            let k = (rng.next() % 5) as usize;
            let mut bounds: Vec<usize> = (0..k).map(|_| (rng.next() as usize) % n).collect();
            bounds.sort_unstable();
            let signal: Vec<Vec<f64>> = (0..d)
                .map(|_| {
                    let levels: Vec<f64> = (0..=k).map(|_| rng.normal() * 3.0).collect();
                    (0..n)
                        .map(|i| levels[bounds.iter().filter(|&&b| b <= i).count()] + rng.normal())
                        .collect()
                })
                .collect();
            let pen = 1.0 + rng.uniform() * 10.0;
            let m = 1 + (rng.next() % 4) as usize;
            assert_eq!(
                pelt(&signal, pen, m),
                optimal_partitioning(&signal, pen, m),
                "case {case}: n={n} d={d} pen={pen} m={m}"
            );
        }
    }

    #[test]
    fn planted_change_points_in_noise_are_recovered_exactly() {
        let mut rng = Rng(42);
        for _ in 0..20 {
            let planted = [40usize, 95, 130];
            let levels = [0.0, 6.0, 1.0, 8.0];
            let x: Vec<f64> = (0..200)
                .map(|i| levels[planted.iter().filter(|&&b| b <= i).count()] + rng.normal())
                .collect();
            let s = standardise(&[x]);
            let pen = 3.0 * (200f64).ln();
            assert_eq!(pelt(&s, pen, 3), planted.to_vec());
        }
    }
}
