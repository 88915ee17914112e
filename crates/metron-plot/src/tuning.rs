//! Tuning campaigns: every finished unit as a point, with axes given as expressions over its
//! genes and `fitness` (002 Figs. 3.7-3.11 plot units against such user expressions), written
//! in the expression language of metron-tune's project files.

use evalexpr::{ContextWithMutableVariables, HashMapContext};
use metron_store::{Store, TuneUnitRow};
use metron_tune::space::{expr_value, Expr};
use plotters::coord::Shift;
use plotters::prelude::*;
use serde_json::Value;

use crate::render::{caption_font, err, padded, DrawResult, LABEL};
use crate::PlotError;

#[derive(Debug, Clone)]
pub struct ScatterFigure {
    pub title: String,
    pub x: String,
    pub y: String,
    pub points: Vec<(f64, f64)>,
}

/// The units of one campaign: `library`'s, or those of the newest `metron tune` experiment.
pub struct Campaign {
    pub library: String,
    pub experiment: i64,
    pub units: Vec<TuneUnitRow>,
}

impl Campaign {
    pub fn load(store: &Store, library: Option<&str>) -> Result<Campaign, PlotError> {
        let (campaigns, _) = store.tune_campaigns()?;
        let found = campaigns
            .into_iter()
            .find(|c| library.is_none_or(|l| l == c.library))
            .map(|c| (c.library, c.experiment.0));
        let Some((library, experiment)) = found else {
            let which = library.map_or(String::new(), |l| format!(" of library {l}"));
            return Err(PlotError::NoData(format!(
                "{}: no tuning campaign{which} (run one with `metron tune run PROJECT`)",
                store.path().display()
            )));
        };
        let units = store.tune_units(&library)?;
        Ok(Campaign {
            library,
            experiment,
            units,
        })
    }

    /// The unit's parameters as text, in the project's order; an unreadable row has none.
    fn params(u: &TuneUnitRow) -> Vec<(String, String)> {
        let pairs: Vec<(String, Value)> = serde_json::from_str(&u.params).unwrap_or_default();
        pairs
            .into_iter()
            .map(|(k, v)| (k, v.as_str().map_or_else(|| v.to_string(), str::to_string)))
            .collect()
    }

    /// The first gene that is a number in every unit and varies: the default x axis.
    pub fn first_varying_gene(&self) -> Option<String> {
        let params: Vec<_> = self.units.iter().map(Campaign::params).collect();
        let first = params.first()?;
        first.iter().map(|(n, _)| n.clone()).find(|name| {
            let values: Option<Vec<f64>> = params
                .iter()
                .map(|p| p.iter().find(|(k, _)| k == name)?.1.trim().parse().ok())
                .collect();
            values.is_some_and(|v| v.iter().any(|x| *x != v[0]))
        })
    }
}

impl ScatterFigure {
    /// Finished units at (`x`, `y`), both evaluated with the unit's parameters and `fitness`.
    pub fn from_campaign(c: &Campaign, x: &str, y: &str) -> Result<ScatterFigure, PlotError> {
        let parse = |text: &str| {
            Expr::parse(text).map_err(|message| PlotError::Expression {
                expr: text.to_string(),
                message,
            })
        };
        let (ex, ey) = (parse(x)?, parse(y)?);
        let mut points = Vec::new();
        for u in &c.units {
            let Some(fitness) = u.fitness else { continue };
            let mut ctx = HashMapContext::new();
            for (k, v) in Campaign::params(u) {
                let _ = ctx.set_value(k, expr_value(&v));
            }
            let _ = ctx.set_value("fitness".into(), evalexpr::Value::Float(fitness));
            let at = |e: &Expr| {
                // eval_f64's message names the expression.
                e.eval_f64(&ctx).map_err(|message| PlotError::Expression {
                    expr: format!("unit {}", u.key),
                    message,
                })
            };
            points.push((at(&ex)?, at(&ey)?));
        }
        if points.is_empty() {
            return Err(PlotError::NoData(format!(
                "library {}: no unit has finished yet",
                c.library
            )));
        }
        Ok(ScatterFigure {
            title: format!("{} (experiment {})", c.library, c.experiment),
            x: x.to_string(),
            y: y.to_string(),
            points,
        })
    }

    pub(crate) fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult {
        let xs = padded(self.points.iter().map(|p| p.0));
        let ys = padded(self.points.iter().map(|p| p.1));
        let mut chart = ChartBuilder::on(root)
            .caption(&self.title, caption_font())
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(70)
            .build_cartesian_2d(xs, ys)
            .map_err(err)?;
        chart
            .configure_mesh()
            .label_style(LABEL)
            .axis_desc_style(LABEL)
            .light_line_style(TRANSPARENT)
            .x_desc(&self.x)
            .y_desc(&self.y)
            .draw()
            .map_err(err)?;
        let points = self
            .points
            .iter()
            .map(|&p| Circle::new(p, 4, BLUE.mix(0.7).filled()));
        chart.draw_series(points).map_err(err)?;
        let mean = mean_per_x(&self.points);
        if mean.len() > 1 {
            let line = LineSeries::new(mean, BLACK.mix(0.6).stroke_width(1));
            chart.draw_series(line).map_err(err)?;
        }
        Ok(())
    }
}

/// The mean y of the points at each distinct x, in x order (002 Figs. 3.7-3.11 draw it with
/// the min and max per x).
pub fn mean_per_x(points: &[(f64, f64)]) -> Vec<(f64, f64)> {
    let mut sorted = points.to_vec();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    sorted
        .chunk_by(|a, b| a.0 == b.0)
        .map(|same_x| {
            let sum: f64 = same_x.iter().map(|p| p.1).sum();
            (same_x[0].0, sum / same_x.len() as f64)
        })
        .collect()
}
