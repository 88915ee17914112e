//! Tuning campaigns from the store's tune tables: units placed by expressions over their
//! genes (002 Figs. 3.7-3.11: `--x`, `--y`, `--z`; fitness against each varying gene by
//! default) with the min, max and mean per x, and GA convergence, the best fitness per
//! generation for every repeat with percentile bands across repeats (002 Ch. 4).

use std::path::Path;

use evalexpr::{ContextWithMutableVariables, HashMapContext};
use metron_store::{TuneGenerationRow, TuneUnitRow};
use metron_tune::space::{expr_value, Expr};
use serde_json::{json, Value};

use super::{quantile, Figure, Section, SectionKind};
use crate::escape;

/// Genes plotted per campaign when no axes are given.
const MAX_GENE_AXES: usize = 6;
/// Lines and bytes kept of each stage log shown on a click.
const LOG_LINES: usize = 12;
const LOG_BYTES: usize = 1200;
/// Units whose stage logs are embedded; beyond this a click names the folder only.
const MAX_LOGGED_UNITS: usize = 400;

/// One `metron tune` experiment and the units of its library.
#[derive(Debug, Clone)]
pub struct TuningInput {
    pub experiment: i64,
    pub name: Option<String>,
    pub library: String,
    pub units: Vec<TuneUnitRow>,
    pub generations: Vec<TuneGenerationRow>,
}

/// The axes of the scatter plots: evalexpr expressions over a unit's genes and `fitness`
/// (`--x 'ranks * threads' --y fitness --z n`). Without `x`, fitness against each gene.
#[derive(Debug, Clone, Default)]
pub struct Axes {
    pub x: Option<String>,
    pub y: Option<String>,
    pub z: Option<String>,
}

impl Axes {
    /// Parses the expressions; `Err` names the one that does not parse.
    fn compile(&self) -> Result<Option<[Option<Expr>; 3]>, String> {
        let Some(x) = &self.x else {
            return Ok(None);
        };
        let parse = |e: &str| Expr::parse(e).map_err(|m| format!("`{e}`: {m}"));
        Ok(Some([
            Some(parse(x)?),
            Some(parse(self.y.as_deref().unwrap_or("fitness"))?),
            self.z.as_deref().map(parse).transpose()?,
        ]))
    }

    /// Checks the expressions before anything is read (`metron report --x ...`).
    pub fn check(&self) -> Result<(), String> {
        self.compile().map(|_| ())
    }
}

