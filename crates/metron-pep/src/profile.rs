//! Performance profiles P = (T, M) and profile groups G = (T, {M1..Mg}) (000 §3.3), the
//! difference function Δ, and the jitter of the sampling time against Eq. 3.1.

use serde::{Deserialize, Serialize};

use crate::trace::Trace;
use crate::PepError;

/// Δ(X, i) = x_i − x_{i−1}, with Δ(X, 1) = x_1 (000 §3.3).
pub fn delta(x: &[u64]) -> Vec<u64> {
    let mut prev = 0;
    x.iter()
        .map(|&v| {
            let d = v.saturating_sub(prev);
            prev = v;
            d
        })
        .collect()
}

/// One performance profile P = (T, M) with its event domain E(P) = (E(T), E(M)).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profile {
    pub time_event: String,
    pub event: String,
    /// Cumulative sampling times t_i (strictly increasing).
    pub times: Vec<u64>,
    /// Cumulative measurements m_i.
    pub values: Vec<u64>,
}

/// A profile group G = (T, {M1..Mg}): profiles that share their sampling time (000 §3.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProfileGroup {
    pub time_event: String,
    pub times: Vec<u64>,
    pub events: Vec<String>,
    /// `measures[j]` is the cumulative sequence M_{j+1}.
    pub measures: Vec<Vec<u64>>,
}

impl ProfileGroup {
    /// The group of a trace: the first column is T, the other events are M1..Mg.
    pub fn from_trace(t: &Trace) -> ProfileGroup {
        let col = |i: usize| t.rows.iter().map(|r| r[i]).collect::<Vec<u64>>();
        ProfileGroup {
            time_event: t.events[0].clone(),
            times: col(0),
            events: t.events[1..].to_vec(),
            measures: (1..t.events.len()).map(col).collect(),
        }
    }

    /// |G|: the number of samples.
    pub fn len(&self) -> usize {
        self.times.len()
    }

    pub fn is_empty(&self) -> bool {
        self.times.is_empty()
    }

    /// The index of an event: the sampling event is not a member.
    pub fn index(&self, event: &str) -> Result<usize, PepError> {
        self.events
            .iter()
            .position(|e| e == event)
            .ok_or_else(|| PepError::UnknownEvent {
                event: event.to_string(),
                known: self.events.clone(),
            })
    }

    pub fn profile(&self, event: &str) -> Result<Profile, PepError> {
        let j = self.index(event)?;
        Ok(Profile {
            time_event: self.time_event.clone(),
            event: event.to_string(),
            times: self.times.clone(),
            values: self.measures[j].clone(),
        })
    }

    /// Δ(T).
    pub fn dt(&self) -> Vec<u64> {
        delta(&self.times)
    }

    /// Δ(M_j) for every member.
    pub fn deltas(&self) -> Vec<Vec<u64>> {
        self.measures.iter().map(|m| delta(m)).collect()
    }

    /// Δ(M)/Δ(T) per sample for every member: the rates change-point detection works on.
    pub fn rates(&self) -> Vec<Vec<f64>> {
        let dt = self.dt();
        self.deltas()
            .iter()
            .map(|dm| {
                dm.iter()
                    .zip(&dt)
                    .map(|(&m, &t)| if t == 0 { 0.0 } else { m as f64 / t as f64 })
                    .collect()
            })
            .collect()
    }

    /// The sampling time just before sample `i` (0 for the first): a region covering samples
    /// i..=j spans (start_time(i), times[j]].
    pub fn start_time(&self, i: usize) -> u64 {
        if i == 0 {
            0
        } else {
            self.times[i - 1]
        }
    }
}

/// How far the sampling time is from the ideal of Eq. 3.1 (∃ t̂ ∀i: Δ(T, i) = t̂).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Jitter {
    /// t̂: the threshold asked for, or else the median of Δ(T) over the samples after the first.
    pub threshold: f64,
    pub threshold_given: bool,
    /// Δ(T, 1): the first interval, which also holds the start-up before the first overflow.
    pub first: u64,
    /// Over Δ(T, i), i ≥ 2 (the steady intervals).
    pub samples: usize,
    pub mean: f64,
    pub std_dev: f64,
    pub min: u64,
    pub max: u64,
    /// mean |Δ(T, i) − t̂| / t̂.
    pub mean_rel_error: f64,
    pub max_rel_error: f64,
    /// Share of intervals within 1% of t̂.
    pub within_1pct: f64,
}

/// Jitter of Δ(T) against t̂ (000 Eq. 3.1). `None` for a group with fewer than two samples.
pub fn jitter(group: &ProfileGroup, threshold: Option<u64>) -> Option<Jitter> {
    let dt = group.dt();
    if dt.len() < 2 {
        return None;
    }
    let steady = &dt[1..];
    let mut sorted = steady.to_vec();
    sorted.sort_unstable();
    let median = if sorted.len() % 2 == 1 {
        sorted[sorted.len() / 2] as f64
    } else {
        (sorted[sorted.len() / 2 - 1] + sorted[sorted.len() / 2]) as f64 / 2.0
    };
    let t_hat = threshold
        .map_or(median, |t| t as f64)
        .max(f64::MIN_POSITIVE);
    let n = steady.len() as f64;
    let mean = steady.iter().map(|&d| d as f64).sum::<f64>() / n;
    let var = steady
        .iter()
        .map(|&d| (d as f64 - mean).powi(2))
        .sum::<f64>()
        / n;
    let rel: Vec<f64> = steady
        .iter()
        .map(|&d| (d as f64 - t_hat).abs() / t_hat)
        .collect();
    Some(Jitter {
        threshold: t_hat,
        threshold_given: threshold.is_some(),
        first: dt[0],
        samples: steady.len(),
        mean,
        std_dev: var.sqrt(),
        min: sorted[0],
        max: sorted[sorted.len() - 1],
        mean_rel_error: rel.iter().sum::<f64>() / n,
        max_rel_error: rel.iter().cloned().fold(0.0, f64::max),
        within_1pct: rel.iter().filter(|&&r| r <= 0.01).count() as f64 / n,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::parse;

    #[test]
    fn delta_of_listing_3_2_is_the_books() {
        // 000 §3.3.3: Δ(T) = (62593, 99999, 99926, 100075, 100000, ...).
        let t = [62593, 162592, 262518, 362593, 462593];
        assert_eq!(delta(&t), vec![62593, 99999, 99926, 100075, 100000]);
    }

    #[test]
    fn jitter_against_the_given_threshold() {
        let text = "@trace_start:R2018b:1:1:striad:vec_01:1000000:2
@perf_events:INST_RETIRED:ANY_P,MEM_INST_RETIRED:ALL_LOADS
62593,18189
162592,39626
262518,61027
362593,82351
462593,103787
@trace_end
";
        let g = ProfileGroup::from_trace(&parse(text).unwrap()[0]);
        let j = jitter(&g, Some(100_000)).unwrap();
        assert_eq!(j.first, 62593);
        assert_eq!(j.samples, 4);
        assert_eq!(j.min, 99926);
        assert_eq!(j.max, 100075);
        assert!((j.mean - 100000.0).abs() < 1e-9);
        assert!((j.max_rel_error - 0.00075).abs() < 1e-12);
        assert_eq!(j.within_1pct, 1.0);
        let rates = g.rates();
        assert!((rates[0][1] - (39626.0 - 18189.0) / 99999.0).abs() < 1e-12);
    }
}
