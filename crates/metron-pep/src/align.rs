//! Alignment λ(G1, G2, ...) of profile groups measured in separate runs (000 §3.4, left open
//! by the thesis). Two documented recipes:
//!
//! - [`Alignment::SharedCount`]: all groups sampled on the same deterministic event (retired
//!   instructions of a deterministic program): the cumulative count *is* the program's
//!   position, so each group's cumulative members are interpolated linearly at the first
//!   group's sampling times. Exact wherever the counts grow linearly between samples.
//! - [`Alignment::Stretch`]: for non-deterministic sampling events (cycles, cpu-clock) whose
//!   runs differ in length: each group's time axis is first scaled so that its run ends where
//!   the first group's does, then interpolated as above.

use serde::{Deserialize, Serialize};

use crate::profile::ProfileGroup;
use crate::PepError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Alignment {
    SharedCount,
    Stretch,
}

/// One group on the first group's sampling times holding every group's members.
pub fn align(groups: &[ProfileGroup], how: Alignment) -> Result<ProfileGroup, PepError> {
    let base = groups
        .first()
        .ok_or_else(|| PepError::Align("no profile group to align".into()))?;
    let mut out = base.clone();
    for g in &groups[1..] {
        if how == Alignment::SharedCount && g.time_event != base.time_event {
            return Err(PepError::Align(format!(
                "groups sampled on {} and {}: alignment on a shared count needs one sampling event",
                base.time_event, g.time_event
            )));
        }
        let (Some(&end0), Some(&end1)) = (base.times.last(), g.times.last()) else {
            return Err(PepError::Align("an empty profile group".into()));
        };
        let scale = match how {
            Alignment::SharedCount => 1.0,
            Alignment::Stretch => end0 as f64 / end1 as f64,
        };
        let xs: Vec<f64> = g.times.iter().map(|&t| t as f64 * scale).collect();
        for (e, m) in g.events.iter().zip(&g.measures) {
            if out.events.contains(e) {
                continue;
            }
            let ys: Vec<f64> = m.iter().map(|&v| v as f64).collect();
            out.events.push(e.clone());
            out.measures.push(
                base.times
                    .iter()
                    .map(|&t| interpolate(&xs, &ys, t as f64).round() as u64)
                    .collect(),
            );
        }
    }
    Ok(out)
}

/// Linear interpolation of a cumulative curve through (0, 0) and (xs, ys); beyond the last
/// sample it stays at the last value (the counter stopped with the program).
fn interpolate(xs: &[f64], ys: &[f64], x: f64) -> f64 {
    let i = xs.partition_point(|&v| v < x);
    if i >= xs.len() {
        return *ys.last().unwrap_or(&0.0);
    }
    let (x0, y0) = if i == 0 {
        (0.0, 0.0)
    } else {
        (xs[i - 1], ys[i - 1])
    };
    let (x1, y1) = (xs[i], ys[i]);
    if x1 <= x0 {
        return y1;
    }
    y0 + (y1 - y0) * (x - x0) / (x1 - x0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::changepoint::tests::Rng;

    /// A deterministic program: loads grow 3 per instruction until 50 000, then 1 per
    /// instruction; stores 1 per instruction until 50 000, then 0.
    fn loads(i: u64) -> u64 {
        if i <= 50_000 {
            3 * i
        } else {
            150_000 + (i - 50_000)
        }
    }

    fn stores(i: u64) -> u64 {
        i.min(50_000)
    }

    fn run(rng: &mut Rng, event: &str, f: fn(u64) -> u64) -> ProfileGroup {
        let mut t = 0;
        let mut times = Vec::new();
        while t < 100_000 {
            t = (t + 9_000 + rng.next() % 2_000).min(100_000);
            times.push(t);
        }
        // The kink at 50 000 is sampled in both runs, as the threshold crossings are.
        if !times.contains(&50_000) {
            times.push(50_000);
            times.sort_unstable();
        }
        ProfileGroup {
            time_event: "instructions".into(),
            measures: vec![times.iter().map(|&t| f(t)).collect()],
            times,
            events: vec![event.into()],
        }
    }

    #[test]
    fn separately_measured_groups_align_on_the_shared_count() {
        let mut rng = Rng(11);
        let a = run(&mut rng, "loads", loads);
        let b = run(&mut rng, "stores", stores);
        let g = align(&[a.clone(), b], Alignment::SharedCount).unwrap();
        assert_eq!(g.events, vec!["loads", "stores"]);
        let want: Vec<u64> = a.times.iter().map(|&t| stores(t)).collect();
        assert_eq!(g.measures[1], want);
    }

    #[test]
    fn stretch_maps_a_longer_run_onto_the_first() {
        let a = ProfileGroup {
            time_event: "cycles".into(),
            times: vec![100, 200, 300, 400],
            events: vec!["x".into()],
            measures: vec![vec![10, 20, 30, 40]],
        };
        // The same program run 2x slower.
        let b = ProfileGroup {
            time_event: "cycles".into(),
            times: vec![200, 400, 600, 800],
            events: vec!["y".into()],
            measures: vec![vec![1, 2, 3, 4]],
        };
        let g = align(&[a.clone(), b.clone()], Alignment::Stretch).unwrap();
        assert_eq!(g.measures[1], vec![1, 2, 3, 4]);
        let g = align(&[a, b], Alignment::SharedCount).unwrap();
        assert_eq!(g.measures[1], vec![1, 1, 2, 2]);
    }
}
