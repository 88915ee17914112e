//! Measurements: per benchmark, a box of its runs (quartiles, whiskers at the extremes) and the
//! median with its bootstrap 95% CI (metron-measure's `stats`; 000 App. A reads its timings
//! as such distributions).

use metron_measure::report::{BenchmarkReport, Report};
use metron_store::{ExperimentId, Store};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::render::{category_chart, err, padded, DrawResult};
use crate::PlotError;

#[derive(Debug, Clone)]
pub struct BoxFigure {
    pub title: String,
    /// `metric (unit)` of the primary metric.
    pub axis: String,
    pub benchmarks: Vec<BenchmarkBox>,
}

#[derive(Debug, Clone)]
pub struct BenchmarkBox {
    pub name: String,
    pub runs: Vec<f64>,
    pub median: f64,
    pub ci: (f64, f64),
}

/// The experiment `id`, or the newest one with a measured benchmark.
pub fn load(store: &Store, id: Option<i64>) -> Result<Report, PlotError> {
    if let Some(id) = id {
        return Ok(metron_measure::persist::load_report(
            store,
            ExperimentId(id),
        )?);
    }
    let (rows, _) = store.experiments_lenient(None)?;
    for row in rows.into_iter().filter(|r| r.kind != "tune") {
        if let Ok(r) = metron_measure::persist::load_report(store, row.id) {
            if r.benchmarks.iter().any(|b| !b.metrics.is_empty()) {
                return Ok(r);
            }
        }
    }
    Err(PlotError::NoData(format!(
        "{}: no experiment with a successful run (make one with `metron measure -- CMD`)",
        store.path().display()
    )))
}

impl BoxFigure {
    /// The primary metric (metron's display order puts it first) of every benchmark with one.
    pub fn from_report(report: &Report) -> Result<BoxFigure, PlotError> {
        let measured: Vec<&BenchmarkReport> = report
            .benchmarks
            .iter()
            .filter(|b| !b.metrics.is_empty())
            .collect();
        let Some(first) = measured.first().map(|b| &b.metrics[0]) else {
            return Err(PlotError::NoData(
                "the experiment has no successful run to plot".into(),
            ));
        };
        let benchmarks = measured
            .iter()
            .map(|b| {
                let m = &b.metrics[0];
                BenchmarkBox {
                    name: b.display_name().to_string(),
                    runs: b
                        .runs
                        .iter()
                        .filter(|r| r.ok)
                        .filter_map(|r| r.metrics.get(&m.metric).copied())
                        .collect(),
                    median: m.summary.median,
                    ci: (m.summary.ci_median.lo, m.summary.ci_median.hi),
                }
            })
            .collect();
        let title = match &report.experiment {
            Some(e) => format!("experiment {} ({}, {})", e.id, e.kind, e.started_at),
            None => "measurements".to_string(),
        };
        Ok(BoxFigure {
            title,
            axis: format!("{} ({})", first.metric, first.unit.as_str()),
            benchmarks,
        })
    }

    pub(crate) fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult {
        let y = padded(
            self.benchmarks
                .iter()
                .flat_map(|b| b.runs.iter().copied().chain([b.ci.0, b.ci.1, b.median])),
        );
        let names: Vec<&str> = self.benchmarks.iter().map(|b| b.name.as_str()).collect();
        let mut chart = category_chart(
            root,
            &self.title,
            &names,
            y.start as f32..y.end as f32,
            &self.axis,
        )?;
        let boxes = self.benchmarks.iter().enumerate().map(|(i, b)| {
            let q = Quartiles::new(&b.runs);
            Boxplot::new_vertical(SegmentValue::CenterOf(i), &q)
                .width(40)
                .style(BLUE.stroke_width(2))
        });
        chart.draw_series(boxes).map_err(err)?;
        let cis = self.benchmarks.iter().enumerate().map(|(i, b)| {
            ErrorBar::new_vertical(
                SegmentValue::CenterOf(i),
                b.ci.0 as f32,
                b.median as f32,
                b.ci.1 as f32,
                BLACK.filled().stroke_width(2),
                12,
            )
        });
        chart.draw_series(cis).map_err(err)?;
        Ok(())
    }
}
