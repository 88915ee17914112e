//! `metron plot KIND ... -o fig.svg|png`: the report's charts as static figures for papers,
//! without a browser (issue 19, "Static figures"). Drawn with plotters' SVG and bitmap
//! backends only; text is laid out with an embedded DejaVu Sans through ab_glyph, so no font
//! system library is needed and a figure looks the same on every machine.
//!
//! Each kind turns the typed results of another crate (metron-measure's reports, metron-probe's
//! profiles, metron-store's tuning rows, metron-pep's traces) into a figure struct, which
//! [`render`] draws. This crate does not know the HTML report.

pub mod measurement;
pub mod pep;
pub mod profile;
mod render;
pub mod tuning;

use std::path::{Path, PathBuf};

use serde::Serialize;

pub use render::render;

#[derive(Debug, thiserror::Error)]
pub enum PlotError {
    #[error(transparent)]
    Store(#[from] metron_store::StoreError),
    #[error(transparent)]
    Measure(#[from] metron_measure::MeasureError),
    #[error(transparent)]
    Profile(#[from] metron_probe::analysis::AnalysisError),
    #[error(transparent)]
    Pep(#[from] metron_pep::PepError),
    /// The input holds nothing of the kind asked for (`what` says what was looked for where).
    #[error("{0}")]
    NoData(String),
    #[error("{expr}: {message}")]
    Expression { expr: String, message: String },
    #[error("{path}: expected a file name ending in .svg or .png")]
    Format { path: PathBuf },
    #[error("cannot write {path}: {message}")]
    Write { path: PathBuf, message: String },
}

/// The output format, from the file name's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Svg,
    Png,
}

impl Format {
    pub fn of(path: &Path) -> Result<Format, PlotError> {
        let ext = path.extension().map(|e| e.to_ascii_lowercase());
        match ext.as_ref().and_then(|e| e.to_str()) {
            Some("svg") => Ok(Format::Svg),
            Some("png") => Ok(Format::Png),
            _ => Err(PlotError::Format {
                path: path.to_path_buf(),
            }),
        }
    }

    fn extension(self) -> &'static str {
        match self {
            Format::Svg => "svg",
            Format::Png => "png",
        }
    }
}

/// One figure of any kind, ready to draw.
#[derive(Debug, Clone)]
pub enum Figure {
    Measurements(measurement::BoxFigure),
    Profile(profile::BarFigure),
    Tuning(tuning::ScatterFigure),
    Pep(pep::SeriesFigure),
}

impl Figure {
    /// The data marks the figure draws (boxes and CI bars, bars, points, lines), which the
    /// CLI reports and the tests count in the SVG.
    pub fn marks(&self) -> usize {
        match self {
            Figure::Measurements(f) => 2 * f.benchmarks.len(),
            Figure::Profile(f) => f.values.iter().flatten().flatten().count(),
            Figure::Tuning(f) => f.points.len(),
            Figure::Pep(f) => f.panels.len(),
        }
    }
}

/// What was written.
#[derive(Debug, Clone, Serialize)]
pub struct Written {
    pub path: PathBuf,
    pub format: Format,
    pub width: u32,
    pub height: u32,
    pub marks: usize,
}

/// Pixel size of a figure (SVG user units or PNG pixels).
#[derive(Debug, Clone, Copy)]
pub struct Size {
    pub width: u32,
    pub height: u32,
}

impl Default for Size {
    fn default() -> Size {
        Size {
            width: 900,
            height: 560,
        }
    }
}
