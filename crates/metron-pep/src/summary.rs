//! What `metron pep show` prints about a trace: its group, the jitter of its sampling time
//! and its PELT segments with the mean rate of every member in each.

use serde::{Deserialize, Serialize};

use crate::changepoint::{segment, PeltConfig, Segmentation};
use crate::execution_region::Region;
use crate::profile::{jitter, Jitter, ProfileGroup};
use crate::trace::{Trace, TraceName};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TraceSummary {
    pub name: TraceName,
    pub sampling_event: String,
    pub events: Vec<String>,
    pub samples: usize,
    /// Σ Δ(M) per member: the profile's total, to set against a counting-mode V.
    pub totals: Vec<u64>,
    pub jitter: Option<Jitter>,
    pub segmentation: Segmentation,
    pub segments: Vec<SegmentRates>,
}

/// One segment and the mean rate ΣΔ(M)/ΣΔ(T) of every member over it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SegmentRates {
    pub region: Region,
    pub rates: Vec<f64>,
}

/// Mean rates of every member over `region`.
pub fn region_rates(g: &ProfileGroup, region: &Region) -> Vec<f64> {
    let len = region.length() as f64;
    g.measures
        .iter()
        .map(|m| {
            let before = if region.first_sample == 0 {
                0
            } else {
                m[region.first_sample - 1]
            };
            let gained = m[region.last_sample] - before;
            if len > 0.0 {
                gained as f64 / len
            } else {
                0.0
            }
        })
        .collect()
}

pub fn summarise(t: &Trace, threshold: Option<u64>, pelt: PeltConfig) -> TraceSummary {
    let g = ProfileGroup::from_trace(t);
    let segmentation = segment(&g, &[], pelt);
    let segments = segmentation
        .segments
        .iter()
        .map(|r| SegmentRates {
            region: r.clone(),
            rates: region_rates(&g, r),
        })
        .collect();
    TraceSummary {
        name: t.name.clone(),
        sampling_event: g.time_event.clone(),
        events: g.events.clone(),
        samples: g.len(),
        totals: g
            .measures
            .iter()
            .map(|m| m.last().copied().unwrap_or(0))
            .collect(),
        jitter: jitter(&g, threshold),
        segmentation,
        segments,
    }
}
