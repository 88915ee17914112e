//! Memory and contention (003): static access counts per variable, checked against a traced
//! run; the bank simulator's per-core results; and the contention models' error
//! distributions per thread count (trained on one T, tested on the others, 003 §5.2).

use std::path::PathBuf;

use serde_json::{json, Value};

use super::{quartile_boxes, Figure, Section, SectionKind};
use crate::data::{
    ContentionExperiment, ContentionFit, Evaluation, Fitted, MemoryAnalysis, MemoryValidation,
    Simulation,
};
use crate::escape;

#[derive(Debug, Clone, Default)]
pub struct MemoryInputs {
    pub analyses: Vec<(PathBuf, MemoryAnalysis)>,
    pub validations: Vec<(PathBuf, MemoryValidation)>,
    pub simulations: Vec<(PathBuf, Simulation)>,
    pub fits: Vec<(PathBuf, Vec<ContentionFit>)>,
    pub experiments: Vec<(PathBuf, ContentionExperiment)>,
}

impl MemoryInputs {
    fn len(&self) -> usize {
        self.analyses.len()
            + self.validations.len()
            + self.simulations.len()
            + self.fits.len()
            + self.experiments.len()
    }
}

/// `None` when none of these outputs was given.
pub fn section(inputs: &MemoryInputs) -> Option<Section> {
    let mut figures = Vec::new();
    let name = |p: &PathBuf| p.display().to_string();
    for (p, a) in &inputs.analyses {
        figures.extend(analysis(&name(p), a));
    }
    for (p, v) in &inputs.validations {
        figures.push(validation(&name(p), v));
    }
    for (p, s) in &inputs.simulations {
        figures.push(simulation(&name(p), s));
    }
    for (p, fits) in &inputs.fits {
        let models: Vec<ModelErrors> = fits
            .iter()
            .map(|f| (&f.fit, f.train.as_ref(), f.tests.as_slice()))
            .collect();
        figures.extend(errors(&name(p), &models));
    }
    for (p, e) in &inputs.experiments {
        for r in &e.results {
            let models: Vec<ModelErrors> = r
                .models
                .iter()
                .map(|m| (&m.fitted, m.train.as_ref(), m.tests.as_slice()))
                .collect();
            let title = format!("{}: {}, {}", name(p), r.setup, r.function);
            figures.extend(errors(&title, &models));
        }
        figures.extend(relative_increase(&name(p), e));
    }
    Some(Section {
        kind: SectionKind::Memory,
        summary: format!(
            "{} output(s) of metron memory and metron contention",
            inputs.len()
        ),
        figures,
    })
}

