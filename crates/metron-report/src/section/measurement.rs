//! Measurements from the store: per experiment, the distribution of every benchmark's primary
//! metric as a box plot with its runs, beside the median and its bootstrap 95% CI (000 App. A
//! reads its timings as violins; the CI is metron-measure's `stats`); comparisons as ratios;
//! the history of a command measured in several experiments.

use std::collections::BTreeMap;

use metron_measure::report::{BenchmarkReport, Comparison, MetricSummary, Report as Experiment};
use serde_json::{json, Value};

use super::{Figure, Section, SectionKind};
use crate::escape;

/// `None` when the store holds no experiment with a successful run.
pub fn section(experiments: &[Experiment]) -> Option<Section> {
    let mut figures = Vec::new();
    for e in experiments {
        figures.extend(distribution(e));
        if !e.comparisons.is_empty() {
            figures.push(ratios(e));
        }
    }
    figures.extend(history(experiments));
    if figures.is_empty() {
        return None;
    }
    Some(Section {
        kind: SectionKind::Measurements,
        summary: format!("{} experiment(s) from the store", experiments.len()),
        figures,
    })
}

fn heading(e: &Experiment) -> String {
    match &e.experiment {
        Some(i) => format!("experiment {} ({}, {})", i.id, i.kind, i.started_at),
        None => "experiment".to_string(),
    }
}

/// The primary metric of a benchmark: the first in metron's display order.
fn primary(b: &BenchmarkReport) -> Option<&MetricSummary> {
    b.metrics.first()
}

/// A box of the runs per benchmark plus the median with its bootstrap CI as error bars.
fn distribution(e: &Experiment) -> Option<Figure> {
    let measured: Vec<(&BenchmarkReport, &MetricSummary)> = e
        .benchmarks
        .iter()
        .filter_map(|b| primary(b).map(|m| (b, m)))
        .collect();
    let (_, first) = measured.first()?;
    let mut data: Vec<Value> = measured.iter().map(|(b, m)| run_box(b, m)).collect();
    data.push(median_ci(&measured));
    let layout = json!({
        "showlegend": false,
        "xaxis": {"type": "category", "automargin": true},
        "yaxis": {"title": {"text": format!("{} ({})", first.metric, first.unit.as_str())}},
    });
    Some(Figure::new(heading(e), data, layout))
}

fn run_box(b: &BenchmarkReport, m: &MetricSummary) -> Value {
    let y: Vec<f64> = b
        .runs
        .iter()
        .filter(|r| r.ok)
        .filter_map(|r| r.metrics.get(&m.metric).copied())
        .collect();
    json!({
        "type": "box", "name": escape::plotly(b.display_name()), "y": y, "boxpoints": "all",
        "jitter": 0.4, "pointpos": 0, "boxmean": true,
        "hovertemplate": "%{y:.6g}<extra>%{fullData.name}</extra>",
    })
}

fn median_ci(measured: &[(&BenchmarkReport, &MetricSummary)]) -> Value {
    let x: Vec<String> = measured
        .iter()
        .map(|(b, _)| escape::plotly(b.display_name()))
        .collect();
    let s: Vec<_> = measured.iter().map(|(_, m)| &m.summary).collect();
    json!({
        "type": "scatter", "mode": "markers", "name": "median, bootstrap 95% CI",
        "x": x, "y": s.iter().map(|s| s.median).collect::<Vec<_>>(),
        "marker": {"symbol": "diamond", "size": 10, "color": "black"},
        "error_y": {
            "type": "data", "symmetric": false,
            "array": s.iter().map(|s| s.ci_median.hi - s.median).collect::<Vec<_>>(),
            "arrayminus": s.iter().map(|s| s.median - s.ci_median.lo).collect::<Vec<_>>(),
        },
        "customdata": s.iter().map(|s| [s.ci_median.lo, s.ci_median.hi, s.n as f64]).collect::<Vec<_>>(),
        "hovertemplate": "median %{y:.6g}<br>95% CI [%{customdata[0]:.6g}, %{customdata[1]:.6g}]\
            <br>n = %{customdata[2]}<extra></extra>",
    })
}

/// The same command measured in several experiments: its median and CI over time, one line
/// per command (the history `metron history` lists as a table).
fn history(experiments: &[Experiment]) -> Option<Figure> {
    let mut lines: BTreeMap<&str, Vec<(&str, &MetricSummary)>> = BTreeMap::new();
    for e in experiments {
        let Some(info) = &e.experiment else { continue };
        for b in &e.benchmarks {
            if let Some(m) = primary(b) {
                let at = info.started_at.as_str();
                lines.entry(b.display_name()).or_default().push((at, m));
            }
        }
    }
    lines.retain(|_, points| points.len() > 1);
    let first = lines.values().next()?.first()?.1;
    let unit = format!("{} ({})", first.metric, first.unit.as_str());
    let data = lines
        .iter()
        .map(|(name, points)| history_line(name, points))
        .collect();
    let layout = json!({
        "xaxis": {"title": {"text": "experiment start (UTC)"}, "type": "date"},
        "yaxis": {"title": {"text": format!("median {unit}")}},
    });
    Some(Figure::new(
        "history of repeated commands".into(),
        data,
        layout,
    ))
}

fn history_line(name: &str, points: &[(&str, &MetricSummary)]) -> Value {
    let s: Vec<_> = points.iter().map(|(_, m)| &m.summary).collect();
    json!({
        "type": "scatter", "mode": "lines+markers", "name": escape::plotly(name),
        "x": points.iter().map(|(at, _)| at).collect::<Vec<_>>(),
        "y": s.iter().map(|s| s.median).collect::<Vec<_>>(),
        "error_y": {
            "type": "data", "symmetric": false,
            "array": s.iter().map(|s| s.ci_median.hi - s.median).collect::<Vec<_>>(),
            "arrayminus": s.iter().map(|s| s.median - s.ci_median.lo).collect::<Vec<_>>(),
        },
        "hovertemplate": "%{x}: median %{y:.6g}<extra>%{fullData.name}</extra>",
    })
}

/// Ratio of medians A/B with its CI per comparison (1 = equal).
fn ratios(e: &Experiment) -> Figure {
    let label = |c: &Comparison| {
        let params: Vec<String> = c.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        escape::plotly(&format!("{} / {} {}", c.a, c.b, params.join(" ")))
    };
    let c = &e.comparisons;
    let trace = json!({
        "type": "bar", "orientation": "h",
        "y": c.iter().map(label).collect::<Vec<_>>(),
        "x": c.iter().map(|c| c.ratio).collect::<Vec<_>>(),
        "error_x": {
            "type": "data", "symmetric": false,
            "array": c.iter().map(|c| c.ci.hi - c.ratio).collect::<Vec<_>>(),
            "arrayminus": c.iter().map(|c| c.ratio - c.ci.lo).collect::<Vec<_>>(),
        },
        "hovertemplate": "%{y}: ratio %{x:.4g}<extra></extra>",
    });
    let layout = json!({
        "xaxis": {"title": {"text": "ratio of medians (A / B)"}},
        "yaxis": {"type": "category", "automargin": true},
        "shapes": [{"type": "line", "x0": 1, "x1": 1, "yref": "paper", "y0": 0, "y1": 1,
                    "line": {"dash": "dot"}}],
    });
    Figure::new(format!("{}: comparisons", heading(e)), vec![trace], layout)
}
