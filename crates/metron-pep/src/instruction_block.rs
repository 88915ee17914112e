//! Instruction-block starts from spikes of a code-fetch-miss event (000 §4.3, Fig. 4.2): each
//! spike of e.g. `L2_RQSTS:CODE_RD_MISS` marks code being loaded for a new instruction block.
//!
//! A sample is a spike when its rate Δ(E)/Δ(T) exceeds the median rate by more than `k`
//! robust standard deviations (1.4826·MAD) and by at least `min_excess` of the median; a
//! block starts at the first sample of each run of spikes.

use serde::{Deserialize, Serialize};

use crate::changepoint::median;
use crate::profile::ProfileGroup;
use crate::PepError;

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SpikeConfig {
    pub k: f64,
    /// Relative excess over the median rate a spike needs besides the k·σ test, so that a
    /// noiseless background does not turn every wobble into a spike.
    pub min_excess: f64,
}

impl Default for SpikeConfig {
    fn default() -> Self {
        SpikeConfig {
            k: 5.0,
            min_excess: 1.0,
        }
    }
}

/// Where an instruction block starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BlockStart {
    pub sample: usize,
    /// The sampling time at which the spike's interval began.
    pub time: u64,
    /// The spike's rate over the median rate.
    pub height: f64,
}

/// Block starts from spikes of `event` in `g`.
pub fn block_starts(
    g: &ProfileGroup,
    event: &str,
    config: SpikeConfig,
) -> Result<Vec<BlockStart>, PepError> {
    let j = g.index(event)?;
    let rate = &g.rates()[j];
    let med = median(rate.clone());
    let mad = median(rate.iter().map(|r| (r - med).abs()).collect());
    let sigma = 1.4826 * mad;
    let floor = if med > 0.0 {
        med * (1.0 + config.min_excess)
    } else {
        // An event silent most of the time: any activity is above the background.
        rate.iter().cloned().fold(0.0, f64::max) * 0.1
    };
    let is_spike = |r: f64| r > med + config.k * sigma && r > floor && r > 0.0;
    let mut out = Vec::new();
    let mut previous = false;
    for (i, &r) in rate.iter().enumerate() {
        let spike = is_spike(r);
        if spike && !previous {
            out.push(BlockStart {
                sample: i,
                time: g.start_time(i),
                height: if med > 0.0 { r / med } else { f64::INFINITY },
            });
        }
        previous = spike;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::changepoint::tests::Rng;

    #[test]
    fn planted_code_fetch_spikes_are_the_block_starts() {
        let mut rng = Rng(3);
        for _ in 0..20 {
            let planted = [0usize, 17, 18, 55, 90];
            let mut cum = 0u64;
            let mut t = 0u64;
            let (mut times, mut misses) = (Vec::new(), Vec::new());
            for i in 0..120 {
                t += 100_000 + rng.next() % 200;
                // background: a few misses per interval; spike: hundreds.
                cum += rng.next() % 20
                    + if planted.contains(&i) {
                        800 + rng.next() % 400
                    } else {
                        0
                    };
                times.push(t);
                misses.push(cum);
            }
            let g = ProfileGroup {
                time_event: "INST_RETIRED:ANY_P".into(),
                times,
                events: vec!["L2_RQSTS:CODE_RD_MISS".into()],
                measures: vec![misses],
            };
            let starts: Vec<usize> =
                block_starts(&g, "L2_RQSTS:CODE_RD_MISS", SpikeConfig::default())
                    .unwrap()
                    .iter()
                    .map(|b| b.sample)
                    .collect();
            // 17 and 18 are one spike: one block.
            assert_eq!(starts, vec![0, 17, 55, 90]);
        }
    }
}
