//! JIT (001): k(τ) = t/Γ per cost model across the task size τ (001 Figs. 6-12), the
//! calibration's predicted against measured times (001 §4.3), and the costliest fragments of
//! a log with the Python source lines they come from.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::{json, Value};

use super::{table, table_height, Figure, Section, SectionKind};
use crate::data::{CalibrationSet, JitAnalysis, JitFragment, TauExperiment};
use crate::escape;

/// Fragments and source lines drawn per log.
const TOP: usize = 12;

#[derive(Debug, Clone, Default)]
pub struct JitInputs {
    pub analyses: Vec<(PathBuf, JitAnalysis)>,
    pub taus: Vec<(PathBuf, TauExperiment)>,
    pub calibrations: Vec<(PathBuf, CalibrationSet)>,
}

/// `None` when no jit output was given.
pub fn section(inputs: &JitInputs) -> Option<Section> {
    let mut figures = Vec::new();
    figures.extend(inputs.taus.iter().map(|(_, e)| k_of_tau(e)));
    for (p, c) in &inputs.calibrations {
        figures.extend(calibration(&p.display().to_string(), c));
    }
    let mut sources = SourceCache::default();
    for (p, a) in &inputs.analyses {
        let file = p.display().to_string();
        figures.extend(top_fragments(&file, a));
        figures.extend(top_lines(&file, a, &mut sources));
    }
    Some(Section {
        kind: SectionKind::Jit,
        summary: format!(
            "{} JIT log analysis(es), {} k(τ) experiment(s), {} calibration(s)",
            inputs.analyses.len(),
            inputs.taus.len(),
            inputs.calibrations.len()
        ),
        figures,
    })
}

/// Per benchmark, k over τ with one panel per cost model (001 Figs. 6-11): the models' k
/// differ by orders of magnitude (CMW's seconds per second cluster near 1, CM0's and CMC's are
/// seconds per operation), so each gets its own log axis; τ is shared and logarithmic.
fn k_of_tau(e: &TauExperiment) -> Figure {
    let models: std::collections::BTreeSet<&String> =
        e.points.iter().flat_map(|p| p.k.keys()).collect();
    let axis = |j: usize| {
        if j == 0 {
            String::new()
        } else {
            (j + 1).to_string()
        }
    };
    let bench = escape::plotly(&e.benchmark);
    let mut layout = json!({
        "grid": {"rows": models.len().max(1), "columns": 1, "pattern": "coupled"},
        "xaxis": {"title": {"text": "τ"}, "type": "log"},
        "height": 140 + 200 * models.len().min(4), "showlegend": false,
    });
    let mut data = Vec::new();
    for (j, m) in models.iter().enumerate() {
        let pts: Vec<_> = e
            .points
            .iter()
            .filter_map(|p| Some((p.tau, *p.k.get(*m)?, p.time.as_ref().map(|t| t.median))))
            .collect();
        let model = escape::plotly(m);
        data.push(json!({
            "type": "scatter", "mode": "lines+markers", "name": model, "xaxis": "x",
            "yaxis": format!("y{}", axis(j)),
            "x": pts.iter().map(|p| p.0).collect::<Vec<_>>(),
            "y": pts.iter().map(|p| p.1).collect::<Vec<_>>(),
            "customdata": pts.iter().map(|p| p.2).collect::<Vec<_>>(),
            "hovertemplate": format!("{bench}, {model}<br>τ = %{{x}}: k = %{{y:.4g}}<br>median \
                time %{{customdata:.4g}} s<extra></extra>"),
        }));
        layout[format!("yaxis{}", axis(j))] =
            json!({"title": {"text": format!("k ({model})")}, "type": "log"});
    }
    let skeleton = e
        .skeleton
        .as_deref()
        .map_or(String::new(), |s| format!(" ({s})"));
    Figure::new(
        format!("k(τ) = t / Γ of {}{skeleton}, per cost model", e.benchmark),
        data,
        layout,
    )
}

