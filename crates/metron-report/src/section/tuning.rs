//! Tuning campaigns from the store's tune tables: fitness of every unit against each numeric
//! gene (the scatter plots of 002 Figs. 3.7-3.11, one gene per axis), and GA convergence, the
//! best fitness per generation for every repeat (002 Ch. 4).

use metron_store::{TuneGenerationRow, TuneUnitRow};
use serde_json::{json, Value};

use super::{Figure, Section, SectionKind};
use crate::escape;

/// Genes plotted per campaign; more need the user's expressions over genes (next slice).
const MAX_GENE_AXES: usize = 6;

/// One `metron tune` experiment and the units of its library.
#[derive(Debug, Clone)]
pub struct TuningInput {
    pub experiment: i64,
    pub name: Option<String>,
    pub library: String,
    pub units: Vec<TuneUnitRow>,
    pub generations: Vec<TuneGenerationRow>,
}

/// `None` when no campaign finished a unit.
pub fn section(inputs: &[TuningInput]) -> Option<Section> {
    let mut figures = Vec::new();
    for t in inputs {
        let params: Vec<Vec<(String, Value)>> = t.units.iter().map(params).collect();
        for gene in numeric_genes(&params).into_iter().take(MAX_GENE_AXES) {
            figures.push(gene_scatter(t, &params, &gene));
        }
        if t.generations.iter().any(|g| g.best_fitness.is_some()) {
            figures.push(convergence(t));
        }
    }
    if figures.is_empty() {
        return None;
    }
    Some(Section {
        kind: SectionKind::Tuning,
        summary: format!("{} tuning campaign(s) from the store", inputs.len()),
        figures,
    })
}

fn heading(t: &TuningInput) -> String {
    let name = t.name.as_deref().unwrap_or("campaign");
    format!(
        "{name} (experiment {}, library {})",
        t.experiment, t.library
    )
}

/// The unit's `[name, value]` pairs; an unreadable row has none (it is still counted).
fn params(u: &TuneUnitRow) -> Vec<(String, Value)> {
    serde_json::from_str::<Vec<(String, Value)>>(&u.params).unwrap_or_default()
}

/// Genes whose value is a number in every unit and that vary (constants and derived values
/// that never change make flat plots), in the project's order.
fn numeric_genes(params: &[Vec<(String, Value)>]) -> Vec<String> {
    let Some(first) = params.first() else {
        return Vec::new();
    };
    first
        .iter()
        .map(|(name, _)| name.clone())
        .filter(|name| {
            let values: Option<Vec<f64>> = params.iter().map(|p| gene(p, name)).collect();
            values.is_some_and(|v| v.iter().any(|x| *x != v[0]))
        })
        .collect()
}