/// A count as a number: JSON numbers, or the text of one (symbolic counts stay `None`).
fn number(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn params_text(params: &std::collections::BTreeMap<String, Value>) -> String {
    let p: Vec<String> = params.iter().map(|(k, v)| format!("{k}={v}")).collect();
    p.join(", ")
}

/// Static reads and writes per variable of every analysed function, at the bound parameters;
/// hover shows the formulas.
fn analysis(file: &str, a: &MemoryAnalysis) -> Option<Figure> {
    let mut x = Vec::new();
    let (mut reads, mut writes, mut text) = (Vec::new(), Vec::new(), Vec::new());
    for f in &a.functions {
        for v in &f.counts.variables {
            x.push(escape::plotly(&format!(
                "{}: {}",
                f.counts.function, v.variable.name
            )));
            let value =
                |s: &Option<String>| s.as_deref().and_then(|s| s.trim().parse::<f64>().ok());
            reads.push(value(&v.reads_value));
            writes.push(value(&v.writes_value));
            let formula = |f: &Option<crate::data::Formula>| {
                f.as_ref().map_or("?".to_string(), |f| f.text.clone())
            };
            text.push(escape::plotly(&format!(
                "reads {}<br>writes {}",
                formula(&v.reads),
                formula(&v.writes)
            )));
        }
    }
    if x.is_empty() {
        return None;
    }
    let bar = |name: &str, y: &[Option<f64>]| {
        json!({
            "type": "bar", "name": name, "x": x, "y": y, "text": text, "textposition": "none",
            "hovertemplate": "%{x}: %{y:,.0f} %{fullData.name}<br>%{text}<extra></extra>",
        })
    };
    let layout = json!({
        "barmode": "group",
        "xaxis": {"title": {"text": "function: variable"}, "type": "category", "automargin": true},
        "yaxis": {"title": {"text": "accesses"}},
    });
    Some(Figure::new(
        format!(
            "{file}: static accesses per variable ({})",
            params_text(&a.params)
        ),
        vec![bar("reads", &reads), bar("writes", &writes)],
        layout,
    ))
}

/// Static against traced counts per variable and kind; equal counts lie on top of each other.
fn validation(file: &str, v: &MemoryValidation) -> Figure {
    let x: Vec<String> = v
        .rows
        .iter()
        .map(|r| escape::plotly(&format!("{}: {} {}", r.function, r.variable, r.kind)))
        .collect();
    let equal: Vec<&str> = v
        .rows
        .iter()
        .map(|r| match r.equal {
            Some(true) => "equal",
            Some(false) => "DIFFERENT",
            None => "",
        })
        .collect();
    let data = vec![
        json!({
            "type": "bar", "name": "static", "x": x, "customdata": equal,
            "y": v.rows.iter().map(|r| number(&r.static_count)).collect::<Vec<_>>(),
            "hovertemplate": "%{x}: static %{y:,.0f} (%{customdata})<extra></extra>",
        }),
        json!({
            "type": "bar", "name": "traced", "x": x, "customdata": equal,
            "y": v.rows.iter().map(|r| r.dynamic_count).collect::<Vec<_>>(),
            "hovertemplate": "%{x}: traced %{y:,.0f} (%{customdata})<extra></extra>",
        }),
    ];
    let verdict = match v.equal {
        Some(true) => ", all equal",
        Some(false) => ", some differ",
        None => "",
    };
    let layout = json!({
        "barmode": "group",
        "xaxis": {"type": "category", "automargin": true},
        "yaxis": {"title": {"text": "accesses"}},
    });
    Figure::new(
        format!(
            "{file}: {} static against traced ({}){verdict}",
            v.function,
            params_text(&v.params)
        ),
        data,
        layout,
    )
}

/// Per core: time alone and together, the difference, conflicts and stalls (003 Ch. 4).
fn simulation(file: &str, s: &Simulation) -> Figure {
    let x: Vec<String> = (0..s.cores.len()).map(|c| format!("core {c}")).collect();
    let col = |f: fn(&crate::data::SimulatedCore) -> f64| s.cores.iter().map(f).collect::<Vec<_>>();
    let custom: Vec<Value> = s
        .cores
        .iter()
        .map(|c| json!([c.accesses, c.conflicts, c.stall_cycles, c.t_par - c.t_seq]))
        .collect();
    let hover = "%{x}: %{fullData.name} %{y:,.0f} cycles<br>accesses %{customdata[0]:,}, \
        conflicts %{customdata[1]:,}, stalls %{customdata[2]:,}<br>t_par − t_seq \
        %{customdata[3]:,}<extra></extra>";
    let data = vec![
        json!({"type": "bar", "name": "t_seq", "x": x, "y": col(|c| c.t_seq), "customdata": custom, "hovertemplate": hover}),
        json!({"type": "bar", "name": "t_par", "x": x, "y": col(|c| c.t_par), "customdata": custom, "hovertemplate": hover}),
        json!({"type": "bar", "name": "conflicts", "x": x, "y": col(|c| c.conflicts), "yaxis": "y2",
               "customdata": custom, "hovertemplate": "%{x}: %{y:,} conflicts<extra></extra>"}),
        json!({"type": "bar", "name": "stall cycles", "x": x, "y": col(|c| c.stall_cycles), "yaxis": "y2",
               "customdata": custom, "hovertemplate": "%{x}: %{y:,} stall cycles<extra></extra>"}),
    ];
    let banks = s.config["banks"]
        .as_u64()
        .map_or(String::new(), |b| format!(", {b} bank(s)"));
    let layout = json!({
        "barmode": "group",
        "xaxis": {"domain": [0.0, 0.45]}, "xaxis2": {"domain": [0.55, 1.0], "anchor": "y2"},
        "yaxis": {"title": {"text": "cycles"}},
        "yaxis2": {"title": {"text": "count"}, "anchor": "x2"},
    });
    let mut data = data;
    for t in data.iter_mut().skip(2) {
        t["xaxis"] = json!("x2");
    }
    Figure::new(
        format!(
            "{file}: simulated contention, {} cores{banks}",
            s.cores.len()
        ),
        data,
        layout,
    )
}

/// A fitted model, its errors on the training thread count (when the output has them) and on
/// each test thread count.
type ModelErrors<'a> = (&'a Fitted, Option<&'a Evaluation>, &'a [Evaluation]);

/// The distribution of Δt − Δt^j per model (one colour each) and thread count (x): 003
/// Figs. 5.3-5.6, for the training thread count and the test thread counts.
fn errors(title: &str, models: &[ModelErrors]) -> Option<Figure> {
    let mut data = Vec::new();
    for (fit, train, tests) in models {
        let name = match &fit.training {
            Some(t) => format!("model {} ({t})", fit.model),
            None => format!("model {}", fit.model),
        };
        let trained = train.map(|e| (format!("T = {} (train)", e.threads), e.errors.as_slice()));
        let groups: Vec<(String, &[f64])> = trained
            .into_iter()
            .chain(
                tests
                    .iter()
                    .map(|e| (format!("T = {} (test)", e.threads), e.errors.as_slice())),
            )
            .collect();
        data.extend(quartile_boxes(&escape::plotly(&name), &groups));
    }
    if data.is_empty() {
        return None;
    }
    let trained = models
        .iter()
        .filter_map(|(f, _, _)| f.samples)
        .max()
        .map_or(String::new(), |n| format!(", trained on {n} samples"));
    let layout = json!({
        "boxmode": "group",
        "xaxis": {"title": {"text": "thread count"}, "type": "category"},
        "yaxis": {"title": {"text": "error Δt − Δt^j (cycles)"}, "zeroline": true},
        "legend": {"font": {"size": 10}},
    });
    Some(Figure::new(
        format!("{title}: model errors per thread count{trained}"),
        data,
        layout,
    ))
}