/// Measured against predicted time per program, one colour per model, the diagonal dotted;
/// hover names the program and its leave-one-out prediction.
fn calibration(file: &str, c: &CalibrationSet) -> Option<Figure> {
    let mut max = 0.0f64;
    let mut min = f64::INFINITY;
    let mut data: Vec<Value> = Vec::new();
    for (model, fit) in &c.fits {
        if fit.programs.is_empty() {
            continue;
        }
        for p in &fit.programs {
            max = max.max(p.seconds).max(p.predicted);
            min = min.min(p.seconds).min(p.predicted);
        }
        let r2 = fit
            .r_squared
            .map_or(String::new(), |r| format!(" (R² {r:.3})"));
        data.push(json!({
            "type": "scatter", "mode": "markers", "name": escape::plotly(&format!("{model}{r2}")),
            "x": fit.programs.iter().map(|p| p.seconds).collect::<Vec<_>>(),
            "y": fit.programs.iter().map(|p| p.predicted).collect::<Vec<_>>(),
            "text": fit.programs.iter().map(|p| escape::plotly(&p.program)).collect::<Vec<_>>(),
            "customdata": fit.programs.iter().map(|p| p.loo_predicted).collect::<Vec<_>>(),
            "hovertemplate": "%{text}<br>measured %{x:.4g} s<br>predicted %{y:.4g} s<br>\
                leave-one-out %{customdata:.4g} s<extra>%{fullData.name}</extra>",
        }));
    }
    if data.is_empty() {
        return None;
    }
    let lo = if min.is_finite() && min > 0.0 {
        min
    } else {
        1e-6
    };
    data.push(json!({
        "type": "scatter", "mode": "lines", "name": "predicted = measured",
        "x": [lo, max], "y": [lo, max], "line": {"dash": "dot", "color": "#888"}, "hoverinfo": "skip",
    }));
    let layout = json!({
        "xaxis": {"title": {"text": "measured time (s)"}, "type": "log"},
        "yaxis": {"title": {"text": "predicted time (s)"}, "type": "log"},
    });
    Some(Figure::new(
        format!("{file}: calibration, predicted against measured"),
        data,
        layout,
    ))
}

fn fragment_sources(f: &JitFragment) -> String {
    let lines: Vec<String> = f
        .sources
        .iter()
        .take(4)
        .map(|s| {
            format!(
                "{}:{} {} {}",
                s.file.as_deref().unwrap_or("?"),
                s.line.map_or("?".into(), |l| l.to_string()),
                s.function.as_deref().unwrap_or(""),
                s.opcode.as_deref().unwrap_or("")
            )
        })
        .collect();
    lines.join("\n")
}

/// The costliest fragments (cost = frequency × Γ), their share of the log's Γ, hover with
/// the trace and the source lines; a click shows them in full.
fn top_fragments(file: &str, a: &JitAnalysis) -> Option<Figure> {
    let mut frags: Vec<&JitFragment> = a.fragments.iter().filter(|f| f.cost.is_some()).collect();
    if frags.is_empty() {
        return None;
    }
    frags.sort_by(|x, y| y.cost.unwrap_or(0.0).total_cmp(&x.cost.unwrap_or(0.0)));
    frags.truncate(TOP);
    frags.reverse(); // the costliest on top of a horizontal bar chart
    let total = a
        .gamma
        .filter(|g| *g > 0.0)
        .unwrap_or_else(|| a.fragments.iter().filter_map(|f| f.cost).sum());
    let labels: Vec<String> = frags
        .iter()
        .enumerate()
        .map(|(i, f)| {
            let at = f
                .starts_at
                .as_deref()
                .map_or(String::new(), |s| format!(" ({s})"));
            escape::plotly(&format!("{}. {}{at}", frags.len() - i, f.name))
        })
        .collect();
    let details: Vec<String> = frags
        .iter()
        .map(|f| {
            format!(
                "fragment {}\ntrace {}\nfrequency {}, Γ per pass {}, cost {}\n{}",
                f.name,
                f.trace.as_deref().unwrap_or("?"),
                f.frequency.unwrap_or(0.0),
                f.gamma.unwrap_or(0.0),
                f.cost.unwrap_or(0.0),
                fragment_sources(f)
            )
        })
        .collect();
    let hover: Vec<String> = details
        .iter()
        .map(|d| escape::plotly(d).replace('\n', "<br>"))
        .collect();
    let trace = json!({
        "type": "bar", "orientation": "h", "y": labels,
        "x": frags.iter().map(|f| 100.0 * f.cost.unwrap_or(0.0) / total).collect::<Vec<_>>(),
        "text": hover, "textposition": "none", "customdata": details,
        "hovertemplate": "%{text}<br>%{x:.2f}% of the log's cost<extra></extra>",
    });
    let model = a.model["model"].as_str().unwrap_or("?").to_uppercase();
    let layout = json!({
        "xaxis": {"title": {"text": format!("share of Γ ({model}), %")}},
        "yaxis": {"type": "category", "automargin": true},
        "height": 160 + 26 * frags.len(),
        "margin": {"l": 10},
    });
    Some(
        Figure::new(
            format!("{file}: top fragments by cost"),
            vec![trace],
            layout,
        )
        .with_click_details(),
    )
}

