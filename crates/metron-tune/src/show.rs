//! The processing tool of 002 §3.4: measured units filtered on genes (`>`, `=`, `<` for
//! ranges, `=` for lists), placed on an x (and y) axis by an expression, each reduced to one
//! value by a strategy across ranks and threads, with min/max/avg per x (Fig. 3.7's legend).

use serde::Serialize;

use crate::error::{Result, TuneError};
use crate::project::Project;
use crate::space::{expr_value, Expr};
use crate::unit_library as lib;
use metron_store::Store;

#[derive(Debug, Clone, Default)]
pub struct ShowQuery {
    pub filters: Vec<String>,
    pub x: Option<String>,
    pub y: Option<String>,
    pub region: Option<String>,
    pub strategy: Option<metron_probe::analysis::Strategy>,
    /// Failed units as rows with value +inf (a replay table must keep them: the GA spends
    /// its budget on them too).
    pub include_failed: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct ShowRow {
    pub key: String,
    pub params: Vec<(String, String)>,
    pub x: Option<f64>,
    pub y: Option<f64>,
    pub value: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ShowGroup {
    pub x: f64,
    pub units: usize,
    pub min: f64,
    pub max: f64,
    pub avg: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ShowResult {
    /// "fitness", or "REGION (STRATEGY)".
    pub value: String,
    pub genes: Vec<String>,
    pub rows: Vec<ShowRow>,
    pub groups: Vec<ShowGroup>,
    pub failed: usize,
}

enum Filter {
    Compare {
        name: String,
        op: String,
        value: String,
    },
    Expr(Expr),
}

fn parse_filter(f: &str, names: &[String]) -> std::result::Result<Filter, String> {
    let re = regex::Regex::new(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*(==|=|<=|>=|<|>|!=)\s*(.+?)\s*$")
        .map_err(|e| e.to_string())?;
    if let Some(c) = re.captures(f) {
        if names.iter().any(|n| n == &c[1]) {
            return Ok(Filter::Compare {
                name: c[1].to_string(),
                op: c[2].to_string(),
                value: c[3].to_string(),
            });
        }
        return Err(format!(
            "filter `{f}`: `{}` is not a parameter ({})",
            &c[1],
            names.join(", ")
        ));
    }
    Expr::parse(f)
        .map(Filter::Expr)
        .map_err(|e| format!("filter `{f}`: {e}"))
}

fn keep(filter: &Filter, params: &[(String, String)], ctx: &evalexpr::HashMapContext) -> bool {
    match filter {
        Filter::Expr(e) => e.eval_bool(ctx).unwrap_or(false),
        Filter::Compare { name, op, value } => {
            let Some((_, v)) = params.iter().find(|(n, _)| n == name) else {
                return false;
            };
            let (a, b) = (expr_value(v), expr_value(value));
            let num = |x: &evalexpr::Value| x.as_number().ok();
            match op.as_str() {
                "=" | "==" => v == value || a == b,
                "!=" => !(v == value || a == b),
                _ => match (num(&a), num(&b)) {
                    (Some(a), Some(b)) => match op.as_str() {
                        "<" => a < b,
                        ">" => a > b,
                        "<=" => a <= b,
                        _ => a >= b,
                    },
                    _ => false,
                },
            }
        }
    }
}

pub fn show(project: &Project, store: &Store, q: &ShowQuery) -> Result<ShowResult> {
    let input = |m: String| TuneError::input(&project.path, 0, m);
    let space = &project.space;
    let mut names: Vec<String> = space.genes.iter().map(|g| g.name.clone()).collect();
    names.extend(space.constants.iter().map(|c| c.0.clone()));
    names.extend(space.derived.iter().map(|d| d.name.clone()));
    let filters = q
        .filters
        .iter()
        .map(|f| parse_filter(f, &names))
        .collect::<std::result::Result<Vec<_>, _>>()
        .map_err(input)?;
    let x = q.x.as_deref().map(Expr::parse).transpose().map_err(input)?;
    let y = q.y.as_deref().map(Expr::parse).transpose().map_err(input)?;
    let strategy = q.strategy.unwrap_or(metron_probe::analysis::Strategy::Max);
    let mut rows = Vec::new();
    let mut failed = 0;
    for u in store.tune_units(&project.library.display().to_string())? {
        let fitness = match u.fitness.filter(|_| u.status == "ok") {
            Some(f) => f,
            None if q.include_failed => f64::INFINITY,
            None => {
                failed += 1;
                continue;
            }
        };
        let params: Vec<(String, String)> = serde_json::from_str(&u.params).unwrap_or_default();
        let Ok(genome) = space.genome_of(&params) else {
            continue;
        };
        let Ok((_, ctx)) = space.assign(&genome) else {
            continue;
        };
        if !filters.iter().all(|f| keep(f, &params, &ctx)) {
            continue;
        }
        let value = match &q.region {
            Some(_) if fitness.is_infinite() => fitness,
            Some(r) => lib::probe_fitness(
                &project.library.join(&u.key).join(lib::PROFILE_DIR),
                r,
                strategy,
            )?,
            None => fitness,
        };
        let axis = |e: &Option<Expr>| {
            e.as_ref()
                .map(|e| e.eval_f64(&ctx))
                .transpose()
                .map_err(input)
        };
        rows.push(ShowRow {
            key: u.key,
            x: axis(&x)?,
            y: axis(&y)?,
            params,
            value,
        });
    }
    let mut points: Vec<(f64, f64)> = rows
        .iter()
        .filter_map(|r| r.x.map(|x| (x, r.value)))
        .collect();
    points.sort_by(|a, b| a.0.total_cmp(&b.0));
    let groups: Vec<ShowGroup> = points
        .chunk_by(|a, b| a.0 == b.0)
        .map(|c| {
            let v: Vec<f64> = c.iter().map(|p| p.1).collect();
            ShowGroup {
                x: c[0].0,
                units: v.len(),
                min: v.iter().copied().fold(f64::INFINITY, f64::min),
                max: v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
                avg: v.iter().sum::<f64>() / v.len() as f64,
            }
        })
        .collect();
    rows.sort_by(|a, b| {
        a.x.unwrap_or(0.0)
            .total_cmp(&b.x.unwrap_or(0.0))
            .then(a.key.cmp(&b.key))
    });
    Ok(ShowResult {
        value: q
            .region
            .as_ref()
            .map_or("fitness".into(), |r| format!("{r} ({})", strategy.name())),
        genes: space.genes.iter().map(|g| g.name.clone()).collect(),
        rows,
        groups,
        failed,
    })
}
