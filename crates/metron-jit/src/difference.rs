//! Two-run differencing (001 §5.2.2): the cost of a task is the cost of a run with warm-up and
//! task minus the cost of a run with the warm-up alone. Trace ids (loop numbers, target tokens,
//! guard addresses) change between runs, so fragments are matched by their shape: a hash of
//! their operation names and source positions.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::cost::Analysis;

#[derive(Debug, Clone, Serialize)]
pub struct ShapeDelta {
    pub shape: String,
    /// A name of one fragment of this shape in the full run (`l2 to j1`).
    pub name: String,
    pub gamma: f64,
    pub warm_frequency: u64,
    pub full_frequency: u64,
    pub task_frequency: u64,
}

#[derive(Debug, Clone, Serialize)]
pub struct TaskCost {
    /// Γ of the task alone (001 Eq. 4 over the frequency differences).
    pub gamma: f64,
    pub shapes: Vec<ShapeDelta>,
    pub warnings: Vec<String>,
}

#[derive(Default)]
struct Acc {
    name: String,
    gamma: f64,
    warm: u64,
    full: u64,
}

/// The task's cost from the analyses of the warm-up run and the full run (same cost model).
pub fn task_cost(warm: &Analysis, full: &Analysis) -> TaskCost {
    let mut warnings = Vec::new();
    if warm.model != full.model {
        warnings.push(format!(
            "the two runs were analysed with different models ({} and {})",
            warm.model.name(),
            full.model.name()
        ));
    }
    if !warm.has_counters || !full.has_counters {
        warnings.push("a run has no jit-backend-counts: the task's cost is unknown".to_string());
    }
    let mut by_shape: BTreeMap<&str, Acc> = BTreeMap::new();
    for f in &full.fragments {
        let acc = by_shape.entry(f.shape.as_str()).or_default();
        if acc.name.is_empty() {
            acc.name = f.name.clone();
        }
        acc.gamma = f.gamma;
        acc.full = acc.full.saturating_add(f.frequency.unwrap_or(0));
    }
    for f in &warm.fragments {
        let acc = by_shape.entry(f.shape.as_str()).or_default();
        if acc.name.is_empty() {
            acc.name = f.name.clone();
            acc.gamma = f.gamma;
        }
        acc.warm = acc.warm.saturating_add(f.frequency.unwrap_or(0));
    }
    let mut gamma = 0.0;
    let mut shapes = Vec::new();
    for (shape, acc) in by_shape {
        let task = acc.full.checked_sub(acc.warm).unwrap_or_else(|| {
            warnings.push(format!(
                "fragment {} ran {} times in the warm-up run but only {} in the full run \
                 (the JIT compiled differently); counted as 0",
                acc.name, acc.warm, acc.full
            ));
            0
        });
        gamma += task as f64 * acc.gamma;
        shapes.push(ShapeDelta {
            shape: shape.to_string(),
            name: acc.name,
            gamma: acc.gamma,
            warm_frequency: acc.warm,
            full_frequency: acc.full,
            task_frequency: task,
        });
    }
    shapes.sort_by(|a, b| {
        (b.task_frequency as f64 * b.gamma).total_cmp(&(a.task_frequency as f64 * a.gamma))
    });
    TaskCost {
        gamma,
        shapes,
        warnings,
    }
}