/// The Python source files the lines come from, read once each (a missing file shows `?`).
#[derive(Default)]
struct SourceCache(BTreeMap<String, Option<Vec<String>>>);

impl SourceCache {
    fn line(&mut self, file: &str, line: u64) -> String {
        let lines = self.0.entry(file.to_string()).or_insert_with(|| {
            std::fs::read_to_string(file)
                .ok()
                .map(|t| t.lines().map(str::to_string).collect())
        });
        lines
            .as_ref()
            .and_then(|l| l.get((line as usize).checked_sub(1)?))
            .map_or_else(|| "?".to_string(), |s| s.trim().to_string())
    }
}

/// The costliest source lines with their text (001 attributes each operation to its line).
fn top_lines(file: &str, a: &JitAnalysis, sources: &mut SourceCache) -> Option<Figure> {
    let mut lines: Vec<_> = a.source_lines.iter().collect();
    if lines.is_empty() {
        return None;
    }
    lines.sort_by(|x, y| y.cost.total_cmp(&x.cost));
    lines.truncate(TOP);
    let total: f64 = a
        .gamma
        .filter(|g| *g > 0.0)
        .unwrap_or_else(|| a.source_lines.iter().map(|l| l.cost).sum());
    let cell = |s: String| json!(escape::plotly(&s));
    let columns = vec![
        lines
            .iter()
            .map(|l| cell(format!("{}:{}", l.file, l.line)))
            .collect(),
        lines
            .iter()
            .map(|l| cell(l.function.clone().unwrap_or_default()))
            .collect(),
        lines
            .iter()
            .map(|l| json!(format!("{:.2}", 100.0 * l.cost / total)))
            .collect(),
        lines
            .iter()
            .map(|l| cell(sources.line(&l.file, l.line)))
            .collect(),
    ];
    let trace = table(&["line", "function", "% of Γ", "source"], columns);
    let mut t = trace;
    t["columnwidth"] = json!([3, 1, 1, 5]);
    let layout = json!({"height": table_height(lines.len()), "margin": {"t": 10, "b": 10}});
    Some(Figure::new(
        format!("{file}: top source lines"),
        vec![t],
        layout,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_corpus_calibration_gives_one_colour_per_model_and_the_diagonal() {
        // The shape `metron jit calibrate --corpus --json` writes (CorpusCalibration).
        let c: crate::data::CorpusCalibration = serde_json::from_str(
            r#"{"startup_seconds": 0.01, "programs": [], "fits": [
              {"model": "CMW", "k_folds": 5, "kfold_rmse": 0.1, "fit": {"weights": {"guard": 1e-9},
               "r_squared": 0.97, "loo_rmse": 0.2, "programs": [
                 {"program": "01_int_sum.py", "seconds": 0.5, "predicted": 0.45, "residual": 0.05,
                  "loo_predicted": 0.44, "loo_error": 0.06},
                 {"program": "<script>alert(1)</script>", "seconds": 2.0, "predicted": 2.5,
                  "residual": -0.5, "loo_predicted": 2.6, "loo_error": -0.6}]}},
              {"model": "CM0", "fit": {"r_squared": 0.5, "programs": []}}]}"#,
        )
        .unwrap();
        let set = CalibrationSet {
            fits: c.fits.into_iter().map(|f| (f.model, f.fit)).collect(),
        };
        let f = calibration("c.json", &set).unwrap();
        // CM0 has no programs: CMW's points and the diagonal only.
        assert_eq!(f.data.len(), 2);
        assert_eq!(f.data[0]["name"], "CMW (R² 0.970)");
        assert_eq!(f.data[0]["x"], json!([0.5, 2.0]));
        assert_eq!(f.data[0]["y"], json!([0.45, 2.5]));
        assert_eq!(
            f.data[0]["text"][1],
            "&lt;script&gt;alert(1)&lt;/script&gt;"
        );
        assert_eq!(f.data[1]["x"], json!([0.45, 2.5]));
    }

    #[test]
    fn k_of_tau_has_a_line_per_model_and_the_fragments_their_sources() {
        let tau: TauExperiment = serde_json::from_str(
            r#"{"benchmark": "matmul", "skeleton": "chunked", "derivative": "linear",
                "table5": [], "tolerance": 0.1, "points": [
                {"tau": 1, "time": {"median": 2.0}, "k": {"CM0": 0.5, "CMW": 1.0}},
                {"tau": 4, "time": {"median": 1.0}, "k": {"CM0": 0.25, "CMW": 1.1}}]}"#,
        )
        .unwrap();
        let f = k_of_tau(&tau);
        assert_eq!(f.data.len(), 2);
        assert_eq!(f.data[0]["name"], "CM0");
        assert_eq!(f.data[1]["y"], json!([1.0, 1.1]));
        assert_eq!(f.data[1]["yaxis"], "y2");
        assert_eq!(f.layout["yaxis2"]["title"]["text"], "k (CMW)");
        assert_eq!(f.data[1]["customdata"], json!([2.0, 1.0]));
        assert!(f.title.starts_with("k(τ) = t / Γ of matmul (chunked)"));

        let dir = tempfile::tempdir().unwrap();
        let py = dir.path().join("m.py");
        std::fs::write(&py, "def run():\n    x = x * 2  # <b>\n").unwrap();
        let py = py.display().to_string();
        let a: JitAnalysis = serde_json::from_str(&format!(
            r#"{{"gamma": 100, "model": {{"model": "cmc"}}, "fragments": [
                {{"name": "e1 to l1", "trace": "loop 1", "frequency": 10, "gamma": 3, "cost": 30,
                  "sources": [{{"file": "{py}", "function": "run", "line": 2, "opcode": "BINARY_MULTIPLY"}}]}},
                {{"name": "<script>alert(1)</script>", "frequency": 1, "gamma": 70, "cost": 70, "sources": []}}],
              "source_lines": [{{"file": "{py}", "function": "run", "line": 2, "cost": 30}}]}}"#
        ))
        .unwrap();
        let f = top_fragments("a.json", &a).unwrap();
        let t = &f.data[0];
        assert_eq!(t["x"], json!([30.0, 70.0]));
        assert_eq!(t["y"][1], "1. &lt;script&gt;alert(1)&lt;/script&gt;");
        assert!(t["customdata"][0]
            .as_str()
            .unwrap()
            .contains(":2 run BINARY_MULTIPLY"));
        let lines = top_lines("a.json", &a, &mut SourceCache::default()).unwrap();
        let cells = &lines.data[0]["cells"]["values"];
        assert_eq!(cells[2][0], "30.00");
        assert_eq!(cells[3][0], "x = x * 2  # &lt;b&gt;");
    }
}
