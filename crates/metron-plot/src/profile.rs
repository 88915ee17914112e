//! Profiles from metron-probe: inclusive time per region, one bar per rank or thread, grouped
//! by region (the regions × ranks projection of 002 Fig. 2.1, as 002 §2.8's visualiser draws it).

use std::path::{Path, PathBuf};

use metron_probe::analysis::{flat_table, Strategy};
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::render::{category_chart, err, shorten, DrawResult};
use crate::PlotError;

const NS_PER_MS: f64 = 1e6;
/// Ranks drawn per region; more make bars thinner than a pixel. The title says when cut.
const MAX_UNITS: usize = 32;
const LEGEND_WIDTH: u32 = 110;
const LEGEND_ROWS: usize = 24;

#[derive(Debug, Clone)]
pub struct BarFigure {
    pub title: String,
    pub regions: Vec<String>,
    pub units: Vec<String>,
    /// `values[region][unit]`: inclusive ms, `None` where the region never ran there.
    pub values: Vec<Vec<Option<f64>>>,
}

impl BarFigure {
    /// A profile file, a merged set, or a directory of per-rank files.
    pub fn load(path: &Path) -> Result<BarFigure, PlotError> {
        let set = metron_probe::analysis::load(path)?;
        let table = flat_table(&set, Strategy::Max);
        if table.rows.is_empty() {
            return Err(PlotError::NoData(format!(
                "{}: the profile has no region",
                path.display()
            )));
        }
        let n = table.units.len().min(MAX_UNITS);
        let cut = if table.units.len() > n {
            format!(" (first {n} of {} ranks)", table.units.len())
        } else {
            String::new()
        };
        Ok(BarFigure {
            title: format!("{}: inclusive time per region{cut}", file_name(path)),
            regions: table.rows.iter().map(|r| r.name.clone()).collect(),
            units: table
                .units
                .iter()
                .take(n)
                .map(|u| u.label.clone())
                .collect(),
            values: table
                .rows
                .iter()
                .map(|r| {
                    let ms = |v: &Option<f64>| v.map(|ns| ns / NS_PER_MS);
                    r.per_unit_ns.iter().take(n).map(ms).collect()
                })
                .collect(),
        })
    }

    pub(crate) fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult {
        let top = self
            .values
            .iter()
            .flatten()
            .flatten()
            .fold(0.0f64, |a, &b| a.max(b));
        let top = if top > 0.0 { top * 1.08 } else { 1.0 };
        let names: Vec<&str> = self.regions.iter().map(String::as_str).collect();
        let y = "inclusive time (ms)";
        // Several ranks get a legend in a strip on the right, outside the bars.
        let (w, _) = root.dim_in_pixel();
        let (area, strip) = root.split_horizontally(if self.units.len() > 1 {
            w.saturating_sub(LEGEND_WIDTH)
        } else {
            w
        });
        let chart = category_chart(&area, &self.title, &names, 0.0..top, y)?;
        // Bars sit side by side inside their region's segment: placed in pixels, from the
        // segment's edges as the chart maps them.
        let units = self.units.len().max(1);
        for (i, row) in self.values.iter().enumerate() {
            let (x0, _) = chart.backend_coord(&(SegmentValue::Exact(i), 0.0));
            let (x1, base) = chart.backend_coord(&(SegmentValue::Exact(i + 1), 0.0));
            let inner = (x1 - x0) as f64 * 0.8;
            let left = x0 as f64 + (x1 - x0) as f64 * 0.1;
            for (u, v) in row.iter().enumerate() {
                let Some(v) = v else { continue };
                let (_, y) = chart.backend_coord(&(SegmentValue::Exact(i), *v));
                let a = left + inner * u as f64 / units as f64;
                let b = left + inner * (u + 1) as f64 / units as f64;
                let bar = Rectangle::new(
                    [
                        (a.round() as i32, y),
                        ((b.round() as i32).max(a.round() as i32 + 1), base),
                    ],
                    Palette99::pick(u).filled(),
                );
                root.draw(&bar).map_err(err)?;
            }
        }
        if self.units.len() > 1 {
            legend(&strip, &self.units)?;
        }
        Ok(())
    }
}

/// Unit names in their bars' colours (text only: no extra shapes among the bars).
fn legend<DB: DrawingBackend>(strip: &DrawingArea<DB, Shift>, units: &[String]) -> DrawResult {
    let shown = units.len().min(LEGEND_ROWS);
    for (u, name) in units.iter().enumerate().take(shown) {
        let colour = Palette99::pick(u);
        let style = TextStyle::from(("sans-serif", 14).into_font()).color(&colour);
        strip
            .draw(&Text::new(shorten(name), (8, 48 + 18 * u as i32), style))
            .map_err(err)?;
    }
    if units.len() > shown {
        let more = format!("+{} more", units.len() - shown);
        let at = (8, 48 + 18 * shown as i32);
        strip
            .draw(&Text::new(more, at, ("sans-serif", 14).into_font()))
            .map_err(err)?;
    }
    Ok(())
}

/// The last two parts of a path: `unit/profile` says more than `profile`.
pub(crate) fn file_name(path: &Path) -> String {
    let parts: Vec<_> = path.components().rev().take(2).collect();
    let tail: PathBuf = parts.into_iter().rev().collect();
    tail.display().to_string()
}