/// Median Δt / t_seq per thread count, one line per setup and function (003 Fig. 5.2).
fn relative_increase(file: &str, e: &ContentionExperiment) -> Option<Figure> {
    let data: Vec<Value> = e
        .results
        .iter()
        .filter(|r| !r.relative_increase.is_empty())
        .map(|r| {
            json!({
                "type": "scatter", "mode": "lines+markers",
                "name": escape::plotly(&format!("{}, {}", r.setup, r.function)),
                "x": r.relative_increase.iter().map(|p| p.0).collect::<Vec<_>>(),
                "y": r.relative_increase.iter().map(|p| 100.0 * p.1).collect::<Vec<_>>(),
                "hovertemplate": "T = %{x}: median Δt/t_seq %{y:.3f}%<extra>%{fullData.name}</extra>",
            })
        })
        .collect();
    if data.is_empty() {
        return None;
    }
    let layout = json!({
        "xaxis": {"title": {"text": "threads T"}, "dtick": 1},
        "yaxis": {"title": {"text": "median Δt / t_seq (%)"}},
    });
    Some(Figure::new(
        format!("{file}: slowdown from contention"),
        data,
        layout,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simulator_cores_and_fit_errors_are_drawn() {
        let sim: Simulation = serde_json::from_str(
            r#"{"config": {"banks": 1}, "cores": [
                {"accesses": 10, "conflicts": 2, "stall_cycles": 3, "t_par": 25, "t_seq": 20},
                {"accesses": 10, "conflicts": 1, "stall_cycles": 1, "t_par": 22, "t_seq": 20}]}"#,
        )
        .unwrap();
        let fits: Vec<ContentionFit> = serde_json::from_str(
            r#"[{"fit": {"model": 1, "training": "median", "coefficient": 0.1, "intercept": 0, "samples": 4},
                 "tests": [{"threads": 2, "samples": 3, "errors": [1.0, 2.0, 3.0]},
                           {"threads": 4, "samples": 0, "errors": []}]}]"#,
        )
        .unwrap();
        let s = section(&MemoryInputs {
            simulations: vec![("s.json".into(), sim)],
            fits: vec![("f.json".into(), fits)],
            ..Default::default()
        })
        .unwrap();
        assert_eq!(s.figures.len(), 2);
        let sim = &s.figures[0];
        assert_eq!(sim.data[1]["y"], json!([25.0, 22.0]));
        assert_eq!(sim.data[0]["customdata"][0][3], 5.0);
        assert!(sim.title.ends_with("2 cores, 1 bank(s)"), "{}", sim.title);
        // The empty test set draws no box.
        let boxes = &s.figures[1].data;
        assert_eq!(boxes.len(), 1);
        assert_eq!(boxes[0]["median"], json!([2.0]));
        assert_eq!(boxes[0]["x"], json!(["T = 2 (test)"]));
    }

    #[test]
    fn training_errors_are_drawn_before_the_test_counts() {
        let fits: Vec<ContentionFit> = serde_json::from_str(
            r#"[{"fit": {"model": 2, "training": "median", "samples": 3},
                 "train": {"threads": 3, "samples": 3, "errors": [-1.0, 0.0, 1.0]},
                 "tests": [{"threads": 2, "samples": 3, "errors": [4.0, 5.0, 6.0]}]}]"#,
        )
        .unwrap();
        let s = section(&MemoryInputs {
            fits: vec![("f.json".into(), fits)],
            ..Default::default()
        })
        .unwrap();
        let boxes = &s.figures[0].data;
        assert_eq!(boxes[0]["x"], json!(["T = 3 (train)", "T = 2 (test)"]));
        assert_eq!(boxes[0]["median"], json!([0.0, 5.0]));
    }

    #[test]
    fn validation_keeps_symbolic_counts_as_gaps() {
        let v: MemoryValidation = serde_json::from_str(
            r#"{"function": "f", "params": {"n": 4}, "equal": false, "rows": [
                {"function": "f", "variable": "<script>alert(1)</script>", "kind": "read",
                 "static_count": "16", "dynamic_count": 16, "equal": true},
                {"function": "f", "variable": "b", "kind": "write",
                 "static_count": "n*m", "dynamic_count": 3, "equal": false}]}"#,
        )
        .unwrap();
        let f = validation("v.json", &v);
        assert_eq!(f.data[0]["y"], json!([16.0, null]));
        assert_eq!(
            f.data[0]["x"][0],
            "f: &lt;script&gt;alert(1)&lt;/script&gt; read"
        );
        assert!(f.title.ends_with("(n=4), some differ"));
    }
}
