//! Static models (004): the instruction mix per function by category, as `metron static`
//! predicted it, and — when validated against callgrind — predicted against measured per
//! region with the error table.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::{json, Value};

use super::{table, table_height, Figure, Section, SectionKind};
use crate::data::{StaticComparison, StaticFunction, StaticModel};
use crate::escape;

#[derive(Debug, Clone, Default)]
pub struct StaticInputs {
    pub models: Vec<(PathBuf, StaticModel)>,
    pub validations: Vec<(PathBuf, Vec<StaticComparison>)>,
}

/// `None` when no static model or validation was given.
pub fn section(inputs: &StaticInputs) -> Option<Section> {
    let mut figures = Vec::new();
    for (path, model) in &inputs.models {
        figures.extend(breakdown(&path.display().to_string(), model));
    }
    for (path, rows) in &inputs.validations {
        let file = path.display().to_string();
        figures.extend(predicted_measured(&file, rows));
        figures.extend(categories(&file, rows));
        figures.push(error_table(&file, rows));
    }
    Some(Section {
        kind: SectionKind::Static,
        summary: format!(
            "{} static model(s), {} validation(s) against callgrind",
            inputs.models.len(),
            inputs.validations.len()
        ),
        figures,
    })
}

/// One stacked bar per function, one colour per instruction category.
fn breakdown(file: &str, model: &StaticModel) -> Option<Figure> {
    let funcs: Vec<&StaticFunction> = model
        .functions
        .iter()
        .filter(|f| f.categories.values().any(|v| *v > 0.0))
        .collect();
    if funcs.is_empty() {
        return None;
    }
    let cats: BTreeSet<&String> = funcs.iter().flat_map(|f| f.categories.keys()).collect();
    let x: Vec<String> = funcs.iter().map(|f| escape::plotly(&f.name)).collect();
    let data: Vec<Value> = cats
        .iter()
        .map(|c| {
            let y: Vec<f64> = funcs
                .iter()
                .map(|f| f.categories.get(*c).copied().unwrap_or(0.0))
                .collect();
            json!({
                "type": "bar", "name": escape::plotly(c), "x": x, "y": y,
                "hovertemplate": "%{x}: %{y:,.0f} per call<extra>%{fullData.name}</extra>",
            })
        })
        .collect();
    let arch = model.architecture.as_deref().unwrap_or("?");
    let layout = json!({
        "barmode": "stack",
        "xaxis": {"title": {"text": "function"}, "type": "category", "automargin": true},
        "yaxis": {"title": {"text": "predicted instructions per call"}},
        "legend": {"font": {"size": 10}},
    });
    Some(Figure::new(
        format!("{file}: predicted instructions per call, by category ({arch})"),
        data,
        layout,
    ))
}

fn total(c: &Option<crate::data::Counts>) -> Option<f64> {
    c.as_ref().and_then(|c| c.total())
}

/// Predicted and measured totals side by side per region (functions and their loops).
fn predicted_measured(file: &str, rows: &[StaticComparison]) -> Option<Figure> {
    let rows: Vec<&StaticComparison> = rows
        .iter()
        // A function inlined everywhere has 0 of both: the table lists it, the log axis not.
        .filter(|r| {
            total(&r.predicted).unwrap_or(0.0) > 0.0 || total(&r.measured).unwrap_or(0.0) > 0.0
        })
        .collect();
    if rows.is_empty() {
        return None;
    }
    let x: Vec<String> = rows.iter().map(|r| escape::plotly(&r.region)).collect();
    let err: Vec<Value> = rows.iter().map(|r| json!(r.error_percent)).collect();
    let bar = |name: &str, y: Vec<Option<f64>>| {
        json!({
            "type": "bar", "name": name, "x": x, "y": y, "customdata": err,
            "hovertemplate": "%{x}<br>%{fullData.name}: %{y:,.0f}<br>error %{customdata:.3f}%<extra></extra>",
        })
    };
    let data = vec![
        bar(
            "predicted",
            rows.iter().map(|r| total(&r.predicted)).collect(),
        ),
        bar(
            "measured (callgrind)",
            rows.iter().map(|r| total(&r.measured)).collect(),
        ),
    ];
    let layout = json!({
        "barmode": "group",
        "xaxis": {"type": "category", "automargin": true},
        "yaxis": {"title": {"text": "instructions"}, "type": "log"},
    });
    Some(Figure::new(
        format!("{file}: predicted against measured per region"),
        data,
        layout,
    ))
}

