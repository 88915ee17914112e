//! Profiles from metron-probe: regions × ranks (002 §2.8's projections of Fig. 2.1), with the
//! across-rank strategies of 002 §3.4 (max and avg) in the hover text.

use std::path::PathBuf;

use metron_probe::analysis::{flat_table, FlatTable, ProfileSet, Strategy};
use serde_json::{json, Value};

use super::{Figure, Section, SectionKind};
use crate::escape;

const NS_PER_MS: f64 = 1e6;

/// A loaded profile set and the file it came from.
#[derive(Debug, Clone)]
pub struct ProfileInput {
    pub path: PathBuf,
    pub set: ProfileSet,
}

/// `None` when no profile was given.
pub fn section(inputs: &[ProfileInput]) -> Option<Section> {
    if inputs.is_empty() {
        return None;
    }
    let mut figures = Vec::new();
    for input in inputs {
        let table = flat_table(&input.set, Strategy::Max);
        if table.rows.is_empty() {
            continue;
        }
        let name = input.path.display().to_string();
        figures.push(heat_map(&name, &table));
        figures.push(bars(&name, &table));
    }
    Some(Section {
        kind: SectionKind::Profiles,
        summary: format!("{} metron-probe profile file(s)", inputs.len()),
        figures,
    })
}

fn ms(v: Option<f64>) -> Value {
    v.map_or(Value::Null, |ns| json!(ns / NS_PER_MS))
}

/// Regions × units, colour = inclusive time: the time-summed projection of 002 Fig. 2.1.
fn heat_map(file: &str, t: &FlatTable) -> Figure {
    let x: Vec<&str> = t.units.iter().map(|u| u.label.as_str()).collect();
    let y: Vec<String> = t.rows.iter().map(|r| escape::plotly(&r.name)).collect();
    let z: Vec<Vec<Value>> = t
        .rows
        .iter()
        .map(|r| r.per_unit_ns.iter().map(|v| ms(*v)).collect())
        .collect();
    let trace = json!({
        "type": "heatmap", "x": x, "y": y, "z": z, "colorscale": "Viridis",
        "colorbar": {"title": {"text": "ms"}},
        "hovertemplate": "region %{y}<br>%{x}: %{z:.6g} ms<extra></extra>",
    });
    let layout = json!({
        "xaxis": {"title": {"text": "rank / thread"}, "type": "category"},
        "yaxis": {"title": {"text": "region"}, "type": "category", "automargin": true},
        "height": 200 + 24 * t.rows.len().min(40),
    });
    Figure::new(
        format!("{file}: time per region and rank"),
        vec![trace],
        layout,
    )
}

/// One bar per region and unit, grouped by region; hover gives the exact time, the call count,
/// max/avg imbalance (002 §3.4).
fn bars(file: &str, t: &FlatTable) -> Figure {
    let regions: Vec<String> = t.rows.iter().map(|r| escape::plotly(&r.name)).collect();
    let extra: Vec<Value> = t
        .rows
        .iter()
        .map(|r| json!([r.count, r.imbalance]))
        .collect();
    let data = t
        .units
        .iter()
        .enumerate()
        .map(|(u, unit)| {
            let y: Vec<Value> = t.rows.iter().map(|r| ms(r.per_unit_ns[u])).collect();
            json!({
                "type": "bar", "name": unit.label, "x": regions, "y": y, "customdata": extra,
                "hovertemplate": "%{x} on %{fullData.name}: %{y:.6g} ms<br>calls (all ranks) \
                    %{customdata[0]}, imbalance max/avg %{customdata[1]:.3f}<extra></extra>",
            })
        })
        .collect();
    let layout = json!({
        "barmode": "group",
        "xaxis": {"title": {"text": "region"}, "type": "category", "automargin": true},
        "yaxis": {"title": {"text": "inclusive time (ms)"}},
    });
    Figure::new(format!("{file}: regions × ranks"), data, layout)
}