/// A gene's value as a number: stored as a JSON number or as the text of one.
fn gene(p: &[(String, Value)], name: &str) -> Option<f64> {
    let (_, v) = p.iter().find(|(n, _)| n == name)?;
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Fitness of finished units against one gene; hover shows the unit's key and parameters.
fn gene_scatter(t: &TuningInput, params: &[Vec<(String, Value)>], name: &str) -> Figure {
    let ok: Vec<usize> = (0..t.units.len())
        .filter(|&i| t.units[i].fitness.is_some())
        .collect();
    let text: Vec<String> = ok
        .iter()
        .map(|&i| {
            let p: Vec<String> = params[i].iter().map(|(k, v)| format!("{k}={v}")).collect();
            let key = escape::plotly(&t.units[i].key);
            format!("{key}<br>{}", escape::plotly(&p.join(", ")))
        })
        .collect();
    let details: Vec<String> = ok.iter().map(|&i| unit_details(t, &params[i], i)).collect();
    let trace = json!({
        "type": "scatter", "mode": "markers", "name": "units", "customdata": details,
        "x": ok.iter().map(|&i| gene(&params[i], name)).collect::<Vec<_>>(),
        "y": ok.iter().map(|&i| t.units[i].fitness).collect::<Vec<_>>(),
        "text": text,
        "hovertemplate": "%{text}<br>fitness %{y:.6g}<extra></extra>",
    });
    let layout = json!({
        "xaxis": {"title": {"text": escape::plotly(name)}},
        "yaxis": {"title": {"text": "fitness"}},
    });
    Figure::new(
        format!("{}: fitness against {name}", heading(t)),
        vec![trace],
        layout,
    )
    .with_click_details()
}

/// What a click on a unit shows: its parameters, folder (with the stage logs) and result.
fn unit_details(t: &TuningInput, params: &[(String, Value)], i: usize) -> String {
    let u = &t.units[i];
    let mut text = format!(
        "unit {}\nfolder {}/{}\nstatus {}",
        u.key, t.library, u.key, u.status
    );
    if let Some(f) = u.fitness {
        text.push_str(&format!(", fitness {f}"));
    }
    for (k, v) in params {
        let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
        text.push_str(&format!("\n  {k} = {v}"));
    }
    text
}

/// Best fitness per generation, one line per repeat of the GA.
fn convergence(t: &TuningInput) -> Figure {
    let mut repeats: Vec<u32> = t.generations.iter().map(|g| g.repeat).collect();
    repeats.dedup();
    let data = repeats
        .iter()
        .map(|&r| {
            let gens: Vec<&TuneGenerationRow> =
                t.generations.iter().filter(|g| g.repeat == r).collect();
            json!({
                "type": "scatter", "mode": "lines+markers", "name": format!("repeat {r}"),
                "x": gens.iter().map(|g| g.generation).collect::<Vec<_>>(),
                "y": gens.iter().map(|g| g.best_fitness).collect::<Vec<_>>(),
                "text": gens.iter().map(|g| escape::plotly(g.best_key.as_deref().unwrap_or(""))).collect::<Vec<_>>(),
                "hovertemplate": "generation %{x}: best %{y:.6g}<br>%{text}<extra></extra>",
            })
        })
        .collect();
    let layout = json!({
        "xaxis": {"title": {"text": "generation"}},
        "yaxis": {"title": {"text": "best fitness"}},
    });
    Figure::new(format!("{}: GA convergence", heading(t)), data, layout)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(key: &str, params: &str, fitness: Option<f64>) -> TuneUnitRow {
        TuneUnitRow {
            library: "lib".into(),
            key: key.into(),
            params: params.into(),
            status: if fitness.is_some() { "ok" } else { "failed" }.into(),
            fitness,
            failed_stage: None,
            reason: None,
            stderr_tail: None,
            experiment_id: Some(1),
        }
    }

    fn campaign(generations: Vec<TuneGenerationRow>) -> TuningInput {
        TuningInput {
            experiment: 1,
            name: Some("poisson".into()),
            library: "lib".into(),
            units: vec![
                unit(
                    "a",
                    r#"[["ranks","1"],["smoother","jac"],["n","128"],["pre",0]]"#,
                    Some(2.0),
                ),
                unit(
                    "b",
                    r#"[["ranks","2"],["smoother","gs"],["n","128"],["pre",1]]"#,
                    Some(1.5),
                ),
                unit(
                    "c",
                    r#"[["ranks","4"],["smoother","gs"],["n","128"],["pre",2]]"#,
                    None,
                ),
            ],
            generations,
        }
    }

    #[test]
    fn varying_numeric_genes_get_an_axis_and_failed_units_no_point() {
        let s = section(&[campaign(vec![])]).unwrap();
        let titles: Vec<&str> = s.figures.iter().map(|f| f.title.as_str()).collect();
        assert_eq!(titles.len(), 2, "{titles:?}");
        assert!(titles[0].ends_with("fitness against ranks"));
        assert!(titles[1].ends_with("fitness against pre"));
        let trace = &s.figures[0].data[0];
        assert_eq!(trace["x"], serde_json::json!([1.0, 2.0]));
        assert_eq!(trace["y"], serde_json::json!([2.0, 1.5]));
        let details = trace["customdata"][1].as_str().unwrap();
        assert!(
            details.starts_with("unit b\nfolder lib/b\nstatus ok, fitness 1.5"),
            "{details}"
        );
        assert!(details.contains("\n  smoother = gs") && s.figures[0].click_details);
    }

    #[test]
    fn convergence_has_one_line_per_repeat() {
        let g = |repeat, generation, best| TuneGenerationRow {
            repeat,
            generation,
            unique_units: 4,
            best_fitness: Some(best),
            best_key: Some("a".into()),
        };
        let s = section(&[campaign(vec![g(0, 0, 3.0), g(0, 1, 2.0), g(1, 0, 2.5)])]).unwrap();
        let conv = s.figures.last().unwrap();
        assert!(conv.title.ends_with("GA convergence"));
        assert_eq!(conv.data.len(), 2);
        assert_eq!(conv.data[0]["y"], serde_json::json!([3.0, 2.0]));
    }

    #[test]
    fn no_finished_campaign_no_section() {
        assert!(section(&[]).is_none());
    }
}