/// `None` when no campaign finished a unit.
pub fn section(inputs: &[TuningInput], axes: &Axes) -> Option<Section> {
    let exprs = axes.compile().ok().flatten();
    let mut figures = Vec::new();
    for t in inputs {
        let units = Units::new(t);
        match &exprs {
            Some([Some(x), Some(y), z]) => {
                figures.extend(expr_scatter(t, &units, x, y, z.as_ref()))
            }
            _ => {
                for gene in numeric_genes(&units.params).into_iter().take(MAX_GENE_AXES) {
                    figures.extend(gene_scatter(t, &units, &gene));
                }
            }
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

/// A campaign's units with their parameters and what a click on each shows.
struct Units {
    params: Vec<Vec<(String, Value)>>,
    details: Vec<String>,
    hover: Vec<String>,
}

impl Units {
    fn new(t: &TuningInput) -> Units {
        let params: Vec<Vec<(String, Value)>> = t.units.iter().map(params).collect();
        let with_logs = t.units.len() <= MAX_LOGGED_UNITS;
        let details = (0..t.units.len())
            .map(|i| unit_details(t, &params[i], i, with_logs))
            .collect();
        let hover = (0..t.units.len())
            .map(|i| {
                let p: Vec<String> = params[i].iter().map(|(k, v)| format!("{k}={v}")).collect();
                let key = escape::plotly(&t.units[i].key);
                format!("{key}<br>{}", escape::plotly(&p.join(", ")))
            })
            .collect();
        Units {
            params,
            details,
            hover,
        }
    }

    /// The evalexpr context of unit `i`: its genes as the tuner reads them, and `fitness`.
    fn context(&self, t: &TuningInput, i: usize) -> HashMapContext {
        let mut ctx = HashMapContext::new();
        for (k, v) in &self.params[i] {
            let v = match v {
                Value::String(s) => expr_value(s),
                other => expr_value(&other.to_string()),
            };
            let _ = ctx.set_value(k.clone(), v);
        }
        if let Some(f) = t.units[i].fitness {
            let _ = ctx.set_value("fitness".into(), evalexpr::Value::Float(f));
        }
        ctx
    }
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

/// A placed unit: index, x, y and (3D) z.
type Point = (usize, f64, f64, Option<f64>);
type Points = Vec<Point>;

/// Fitness of finished units against one gene.
fn gene_scatter(t: &TuningInput, units: &Units, name: &str) -> Option<Figure> {
    let pts: Points = (0..t.units.len())
        .filter_map(|i| Some((i, gene(&units.params[i], name)?, t.units[i].fitness?, None)))
        .collect();
    let title = format!("{}: fitness against {name}", heading(t));
    scatter(title, units, &pts, [name, "fitness", ""])
}

/// Units placed by the user's expressions; a unit where one does not evaluate to a number
/// (a failed unit's `fitness`, a gene it lacks) is left out and counted in the title.
fn expr_scatter(
    t: &TuningInput,
    units: &Units,
    x: &Expr,
    y: &Expr,
    z: Option<&Expr>,
) -> Option<Figure> {
    let pts: Points = (0..t.units.len())
        .filter_map(|i| {
            let ctx = units.context(t, i);
            let z = match z {
                Some(z) => Some(z.eval_f64(&ctx).ok()?),
                None => None,
            };
            Some((i, x.eval_f64(&ctx).ok()?, y.eval_f64(&ctx).ok()?, z))
        })
        .collect();
    let left_out = t.units.len() - pts.len();
    let mut title = format!("{}: {} against {}", heading(t), y.text, x.text);
    if let Some(z) = z {
        title.push_str(&format!(" and {}", z.text));
    }
    if left_out > 0 {
        title.push_str(&format!(" ({left_out} unit(s) without a value left out)"));
    }
    let z_text = z.map_or("", |z| z.text.as_str());
    if pts.is_empty() {
        // Say so in the page rather than drop the plot the user asked for.
        title.push_str(": no unit gives a number for these expressions (misspelt gene?)");
        return Some(Figure::new(title, vec![], json!({})));
    }
    scatter(title, units, &pts, [&x.text, &y.text, z_text])
}

/// The scatter of placed units (2D, or 3D with a z), clickable for the unit's details; in 2D
/// with the min, max and mean of y at each x (002 Figs. 3.7-3.11).
fn scatter(title: String, units: &Units, pts: &Points, labels: [&str; 3]) -> Option<Figure> {
    if pts.is_empty() {
        return None;
    }
    let three_d = pts.iter().all(|p| p.3.is_some()) && !labels[2].is_empty();
    let col = |f: fn(&Point) -> Value| pts.iter().map(f).collect::<Vec<_>>();
    let mut trace = json!({
        "type": if three_d { "scatter3d" } else { "scatter" }, "mode": "markers", "name": "units",
        "x": col(|p| json!(p.1)), "y": col(|p| json!(p.2)),
        "text": pts.iter().map(|p| units.hover[p.0].clone()).collect::<Vec<_>>(),
        "customdata": pts.iter().map(|p| units.details[p.0].clone()).collect::<Vec<_>>(),
        "marker": {"size": if three_d { 4 } else { 8 }},
    });
    let [x, y, z] = labels.map(escape::plotly);
    let axis = |t: &str| json!({"title": {"text": t}});
    let layout = if three_d {
        trace["z"] = json!(col(|p| json!(p.3)));
        trace["hovertemplate"] = json!(format!(
            "%{{text}}<br>{x} %{{x:.6g}}, {y} %{{y:.6g}}, {z} %{{z:.6g}}<extra></extra>"
        ));
        json!({"scene": {"xaxis": axis(&x), "yaxis": axis(&y), "zaxis": axis(&z)}, "height": 560})
    } else {
        trace["hovertemplate"] = json!(format!(
            "%{{text}}<br>{x} %{{x:.6g}}, {y} %{{y:.6g}}<extra></extra>"
        ));
        json!({"xaxis": axis(&x), "yaxis": axis(&y)})
    };
    let mut data = vec![trace];
    if !three_d {
        data.extend(envelope(pts));
    }
    Some(Figure::new(title, data, layout).with_click_details())
}

/// Min, max and mean of y at each distinct x, as lines.
fn envelope(pts: &Points) -> Vec<Value> {
    let mut xs: Vec<f64> = pts.iter().map(|p| p.1).collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    if xs.len() < 2 {
        return Vec::new();
    }
    let at: Vec<Vec<f64>> = xs
        .iter()
        .map(|x| pts.iter().filter(|p| p.1 == *x).map(|p| p.2).collect())
        .collect();
    let line = |name: &str, dash: &str, f: &dyn Fn(&[f64]) -> f64| {
        json!({
            "type": "scatter", "mode": "lines", "name": name, "x": xs,
            "y": at.iter().map(|v| f(v)).collect::<Vec<_>>(), "line": {"dash": dash, "width": 1},
            "hovertemplate": format!("{name} %{{y:.6g}} at %{{x:.6g}}<extra></extra>"),
        })
    };
    vec![
        line("min", "dot", &|v| {
            v.iter().copied().fold(f64::INFINITY, f64::min)
        }),
        line("mean", "solid", &|v| v.iter().sum::<f64>() / v.len() as f64),
        line("max", "dash", &|v| {
            v.iter().copied().fold(f64::NEG_INFINITY, f64::max)
        }),
    ]
}

/// What a click on a unit shows: its parameters, folder, result, and the tails of its stage
/// logs (`build.stderr`, `run.stdout`, ... in the unit's folder).
fn unit_details(t: &TuningInput, params: &[(String, Value)], i: usize, logs: bool) -> String {
    let u = &t.units[i];
    let folder = Path::new(&t.library).join(&u.key);
    let mut text = format!(
        "unit {}\nfolder {}\nstatus {}",
        u.key,
        folder.display(),
        u.status
    );
    if let Some(f) = u.fitness {
        text.push_str(&format!(", fitness {f}"));
    }
    if let Some(stage) = &u.failed_stage {
        text.push_str(&format!(
            "\nfailed in {stage}: {}",
            u.reason.as_deref().unwrap_or("")
        ));
    }
    for (k, v) in params {
        let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
        text.push_str(&format!("\n  {k} = {v}"));
    }
    if logs {
        for (name, tail) in stage_logs(&folder) {
            text.push_str(&format!("\n--- {name} (last lines)\n{tail}"));
        }
    }
    text
}

/// The non-empty `*.stdout` / `*.stderr` files of a unit's folder with their last lines.
fn stage_logs(folder: &Path) -> Vec<(String, String)> {
    let Ok(dir) = std::fs::read_dir(folder) else {
        return Vec::new();
    };
    let mut logs: Vec<(String, String)> = dir
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            if !(name.ends_with(".stdout") || name.ends_with(".stderr")) {
                return None;
            }
            let text = std::fs::read(e.path()).ok()?;
            let text = String::from_utf8_lossy(&text[text.len().saturating_sub(LOG_BYTES)..]);
            let lines: Vec<&str> = text.lines().collect();
            let tail = lines[lines.len().saturating_sub(LOG_LINES)..].join("\n");
            (!tail.trim().is_empty()).then_some((name, tail))
        })
        .collect();
    logs.sort();
    logs
}

/// Best fitness per generation for every repeat of the GA; with several repeats, the median
/// and the 10-90 and 25-75 percentile bands across them.
fn convergence(t: &TuningInput) -> Figure {
    let mut repeats: Vec<u32> = t.generations.iter().map(|g| g.repeat).collect();
    repeats.sort_unstable();
    repeats.dedup();
    let mut data: Vec<Value> = bands(&t.generations, repeats.len());
    let faint = repeats.len() > 1;
    data.extend(repeats.iter().map(|&r| {
        let gens: Vec<&TuneGenerationRow> =
            t.generations.iter().filter(|g| g.repeat == r).collect();
        json!({
            "type": "scatter", "mode": "lines+markers", "name": format!("repeat {r}"),
            "x": gens.iter().map(|g| g.generation).collect::<Vec<_>>(),
            "y": gens.iter().map(|g| g.best_fitness).collect::<Vec<_>>(),
            "text": gens.iter().map(|g| escape::plotly(g.best_key.as_deref().unwrap_or(""))).collect::<Vec<_>>(),
            "opacity": if faint { 0.5 } else { 1.0 },
            "line": {"width": 1}, "marker": {"size": 4},
            "hovertemplate": "generation %{x}: best %{y:.6g}<br>%{text}<extra>%{fullData.name}</extra>",
        })
    }));
    let layout = json!({
        "xaxis": {"title": {"text": "generation"}},
        "yaxis": {"title": {"text": "best fitness"}},
    });
    Figure::new(format!("{}: GA convergence", heading(t)), data, layout)
}

/// Percentile bands of the best fitness across repeats at each generation (filled between a
/// lower and an upper line), and the median; nothing for a single repeat.
fn bands(generations: &[TuneGenerationRow], repeats: usize) -> Vec<Value> {
    if repeats < 2 {
        return Vec::new();
    }
    let mut gens: Vec<u32> = generations.iter().map(|g| g.generation).collect();
    gens.sort_unstable();
    gens.dedup();
    let at: Vec<(u32, Vec<f64>)> = gens
        .iter()
        .filter_map(|&n| {
            let mut v: Vec<f64> = generations
                .iter()
                .filter(|g| g.generation == n)
                .filter_map(|g| g.best_fitness)
                .filter(|f| f.is_finite())
                .collect();
            v.sort_by(f64::total_cmp);
            (!v.is_empty()).then_some((n, v))
        })
        .collect();
    let x: Vec<u32> = at.iter().map(|(n, _)| *n).collect();
    let q = |p: f64| at.iter().map(|(_, v)| quantile(v, p)).collect::<Vec<_>>();
    let mut out = Vec::new();
    for (lo, hi, fill) in [
        (0.1, 0.9, "rgba(31,119,180,0.12)"),
        (0.25, 0.75, "rgba(31,119,180,0.25)"),
    ] {
        let name = format!("{:.0}-{:.0}th percentile", lo * 100.0, hi * 100.0);
        out.push(
            json!({"type": "scatter", "mode": "lines", "x": x, "y": q(lo), "line": {"width": 0},
                        "showlegend": false, "legendgroup": name, "hoverinfo": "skip"}),
        );
        out.push(
            json!({"type": "scatter", "mode": "lines", "x": x, "y": q(hi), "line": {"width": 0},
                        "fill": "tonexty", "fillcolor": fill, "name": name, "legendgroup": name,
                        "hoverinfo": "skip"}),
        );
    }
    out.push(json!({
        "type": "scatter", "mode": "lines", "name": "median of repeats", "x": x, "y": q(0.5),
        "line": {"width": 3, "color": "#1f77b4"},
        "hovertemplate": "generation %{x}: median best %{y:.6g}<extra></extra>",
    }));
    out
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
        let s = section(&[campaign(vec![])], &Axes::default()).unwrap();
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
        let s = section(
            &[campaign(vec![g(0, 0, 3.0), g(0, 1, 2.0), g(1, 0, 2.5)])],
            &Axes::default(),
        )
        .unwrap();
        let conv = s.figures.last().unwrap();
        assert!(conv.title.ends_with("GA convergence"));
        // Two bands (lower and upper line each), the median, then one line per repeat.
        assert_eq!(conv.data.len(), 7);
        assert_eq!(conv.data[5]["y"], serde_json::json!([3.0, 2.0]));
        assert_eq!(conv.data[6]["y"], serde_json::json!([2.5]));
        // Generation 0 has 3.0 and 2.5: 10th percentile 2.55, median 2.75; generation 1
        // only 2.0.
        assert_eq!(conv.data[0]["y"], serde_json::json!([2.55, 2.0]));
        assert_eq!(conv.data[4]["y"], serde_json::json!([2.75, 2.0]));
    }

    #[test]
    fn expressions_over_genes_place_units_in_2d_and_3d() {
        let mut c = campaign(vec![]);
        c.units.push(unit(
            "d",
            r#"[["ranks","4"],["smoother","jac"],["n","128"],["pre",2]]"#,
            Some(1.0),
        ));
        let axes = Axes {
            x: Some("ranks * 2".into()),
            y: Some("if(smoother == \"gs\", fitness, -fitness)".into()),
            z: None,
        };
        let s = section(&[c.clone()], &axes).unwrap();
        let f = &s.figures[0];
        // Unit c failed: no fitness, left out.
        assert!(
            f.title.contains("(1 unit(s) without a value left out)"),
            "{}",
            f.title
        );
        assert_eq!(f.data[0]["x"], serde_json::json!([2.0, 4.0, 8.0]));
        assert_eq!(f.data[0]["y"], serde_json::json!([-2.0, 1.5, -1.0]));
        assert_eq!(f.data[0]["type"], "scatter");
        // min, mean, max per x follow the points.
        assert_eq!(f.data[1]["name"], "min");
        assert_eq!(f.data[2]["y"], serde_json::json!([-2.0, 1.5, -1.0]));
        let axes = Axes {
            z: Some("pre".into()),
            ..axes
        };
        let f = &section(&[c], &axes).unwrap().figures[0];
        assert_eq!(f.data.len(), 1);
        assert_eq!(f.data[0]["type"], "scatter3d");
        assert_eq!(f.data[0]["z"], serde_json::json!([0.0, 1.0, 2.0]));
        assert!(f.click_details);
    }

    #[test]
    fn expressions_no_unit_can_evaluate_say_so() {
        let axes = Axes {
            x: Some("no_such_gene".into()),
            ..Default::default()
        };
        let f = &section(&[campaign(vec![])], &axes).unwrap().figures[0];
        assert!(f.data.is_empty());
        assert!(f.title.contains("no unit gives a number"), "{}", f.title);
    }

    #[test]
    fn a_bad_axis_expression_is_named() {
        let axes = Axes {
            x: Some("ranks * (2".into()),
            ..Default::default()
        };
        assert!(axes.check().unwrap_err().contains("ranks * (2"));
    }

    #[test]
    fn a_click_shows_the_tails_of_the_stage_logs() {
        let dir = tempfile::tempdir().unwrap();
        let mut c = campaign(vec![]);
        c.library = dir.path().display().to_string();
        let folder = dir.path().join("b");
        std::fs::create_dir_all(&folder).unwrap();
        let log: String = (1..=40).map(|i| format!("line {i}\n")).collect();
        std::fs::write(folder.join("run.stdout"), log).unwrap();
        std::fs::write(folder.join("build.stderr"), "<script>alert(1)</script>\n").unwrap();
        std::fs::write(folder.join("empty.stderr"), "").unwrap();
        let s = section(&[c], &Axes::default()).unwrap();
        let details = s.figures[0].data[0]["customdata"][1].as_str().unwrap();
        assert!(
            details.contains("--- build.stderr (last lines)\n<script>"),
            "{details}"
        );
        assert!(details.contains("line 29\nline 30") && details.ends_with("line 40"));
        assert!(!details.contains("line 28\n") && !details.contains("empty.stderr"));
    }

    #[test]
    fn no_finished_campaign_no_section() {
        assert!(section(&[], &Axes::default()).is_none());
    }
}
