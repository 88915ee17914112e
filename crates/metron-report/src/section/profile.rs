//! Profiles from metron-probe: 002 §2.8's views. The 3D view of Fig. 2.1 (regions × ranks ×
//! time) and its two projections (Figs. 2.2, 2.3), with the across-rank strategies of 002 §3.4
//! (max and avg) in the hover text; the call stacks of every rank, each level a row and each
//! callee inside its caller's span (Fig. 2.6), and as an icicle per rank.

use std::path::PathBuf;

use metron_probe::analysis::{call_tree, flat_table, FlatTable, ProfileSet, Strategy, TreeRow};
use serde_json::{json, Value};

use super::{Figure, Section, SectionKind};
use crate::data::ChromeTrace;
use crate::escape;

const NS_PER_MS: f64 = 1e6;
/// Units offered in the call-stack chart's menu, or drawn in the 3D view and the per-rank
/// stacks; more would be unreadable.
const MAX_STACK_UNITS: usize = 16;

/// A loaded profile set and the file it came from.
#[derive(Debug, Clone)]
pub struct ProfileInput {
    pub path: PathBuf,
    pub set: ProfileSet,
}

/// `None` when no profile was given.
pub fn section(inputs: &[ProfileInput], timelines: &[(PathBuf, ChromeTrace)]) -> Option<Section> {
    if inputs.is_empty() && timelines.is_empty() {
        return None;
    }
    let mut figures = Vec::new();
    for (path, trace) in timelines {
        figures.extend(timeline(&path.display().to_string(), trace));
    }
    for input in inputs {
        let table = flat_table(&input.set, Strategy::Max);
        if table.rows.is_empty() {
            continue;
        }
        let name = input.path.display().to_string();
        let tree = call_tree(&input.set, Strategy::Max);
        figures.push(view_3d(&name, &table));
        figures.push(heat_map(&name, &table));
        figures.push(per_rank_lines(&name, &table));
        figures.push(bars(&name, &table));
        figures.push(stack_rows(&name, &table, &tree));
        figures.push(call_stacks(&name, &table, &tree));
    }
    Some(Section {
        kind: SectionKind::Profiles,
        summary: format!(
            "{} metron-probe profile file(s), {} timeline(s)",
            inputs.len(),
            timelines.len()
        ),
        figures,
    })
}

fn ms(v: Option<f64>) -> Value {
    v.map_or(Value::Null, |ns| json!(ns / NS_PER_MS))
}

