//! `metron plot KIND ... -o fig.svg|png` (issue 19, "Static figures"): one chart of the
//! report as a file, drawn by metron-plot without a browser.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use metron_plot::{measurement, pep, profile, tuning, Figure, PlotError, Size};

use crate::error::{CliError, CliResult};
use crate::GlobalOpts;

#[derive(Args, Debug, Clone)]
pub struct PlotArgs {
    #[command(subcommand)]
    pub kind: PlotKind,
    /// The figure file; its extension (.svg or .png) chooses the format.
    #[arg(short, long, global = true)]
    pub output: Option<PathBuf>,
    /// Width in pixels (SVG user units).
    #[arg(long, default_value_t = 900, global = true)]
    pub width: u32,
    /// Height in pixels (SVG user units).
    #[arg(long, default_value_t = 560, global = true)]
    pub height: u32,
}

#[derive(Subcommand, Debug, Clone)]
pub enum PlotKind {
    /// Box of the runs and the median's bootstrap 95% CI per benchmark of a stored experiment.
    Measurements {
        /// The experiment id (`metron history`); default: the newest with a successful run.
        #[arg(long)]
        experiment: Option<i64>,
    },
    /// Inclusive time per region and rank of a metron-probe profile (file or directory).
    Profile { file: PathBuf },
    /// The units of a tuning campaign at (x, y), expressions over genes and `fitness`.
    Tuning {
        /// The library of the campaign; default: that of the newest `metron tune` experiment.
        #[arg(long)]
        library: Option<String>,
        /// x axis expression, e.g. `ranks * threads`; default: the first gene that varies.
        #[arg(long)]
        x: Option<String>,
        /// y axis expression.
        #[arg(long, default_value = "fitness")]
        y: String,
    },
    /// Event rates over time of a PEP trace, one panel per event, regions shaded.
    Pep {
        file: PathBuf,
        /// Which trace of the file, from 0.
        #[arg(long, default_value_t = 0)]
        trace: usize,
    },
}

pub fn run(args: PlotArgs, global: &GlobalOpts) -> CliResult {
    let Some(output) = args.output.clone() else {
        return Err(CliError::input(
            "metron plot needs -o FILE.svg or -o FILE.png",
        ));
    };
    // Checked before any work, so a typo costs nothing.
    metron_plot::Format::of(&output).map_err(CliError::input)?;
    let figure = figure(&args.kind, global).map_err(plot_error)?;
    let size = Size {
        width: args.width.clamp(64, 16_384),
        height: args.height.clamp(64, 16_384),
    };
    let written = metron_plot::render(&figure, &output, size).map_err(plot_error)?;
    if global.json {
        let text = serde_json::to_string_pretty(&written).map_err(CliError::failure)?;
        println!("{text}");
    } else if !global.quiet {
        println!(
            "Wrote {} ({}x{}, {} marks)",
            written.path.display(),
            written.width,
            written.height,
            written.marks
        );
    }
    Ok(())
}

fn figure(kind: &PlotKind, global: &GlobalOpts) -> Result<Figure, PlotError> {
    let store = || {
        let path = global.store_path();
        metron_store::Store::open_read_only(&path)
    };
    Ok(match kind {
        PlotKind::Measurements { experiment } => {
            let report = measurement::load(&store()?, *experiment)?;
            Figure::Measurements(measurement::BoxFigure::from_report(&report)?)
        }
        PlotKind::Profile { file } => Figure::Profile(profile::BarFigure::load(file)?),
        PlotKind::Tuning { library, x, y } => {
            let campaign = tuning::Campaign::load(&store()?, library.as_deref())?;
            let x = match x {
                Some(x) => x.clone(),
                None => campaign.first_varying_gene().ok_or_else(|| {
                    PlotError::NoData(format!(
                        "library {}: no numeric gene varies; give the x axis with --x EXPR",
                        campaign.library
                    ))
                })?,
            };
            Figure::Tuning(tuning::ScatterFigure::from_campaign(&campaign, &x, y)?)
        }
        PlotKind::Pep { file, trace } => Figure::Pep(pep::SeriesFigure::load(file, *trace)?),
    })
}

/// Bad input (a file, the store, an expression) exits 2; a failed write is the machine's.
fn plot_error(e: PlotError) -> CliError {
    match e {
        PlotError::Write { .. } => CliError::failure(e),
        e => CliError::input(e),
    }
}
