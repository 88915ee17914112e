//! PEP traces (000 Ch. 3): the rate Δ(M)/Δ(T) of every member event over the sampling time,
//! one panel per event of the group, the PELT segments of `metron pep show` shaded.

use std::path::Path;

use metron_pep::changepoint::PeltConfig;
use metron_pep::profile::ProfileGroup;
use metron_pep::summary::summarise;
use plotters::coord::Shift;
use plotters::prelude::*;

use crate::profile::file_name;
use crate::render::{caption_font, err, padded, DrawResult, LABEL};
use crate::PlotError;

/// Points per panel; longer traces are thinned by a fixed stride (the title says so).
const MAX_POINTS: usize = 5_000;

#[derive(Debug, Clone)]
pub struct SeriesFigure {
    pub title: String,
    pub time: String,
    /// One panel per member event: its name and (time, rate) samples.
    pub panels: Vec<(String, Vec<(f64, f64)>)>,
    /// Detected regions as time spans.
    pub segments: Vec<(f64, f64)>,
}

impl SeriesFigure {
    /// Trace `index` (from 0) of a PEP trace file.
    pub fn load(path: &Path, index: usize) -> Result<SeriesFigure, PlotError> {
        let traces = metron_pep::trace::read_file(path)?;
        let usable = traces.len();
        let Some(t) = traces.into_iter().nth(index) else {
            return Err(PlotError::NoData(format!(
                "{}: no trace {index} (the file holds {usable}, numbered from 0)",
                path.display()
            )));
        };
        if t.rows.len() < 2 || t.events.len() < 2 {
            return Err(PlotError::NoData(format!(
                "{}: trace {index} needs two samples and a member event to show rates",
                path.display()
            )));
        }
        let g = ProfileGroup::from_trace(&t);
        let summary = summarise(&t, None, PeltConfig::default());
        let stride = g.len().div_ceil(MAX_POINTS).max(1);
        let times: Vec<f64> = g.times.iter().step_by(stride).map(|&v| v as f64).collect();
        let panels = g
            .events
            .iter()
            .zip(g.rates())
            .map(|(event, rate)| {
                let rate = rate.iter().step_by(stride).copied();
                (event.clone(), times.iter().copied().zip(rate).collect())
            })
            .collect();
        let n = &t.name;
        let thinned = if stride > 1 {
            format!(", every {stride}th sample")
        } else {
            String::new()
        };
        Ok(SeriesFigure {
            title: format!(
                "{}: {} {} (process {}, threads {}){thinned}",
                file_name(path),
                n.benchmark,
                n.version,
                n.process,
                n.threads
            ),
            time: g.time_event.clone(),
            panels,
            segments: summary
                .segments
                .iter()
                .map(|s| (s.region.start_time as f64, s.region.end_time as f64))
                .collect(),
        })
    }

    pub(crate) fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult {
        let root = root.titled(&self.title, caption_font()).map_err(err)?;
        let panels = root.split_evenly((self.panels.len(), 1));
        let xs = padded(self.panels.iter().flat_map(|(_, s)| s.iter().map(|p| p.0)));
        for (k, (area, (event, samples))) in panels.iter().zip(&self.panels).enumerate() {
            let ys = padded(samples.iter().map(|p| p.1));
            let last = k + 1 == self.panels.len();
            let mut chart = ChartBuilder::on(area)
                .caption(event.as_str(), ("sans-serif", 13))
                .margin(6)
                .x_label_area_size(if last { 36 } else { 8 })
                .y_label_area_size(80)
                .build_cartesian_2d(xs.clone(), ys.clone())
                .map_err(err)?;
            let mut mesh = chart.configure_mesh();
            mesh.label_style(LABEL)
                .axis_desc_style(LABEL)
                .y_labels(4)
                .light_line_style(TRANSPARENT);
            if last {
                mesh.x_desc(self.time.as_str());
            } else {
                mesh.x_labels(0);
            }
            mesh.draw().map_err(err)?;
            let shade = self.segments.iter().enumerate().map(|(i, &(a, b))| {
                let colour = if i % 2 == 0 { BLUE } else { RED };
                Rectangle::new([(a, ys.start), (b, ys.end)], colour.mix(0.08).filled())
            });
            chart.draw_series(shade).map_err(err)?;
            chart
                .draw_series(LineSeries::new(
                    samples.iter().copied(),
                    Palette99::pick(k).stroke_width(1),
                ))
                .map_err(err)?;
        }
        Ok(())
    }
}