/// 002 Fig. 2.1 without WebGL: each rank's profile over the regions is a filled ridge, the
/// ranks stepped back and up in an oblique projection and drawn back to front, so the front
/// ridges hide the ones behind as a surface would. The y axis reads true for the front rank;
/// hover gives every exact value.
fn view_3d(file: &str, t: &FlatTable) -> Figure {
    let units = &t.units[..t.units.len().min(MAX_STACK_UNITS)];
    let regions: Vec<String> = t.rows.iter().map(|r| escape::plotly(&r.name)).collect();
    let value = |r: usize, u: usize| t.rows[r].per_unit_ns[u].unwrap_or(0.0) / NS_PER_MS;
    let top = (0..t.rows.len())
        .flat_map(|r| (0..units.len()).map(move |u| (r, u)))
        .map(|(r, u)| value(r, u))
        .fold(0.0f64, f64::max)
        .max(f64::MIN_POSITIVE);
    let n = units.len().max(1) as f64;
    let (dx, dy) = (0.5 * t.rows.len().max(2) as f64 / n, 0.6 * top / n);
    let mut data = Vec::new();
    for (u, unit) in units.iter().enumerate().rev() {
        let (ox, oy) = (u as f64 * dx, u as f64 * dy);
        let xs: Vec<f64> = (0..t.rows.len()).map(|r| r as f64 + ox).collect();
        let ys: Vec<f64> = (0..t.rows.len()).map(|r| value(r, u) + oy).collect();
        let shade = 0.35 + 0.65 * (1.0 - u as f64 / n);
        let mut px = xs.clone();
        let mut py = ys.clone();
        px.extend([xs[xs.len() - 1], xs[0]]);
        py.extend([oy, oy]);
        data.push(json!({
            "type": "scatter", "mode": "lines", "x": px, "y": py, "fill": "toself",
            "fillcolor": format!("rgba(31,119,180,{shade:.2})"), "line": {"color": "#444", "width": 1},
            "hoverinfo": "skip", "showlegend": false,
        }));
        let exact: Vec<f64> = (0..t.rows.len()).map(|r| value(r, u)).collect();
        data.push(json!({
            "type": "scatter", "mode": "markers", "name": unit.label, "x": xs, "y": ys,
            "text": regions, "customdata": exact, "marker": {"size": 5, "color": "#222"},
            "showlegend": false,
            "hovertemplate": "%{text} on %{fullData.name}: %{customdata:.6g} ms<extra></extra>",
        }));
    }
    let annotations: Vec<Value> = units
        .iter()
        .enumerate()
        .map(|(u, unit)| {
            json!({"x": (t.rows.len() - 1) as f64 + u as f64 * dx, "y": u as f64 * dy,
                   "text": unit.label, "showarrow": false, "xanchor": "left", "xshift": 6,
                   "font": {"size": 10}})
        })
        .collect();
    let layout = json!({
        "xaxis": {"title": {"text": "region (front rank; the others stepped back)"},
                  "tickvals": (0..t.rows.len()).collect::<Vec<_>>(), "ticktext": regions,
                  "automargin": true, "showgrid": false},
        "yaxis": {"title": {"text": "inclusive time (ms), front rank"}, "rangemode": "tozero"},
        "annotations": annotations, "hovermode": "closest",
        "height": 420 + 8 * units.len(),
    });
    Figure::new(
        format!("{file}: 3D view, regions × ranks × time"),
        data,
        layout,
    )
}

/// The z-y projection of Fig. 2.1 (002 Fig. 2.2): time per rank, one line per region.
fn per_rank_lines(file: &str, t: &FlatTable) -> Figure {
    let x: Vec<&str> = t.units.iter().map(|u| u.label.as_str()).collect();
    let data: Vec<Value> = t
        .rows
        .iter()
        .map(|r| {
            json!({
                "type": "scatter", "mode": "lines+markers", "name": escape::plotly(&r.name), "x": x,
                "y": r.per_unit_ns.iter().map(|v| ms(*v)).collect::<Vec<_>>(),
                "hovertemplate": "%{fullData.name} on %{x}: %{y:.6g} ms<extra></extra>",
            })
        })
        .collect();
    let layout = json!({
        "xaxis": {"title": {"text": "rank / thread"}, "type": "category"},
        "yaxis": {"title": {"text": "inclusive time (ms)"}},
    });
    Figure::new(
        format!("{file}: per-rank projection (time × rank)"),
        data,
        layout,
    )
}

/// One bar of a Fig. 2.6 chart: its row, region, start and length (ms).
struct StackBar<'a> {
    row: String,
    name: &'a str,
    start: f64,
    length: f64,
}

/// Horizontal bars, one trace (colour) per region, rows in the given order top to bottom.
fn stack_figure(title: String, bars: &[StackBar], order: Vec<String>, x_title: &str) -> Figure {
    let mut names: Vec<&str> = bars.iter().map(|b| b.name).collect();
    names.sort_unstable();
    names.dedup();
    let data: Vec<Value> = names
        .iter()
        .map(|name| {
            let mine: Vec<&StackBar> = bars.iter().filter(|b| b.name == *name).collect();
            json!({
                "type": "bar", "orientation": "h", "name": escape::plotly(name),
                "y": mine.iter().map(|b| b.row.as_str()).collect::<Vec<_>>(),
                "x": mine.iter().map(|b| b.length).collect::<Vec<_>>(),
                "base": mine.iter().map(|b| b.start).collect::<Vec<_>>(),
                "hovertemplate": "%{fullData.name} (%{y}): %{x:.6g} ms, from %{base:.6g} ms\
                    <extra></extra>",
            })
        })
        .collect();
    let layout = json!({
        "barmode": "overlay",
        "xaxis": {"title": {"text": x_title}},
        "yaxis": {"type": "category", "categoryorder": "array", "categoryarray": order,
                  "autorange": "reversed", "automargin": true,
                  "title": {"text": "rank · level of inclusion"}},
        "height": 160 + 18 * order.len().min(120),
        "legend": {"font": {"size": 10}},
    });
    Figure::new(title, data, layout)
}