/// Per function (not loop), predicted against measured per category: a point per category,
/// on the diagonal when the model is right.
fn categories(file: &str, rows: &[StaticComparison]) -> Option<Figure> {
    let funcs: Vec<&StaticComparison> = rows
        .iter()
        .filter(|r| !r.region.contains("loop@") && !r.categories.is_empty())
        .collect();
    if funcs.is_empty() {
        return None;
    }
    let mut max = 1.0f64;
    let mut data: Vec<Value> = funcs
        .iter()
        .map(|r| {
            let pts: Vec<_> = r
                .categories
                .iter()
                .filter_map(|c| Some((c, c.predicted?, c.measured?)))
                .collect();
            max = pts.iter().fold(max, |m, (_, p, q)| m.max(*p).max(*q));
            json!({
                "type": "scatter", "mode": "markers", "name": escape::plotly(&r.region),
                "x": pts.iter().map(|p| p.2).collect::<Vec<_>>(),
                "y": pts.iter().map(|p| p.1).collect::<Vec<_>>(),
                "text": pts.iter().map(|p| escape::plotly(&p.0.category)).collect::<Vec<_>>(),
                "customdata": pts.iter().map(|p| p.0.error_percent).collect::<Vec<_>>(),
                "hovertemplate": "%{fullData.name}: %{text}<br>predicted %{y:,.0f}<br>measured \
                    %{x:,.0f}<br>error %{customdata:.3f}%<extra></extra>",
            })
        })
        .collect();
    data.push(json!({
        "type": "scatter", "mode": "lines", "name": "predicted = measured",
        "x": [1.0, max], "y": [1.0, max], "line": {"dash": "dot", "color": "#888"},
        "hoverinfo": "skip",
    }));
    let layout = json!({
        "xaxis": {"title": {"text": "measured (callgrind)"}, "type": "log"},
        "yaxis": {"title": {"text": "predicted"}, "type": "log"},
    });
    Some(Figure::new(
        format!("{file}: per category, predicted against measured"),
        data,
        layout,
    ))
}

/// The error table of `metron static validate`, one row per region.
fn error_table(file: &str, rows: &[StaticComparison]) -> Figure {
    let num = |v: Option<f64>| v.map_or(json!("–"), |v| json!(format!("{v:.0}")));
    let columns = vec![
        rows.iter()
            .map(|r| json!(escape::plotly(&r.region)))
            .collect(),
        rows.iter().map(|r| num(total(&r.predicted))).collect(),
        rows.iter().map(|r| num(total(&r.measured))).collect(),
        rows.iter()
            .map(|r| match (&r.unevaluated, r.error_percent) {
                (Some(why), _) => json!(escape::plotly(&format!("not evaluated: {why}"))),
                (None, Some(e)) => json!(format!("{e:.3}")),
                (None, None) => json!("–"),
            })
            .collect(),
    ];
    let trace = table(&["region", "predicted", "measured", "error %"], columns);
    let layout = json!({"height": table_height(rows.len()), "margin": {"t": 10, "b": 10}});
    Figure::new(format!("{file}: error table"), vec![trace], layout)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape `metron static validate --json` writes (a trimmed copy of the demo's).
    const VALIDATION: &str = r#"[
      {"region": "main", "error_percent": 0.5, "unevaluated": null, "extra": 1,
       "predicted": {"total": 201.0, "by_category": {"SSE2": 100.0, "Integer": 101.0}},
       "measured": {"total": 200.0, "by_category": {"SSE2": 100.0, "Integer": 100.0}},
       "categories": [{"category": "Integer", "predicted": 101.0, "measured": 100.0, "error_percent": 1.0}]},
      {"region": "main loop@0x1100 (line 35)", "predicted": 50, "measured": 50, "error_percent": 0.0},
      {"region": "<script>alert(1)</script>", "predicted": null, "measured": {"total": 7.0},
       "unevaluated": "parameter n not bound", "categories": []}
    ]"#;

    #[test]
    fn validation_draws_totals_categories_and_the_error_table() {
        let rows: crate::data::StaticValidation = serde_json::from_str(VALIDATION).unwrap();
        let s = section(&StaticInputs {
            models: vec![],
            validations: vec![("v.json".into(), rows.rows().to_vec())],
        })
        .unwrap();
        assert_eq!(s.figures.len(), 3);
        let bars = &s.figures[0].data;
        assert_eq!(bars[0]["y"], json!([201.0, 50.0, null]));
        assert_eq!(bars[1]["y"], json!([200.0, 50.0, 7.0]));
        // Only functions get a per-category scatter, not loops.
        assert_eq!(s.figures[1].data.len(), 2);
        assert_eq!(s.figures[1].data[0]["x"], json!([100.0]));
        let cells = &s.figures[2].data[0]["cells"]["values"];
        assert_eq!(cells[0][2], "&lt;script&gt;alert(1)&lt;/script&gt;");
        assert_eq!(cells[3][2], "not evaluated: parameter n not bound");
        assert_eq!(cells[3][0], "0.500");
    }

    #[test]
    fn a_model_stacks_categories_per_call_per_function() {
        let m: StaticModel = serde_json::from_str(
            r#"{"schema": "metron.static/1", "architecture": "x86-64", "functions": [
              {"name": "main", "categories": {"a": 1.0, "b": 2.0},
               "run": {"calls": 1, "total": 30.0, "categories": {"a": 10.0, "b": 20.0}}},
              {"name": "copy", "categories": {"a": 5.0}, "run": {"calls": 0, "total": 0, "categories": {}}},
              {"name": "inlined", "categories": {"a": 0.0}},
              {"name": "unbound", "unbound": ["n"]}
            ]}"#,
        )
        .unwrap();
        let f = breakdown("m.json", &m).unwrap();
        assert_eq!(f.data.len(), 2);
        assert_eq!(f.data[0]["x"], json!(["main", "copy"]));
        assert_eq!(f.data[0]["y"], json!([1.0, 5.0]));
        assert_eq!(f.data[1]["y"], json!([2.0, 0.0]));
    }
}
