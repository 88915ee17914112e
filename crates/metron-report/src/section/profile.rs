//! Profiles from metron-probe: regions × ranks (002 §2.8's projections of Fig. 2.1), with the
//! across-rank strategies of 002 §3.4 (max and avg) in the hover text, and the call stacks of
//! one rank at a time, children inside their parent's span (002 Fig. 2.6).

use std::path::PathBuf;

use metron_probe::analysis::{call_tree, flat_table, FlatTable, ProfileSet, Strategy, TreeRow};
use serde_json::{json, Value};

use super::{Figure, Section, SectionKind};
use crate::escape;

const NS_PER_MS: f64 = 1e6;
/// Units offered in the call-stack chart's menu; more would make the menu unreadable.
const MAX_STACK_UNITS: usize = 16;

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
        figures.push(call_stacks(
            &name,
            &table,
            &call_tree(&input.set, Strategy::Max),
        ));
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

/// An icicle of the merged call tree per unit (a menu switches between them): each region
/// spans its inclusive time and its callees lie within that span, as in 002 Fig. 2.6.
fn call_stacks(file: &str, t: &FlatTable, rows: &[TreeRow]) -> Figure {
    let units = &t.units[..t.units.len().min(MAX_STACK_UNITS)];
    let ids: Vec<String> = (0..rows.len()).map(|i| i.to_string()).collect();
    let parents: Vec<String> = rows
        .iter()
        .map(|r| r.parent.map_or(String::new(), |p| p.to_string()))
        .collect();
    let labels: Vec<String> = rows.iter().map(|r| escape::plotly(&r.name)).collect();
    let data: Vec<Value> = units
        .iter()
        .enumerate()
        .map(|(u, unit)| {
            let values: Vec<f64> = rows
                .iter()
                .map(|r| r.per_unit_inclusive_ns[u].unwrap_or(0.0) / NS_PER_MS)
                .collect();
            json!({
                "type": "icicle", "name": unit.label, "visible": u == 0,
                "ids": ids, "parents": parents, "labels": labels, "values": values,
                "branchvalues": "total", "tiling": {"orientation": "v"},
                "hovertemplate": "%{label}: %{value:.6g} ms inclusive<br>%{percentParent:.1%} \
                    of its caller<extra>%{fullData.name}</extra>",
            })
        })
        .collect();
    let buttons: Vec<Value> = units
        .iter()
        .enumerate()
        .map(|(u, unit)| {
            let visible: Vec<bool> = (0..units.len()).map(|v| v == u).collect();
            json!({"label": unit.label, "method": "restyle", "args": ["visible", visible]})
        })
        .collect();
    let layout = json!({
        "margin": {"t": 40},
        "updatemenus": [{"buttons": buttons, "x": 0, "y": 1.12, "xanchor": "left"}],
    });
    Figure::new(format!("{file}: call stacks per rank"), data, layout)
}

#[cfg(test)]
mod tests {
    use super::*;
    use metron_probe::analysis::Unit;

    fn row(name: &str, parent: Option<usize>, per_unit: [Option<f64>; 2]) -> TreeRow {
        TreeRow {
            depth: parent.map_or(0, |_| 1),
            name: name.into(),
            parent,
            inclusive_ns: 0.0,
            exclusive_ns: 0.0,
            count: 1,
            per_unit_inclusive_ns: per_unit.to_vec(),
            imbalance: 1.0,
        }
    }

    #[test]
    fn call_stacks_nest_children_under_parents_per_unit() {
        let unit = |r: u32| Unit {
            label: format!("r{r}"),
            rank: Some(r),
            thread: 0,
        };
        let table = FlatTable {
            strategy: "max".into(),
            units: vec![unit(0), unit(1)],
            rows: vec![],
        };
        let rows = [
            row("main", None, [Some(3e6), Some(4e6)]),
            row("std::vector<int>::push_back", Some(0), [Some(1e6), None]),
        ];
        let f = call_stacks("p.json", &table, &rows);
        assert_eq!(f.data.len(), 2);
        assert_eq!(f.data[0]["parents"], json!(["", "0"]));
        assert_eq!(f.data[0]["values"], json!([3.0, 1.0]));
        assert_eq!(f.data[1]["values"], json!([4.0, 0.0]));
        assert_eq!(f.data[0]["labels"][1], "std::vector&lt;int&gt;::push_back");
        assert_eq!(f.data[1]["visible"], false);
    }
}