/// 002 Fig. 2.6: per rank, one row per level of inclusion; each region a bar as long as its
/// inclusive time, callees laid one after another from their caller's start (the profile has
/// no timeline, so within a caller they follow the tree's order). One colour per region.
fn stack_rows(file: &str, t: &FlatTable, rows: &[TreeRow]) -> Figure {
    let units = &t.units[..t.units.len().min(MAX_STACK_UNITS)];
    let depth = rows.iter().map(|r| r.depth).max().unwrap_or(0);
    let row_label = |u: usize, d: u32| format!("{} · {d}", units[u].label);
    let mut bars = Vec::new();
    for u in 0..units.len() {
        // Start of every row: after its earlier siblings, inside its parent.
        let mut start = vec![0.0f64; rows.len()];
        let mut next = vec![0.0f64; rows.len() + 1]; // next free offset per parent (+ roots)
        for (i, r) in rows.iter().enumerate() {
            let slot = r.parent.unwrap_or(rows.len());
            let base = r.parent.map_or(0.0, |p| start[p]).max(next[slot]);
            let length = r.per_unit_inclusive_ns[u].unwrap_or(0.0) / NS_PER_MS;
            start[i] = base;
            next[slot] = base + length;
            next[i] = base;
            if r.per_unit_inclusive_ns[u].is_some() {
                bars.push(StackBar {
                    row: row_label(u, r.depth),
                    name: &r.name,
                    start: base,
                    length,
                });
            }
        }
    }
    let order: Vec<String> = (0..units.len())
        .flat_map(|u| (0..=depth).map(move |d| (u, d)))
        .map(|(u, d)| row_label(u, d))
        .collect();
    stack_figure(
        format!("{file}: call stacks of every rank, callees inside their caller's span"),
        &bars,
        order,
        "time (ms)",
    )
}

/// Region instances drawn per timeline; the earliest are kept (the title says so).
const MAX_INTERVALS: usize = 5_000;

