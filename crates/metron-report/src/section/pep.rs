//! PEP traces (000 Ch. 3): per trace, the rate Δ(M)/Δ(T) of every member event over the
//! sampling time, one panel per event of the group, with the PELT segments that `metron pep
//! show` reports shaded as detected regions.

use std::path::PathBuf;

use metron_pep::changepoint::PeltConfig;
use metron_pep::profile::ProfileGroup;
use metron_pep::summary::summarise;
use metron_pep::trace::Trace;
use serde_json::{json, Value};

use super::{Figure, Section, SectionKind};
use crate::escape;

/// Points per panel; longer traces are thinned by a fixed stride (the title says so). At this
/// size SVG traces draw quickly, so the page needs no WebGL (headless browsers, remote desktops).
const MAX_POINTS: usize = 5_000;
/// Traces drawn per file (a file may hold one per thread and repetition).
const MAX_TRACES: usize = 8;

#[derive(Debug, Clone)]
pub struct PepInput {
    pub path: PathBuf,
    pub traces: Vec<Trace>,
}

/// `None` when no trace file was given.
pub fn section(inputs: &[PepInput]) -> Option<Section> {
    let figures: Vec<Figure> = inputs
        .iter()
        .flat_map(|i| {
            let file = i.path.display().to_string();
            i.traces
                .iter()
                .take(MAX_TRACES)
                .filter(|t| t.rows.len() > 1 && t.events.len() > 1)
                .map(move |t| panels(&file, t))
        })
        .collect();
    if figures.is_empty() {
        return None;
    }
    Some(Section {
        kind: SectionKind::Pep,
        summary: format!("{} PEP trace file(s)", inputs.len()),
        figures,
    })
}

fn panels(file: &str, t: &Trace) -> Figure {
    let g = ProfileGroup::from_trace(t);
    let summary = summarise(t, None, PeltConfig::default());
    let stride = g.len().div_ceil(MAX_POINTS).max(1);
    let x: Vec<u64> = g.times.iter().step_by(stride).copied().collect();
    let data: Vec<Value> = g
        .rates()
        .iter()
        .zip(&g.events)
        .enumerate()
        .map(|(j, (rate, event))| {
            let event = escape::plotly(event);
            let time_event = escape::plotly(&g.time_event);
            let axis = if j == 0 {
                "y".to_string()
            } else {
                format!("y{}", j + 1)
            };
            json!({
                "type": "scatter", "mode": "lines", "name": event, "xaxis": "x", "yaxis": axis,
                "x": x, "y": rate.iter().step_by(stride).collect::<Vec<_>>(),
                "hovertemplate": format!("{event} per {time_event}: %{{y:.6g}}<br>at %{{x}}<extra></extra>"),
            })
        })
        .collect();
    let shapes: Vec<Value> = summary
        .segments
        .iter()
        .enumerate()
        .map(|(k, s)| {
            json!({"type": "rect", "xref": "x", "yref": "paper", "layer": "below",
                   "x0": s.region.start_time, "x1": s.region.end_time, "y0": 0, "y1": 1,
                   "line": {"width": 0}, "opacity": 0.12,
                   "fillcolor": if k % 2 == 0 { "#1f77b4" } else { "#ff7f0e" }})
        })
        .collect();
    let n = g.events.len();
    let mut layout = json!({
        "grid": {"rows": n, "columns": 1, "pattern": "coupled", "ygap": 0.35},
        "shapes": shapes, "showlegend": false, "height": 140 + 160 * n.min(8),
        "xaxis": {"title": {"text": escape::plotly(&g.time_event)}},
    });
    // Event names (often 30+ characters) label each panel above it: as y-axis titles they ran
    // into each other along the stacked panels.
    let labels: Vec<Value> = g
        .events
        .iter()
        .enumerate()
        .map(|(j, event)| {
            let axis = if j == 0 {
                "y".to_string()
            } else {
                format!("y{}", j + 1)
            };
            json!({"text": escape::plotly(event), "showarrow": false, "xref": "paper", "x": 0,
                   "xanchor": "left", "yref": format!("{axis} domain"), "y": 1,
                   "yanchor": "bottom"})
        })
        .collect();
    layout["annotations"] = Value::Array(labels);
    let n = &t.name;
    let title = format!(
        "{file}: {} {} (process {}, threads {}, N {}), {} segments{}",
        n.benchmark,
        n.version,
        n.process,
        n.threads,
        n.n,
        summary.segments.len(),
        if stride > 1 {
            format!(", every {stride}th sample drawn")
        } else {
            String::new()
        }
    );
    Figure::new(title, data, layout)
}
