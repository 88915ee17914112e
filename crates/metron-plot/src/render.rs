//! Drawing a [`Figure`] on plotters' SVG or bitmap backend, written whole: into a temporary
//! file next to the target, renamed into place once the backend has finished.

use std::ops::Range;
use std::path::Path;
use std::sync::Once;

use plotters::coord::ranged1d::{AsRangedCoord, SegmentedCoord, ValueFormatter};
use plotters::coord::types::RangedCoordusize;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

use crate::{Figure, Format, PlotError, Size, Written};

/// DejaVu Sans 2.37 (Bitstream Vera licence, fonts/DejaVuSans-LICENSE.txt).
const FONT: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");
static FONT_ONCE: Once = Once::new();

/// plotters' default text style asks for `sans-serif`; ab_glyph finds it among the fonts
/// registered here, never on the system.
fn register_embedded_font() {
    FONT_ONCE.call_once(|| {
        for style in [FontStyle::Normal, FontStyle::Bold] {
            // The bytes are compiled in; a parse failure would be a broken build.
            if register_font("sans-serif", style, FONT).is_err() {
                unreachable!("the embedded DejaVu Sans does not parse");
            }
        }
    });
}

pub(crate) type DrawResult = Result<(), String>;

/// Any plotters error as text (their error types are generic over the backend).
pub(crate) fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// Draws `figure` into `path` (.svg or .png) at `size`.
pub fn render(figure: &Figure, path: &Path, size: Size) -> Result<Written, PlotError> {
    let format = Format::of(path)?;
    register_embedded_font();
    let write_err = |message: String| PlotError::Write {
        path: path.to_path_buf(),
        message,
    };
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    // The bitmap backend picks the encoder from the extension, so the temporary keeps it.
    let tmp = tempfile::Builder::new()
        .prefix(".metron-plot")
        .suffix(&format!(".{}", format.extension()))
        .tempfile_in(dir)
        .map_err(|e| write_err(e.to_string()))?;
    let dims = (size.width, size.height);
    match format {
        Format::Svg => draw_on(
            SVGBackend::new(tmp.path(), dims).into_drawing_area(),
            figure,
        ),
        Format::Png => draw_on(
            BitMapBackend::new(tmp.path(), dims).into_drawing_area(),
            figure,
        ),
    }
    .map_err(write_err)?;
    std::fs::set_permissions(
        tmp.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o644),
    )
    .map_err(|e| write_err(e.to_string()))?;
    tmp.persist(path)
        .map_err(|e| write_err(e.error.to_string()))?;
    Ok(Written {
        path: path.to_path_buf(),
        format,
        width: size.width,
        height: size.height,
        marks: figure.marks(),
    })
}

fn draw_on<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, figure: &Figure) -> DrawResult {
    root.fill(&WHITE).map_err(err)?;
    match figure {
        Figure::Measurements(f) => f.draw(&root)?,
        Figure::Profile(f) => f.draw(&root)?,
        Figure::Tuning(f) => f.draw(&root)?,
        Figure::Pep(f) => f.draw(&root)?,
    }
    root.present().map_err(err)
}

/// The range of `values` with 5% room on each side (a unit-wide one around a constant).
pub(crate) fn padded(values: impl IntoIterator<Item = f64>) -> Range<f64> {
    let (lo, hi) = values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if !lo.is_finite() {
        return 0.0..1.0;
    }
    if hi - lo <= f64::EPSILON * lo.abs().max(1.0) {
        let half = (lo.abs() * 0.1).max(0.5);
        return lo - half..hi + half;
    }
    let pad = (hi - lo) * 0.05;
    lo - pad..hi + pad
}

/// Tick labels and axis titles: readable when a figure is scaled to a column's width.
pub(crate) const LABEL: (&str, u32) = ("sans-serif", 14);

/// The font of every figure's caption.
pub(crate) fn caption_font() -> (&'static str, u32) {
    ("sans-serif", 20)
}

/// The x axis of the measurement and profile charts: one category per name.
pub(crate) type Categories = SegmentedCoord<RangedCoordusize>;

/// A chart with one labelled category per name along x and `y` up the side, mesh drawn.
pub(crate) fn category_chart<'a, DB, Y>(
    root: &'a DrawingArea<DB, Shift>,
    title: &str,
    names: &[&str],
    y: Y,
    y_desc: &str,
) -> Result<ChartContext<'a, DB, Cartesian2d<Categories, Y::CoordDescType>>, String>
where
    DB: DrawingBackend,
    Y: AsRangedCoord,
    Y::CoordDescType: ValueFormatter<<Y::CoordDescType as Ranged>::ValueType>,
{
    let n = names.len();
    let mut chart = ChartBuilder::on(root)
        .caption(title, caption_font())
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d((0..n.max(1) - 1).into_segmented(), y)
        .map_err(err)?;
    chart
        .configure_mesh()
        .label_style(LABEL)
        .axis_desc_style(LABEL)
        .disable_x_mesh()
        .light_line_style(TRANSPARENT)
        .y_desc(y_desc)
        .x_labels(n)
        .x_label_formatter(&|v| match v {
            SegmentValue::CenterOf(i) => names.get(*i).map_or(String::new(), |s| shorten(s)),
            _ => String::new(),
        })
        .draw()
        .map_err(err)?;
    Ok(chart)
}

/// Long command lines make unreadable axis labels.
pub(crate) fn shorten(s: &str) -> String {
    const MAX: usize = 28;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        let head: String = s.chars().take(MAX - 1).collect();
        format!("{head}…")
    }
}