/// 002 Fig. 2.6 over real time: per rank and thread, one row per level of inclusion, each
/// region instance a bar from its begin to its end event; callees lie inside their caller.
fn timeline(file: &str, trace: &ChromeTrace) -> Option<Figure> {
    // (rank, thread), depth and bar of every B/E pair, matched per thread's stack.
    type Lane = (u64, u64);
    let label = |lane: Lane, d: u32| format!("r{} t{} · {d}", lane.0, lane.1);
    let mut spans: Vec<(Lane, u32, StackBar)> = Vec::new();
    let mut stacks: std::collections::BTreeMap<Lane, Vec<(&str, f64)>> = Default::default();
    let mut events: Vec<&crate::data::TraceEvent> = trace.trace_events.iter().collect();
    events.sort_by(|a, b| a.ts.total_cmp(&b.ts));
    for e in events {
        let stack = stacks.entry((e.pid, e.tid)).or_default();
        match e.ph.as_str() {
            "B" => stack.push((&e.name, e.ts)),
            "E" => {
                if let Some((name, start)) = stack.pop() {
                    let (lane, depth) = ((e.pid, e.tid), stack.len() as u32);
                    let bar = StackBar {
                        row: label(lane, depth),
                        name,
                        start: start / 1e3,
                        length: (e.ts - start) / 1e3,
                    };
                    spans.push((lane, depth, bar));
                }
            }
            _ => {}
        }
    }
    if spans.is_empty() {
        return None;
    }
    spans.sort_by(|a, b| a.2.start.total_cmp(&b.2.start));
    let cut = spans.len() > MAX_INTERVALS;
    spans.truncate(MAX_INTERVALS);
    let mut rows: Vec<(Lane, u32)> = spans.iter().map(|s| (s.0, s.1)).collect();
    rows.sort_unstable();
    rows.dedup();
    let order: Vec<String> = rows.iter().map(|(l, d)| label(*l, *d)).collect();
    let bars: Vec<StackBar> = spans.into_iter().map(|s| s.2).collect();
    let more = if cut {
        format!(", the first {MAX_INTERVALS} region instances")
    } else {
        String::new()
    };
    Some(stack_figure(
        format!("{file}: timeline, call stacks of every rank{more}"),
        &bars,
        order,
        "time since start (ms)",
    ))
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
    Figure::new(
        format!("{file}: per-region projection (time × region), by rank"),
        data,
        layout,
    )
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

    /// A table of ranks 0 and 1 (the rows come from the call tree in these tests).
    fn two_ranks() -> FlatTable {
        let unit = |r: u32| Unit {
            label: format!("r{r}"),
            rank: Some(r),
            thread: 0,
        };
        FlatTable {
            strategy: "max".into(),
            units: vec![unit(0), unit(1)],
            rows: vec![],
        }
    }

    #[test]
    fn a_timeline_nests_callees_per_thread() {
        let trace: ChromeTrace = serde_json::from_str(
            r#"{"displayTimeUnit": "ns", "traceEvents": [
              {"name": "main", "ph": "B", "ts": 0, "pid": 1, "tid": 7},
              {"name": "solve", "ph": "B", "ts": 1000, "pid": 1, "tid": 7},
              {"name": "solve", "ph": "E", "ts": 3000, "pid": 1, "tid": 7},
              {"name": "main", "ph": "B", "ts": 500, "pid": 0, "tid": 9},
              {"name": "main", "ph": "E", "ts": 4500, "pid": 0, "tid": 9},
              {"name": "main", "ph": "E", "ts": 5000, "pid": 1, "tid": 7}]}"#,
        )
        .unwrap();
        let f = timeline("t.trace.json", &trace).unwrap();
        let main = f.data.iter().find(|t| t["name"] == "main").unwrap();
        assert_eq!(main["y"], json!(["r1 t7 · 0", "r0 t9 · 0"]));
        assert_eq!(main["base"], json!([0.0, 0.5]));
        assert_eq!(main["x"], json!([5.0, 4.0]));
        let solve = f.data.iter().find(|t| t["name"] == "solve").unwrap();
        assert_eq!(solve["y"], json!(["r1 t7 · 1"]));
        assert_eq!(solve["base"], json!([1.0]));
        assert_eq!(
            f.layout["yaxis"]["categoryarray"],
            json!(["r0 t9 · 0", "r1 t7 · 0", "r1 t7 · 1"])
        );
    }

    #[test]
    fn stack_rows_put_callees_inside_their_caller_one_after_another() {
        let table = two_ranks();
        // main(10) { a(3) { c(1) } b(4) }, then init(2) at the root; rank 1 never ran a.
        let mut c = row("c", Some(1), [Some(1e6), None]);
        c.depth = 2;
        let rows = [
            row("main", None, [Some(10e6), Some(8e6)]),
            row("a", Some(0), [Some(3e6), None]),
            c,
            row("b", Some(0), [Some(4e6), Some(5e6)]),
            row("init", None, [Some(2e6), Some(2e6)]),
        ];
        let f = stack_rows("p.json", &table, &rows);
        let by_name = |n: &str| f.data.iter().find(|t| t["name"] == n).unwrap().clone();
        assert_eq!(by_name("main")["base"], json!([0.0, 0.0]));
        assert_eq!(by_name("a")["base"], json!([0.0]));
        assert_eq!(by_name("c")["base"], json!([0.0]));
        assert_eq!(by_name("c")["y"], json!(["r0 · 2"]));
        // b follows a on rank 0 (at 3 ms) and starts at its caller on rank 1.
        assert_eq!(by_name("b")["base"], json!([3.0, 0.0]));
        assert_eq!(by_name("init")["base"], json!([10.0, 8.0]));
        assert_eq!(by_name("init")["y"], json!(["r0 · 0", "r1 · 0"]));
    }

    #[test]
    fn call_stacks_nest_children_under_parents_per_unit() {
        let table = two_ranks();
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
