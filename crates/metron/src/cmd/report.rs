//! `metron report [--store DB] [FILES...] -o report.html` (issue 19).

use std::path::PathBuf;

use clap::Args;
use serde::Serialize;

use crate::error::{CliError, CliResult};
use crate::GlobalOpts;

#[derive(Args, Debug, Clone)]
pub struct ReportArgs {
    /// metron-probe profiles (files, merged sets, or directories of them), PEP traces, and
    /// the --json outputs of metron static [validate], memory analyze|validate, contention
    /// simulate|fit|experiment and jit analyze|tau|calibrate, told apart by their content.
    pub files: Vec<PathBuf>,
    /// Tuning plots: x axis, an expression over a unit's genes (`ranks * threads`).
    #[arg(long, value_name = "EXPR")]
    pub x: Option<String>,
    /// Tuning plots: y axis expression over genes and `fitness` [default: fitness].
    #[arg(long, value_name = "EXPR", requires = "x")]
    pub y: Option<String>,
    /// Tuning plots: a z axis expression makes the scatter 3D.
    #[arg(long, value_name = "EXPR", requires = "x")]
    pub z: Option<String>,
    /// Where to write the HTML (written whole: a temporary file renamed into place).
    #[arg(short, long, default_value = "metron-report.html")]
    pub output: PathBuf,
}

#[derive(Serialize)]
struct Written<'a> {
    path: &'a std::path::Path,
    bytes: u64,
    sections: Vec<metron_report::SectionKind>,
    notes: &'a [String],
}

pub fn run(args: ReportArgs, global: &GlobalOpts) -> CliResult {
    // The default store may not exist yet (the report then says so); a named one must.
    let store_path = global.store_path();
    let store = if global.store.is_some() || store_path.exists() {
        Some(super::open_store_read_only(&store_path)?)
    } else {
        None
    };
    let tuning_axes = metron_report::section::tuning::Axes {
        x: args.x,
        y: args.y,
        z: args.z,
    };
    tuning_axes
        .check()
        .map_err(|e| CliError::input(format!("--x/--y/--z: {e}")))?;
    let inputs = metron_report::Inputs {
        store: store.as_ref(),
        files: args.files,
        tuning_axes,
    };
    let report = metron_report::collect(&inputs).map_err(CliError::input)?;
    let bytes = metron_report::write(&report, &args.output).map_err(CliError::input)?;
    let written = Written {
        path: &args.output,
        bytes,
        sections: report.sections.iter().map(|s| s.kind).collect(),
        notes: &report.notes,
    };
    if global.json {
        let text = serde_json::to_string_pretty(&written).map_err(CliError::failure)?;
        println!("{text}");
    } else if !global.quiet {
        print_written(&written);
    }
    Ok(())
}

fn print_written(w: &Written) {
    let kinds: Vec<&str> = w.sections.iter().map(|k| k.title()).collect();
    let what = if kinds.is_empty() {
        "nothing to report yet".to_string()
    } else {
        kinds.join(", ")
    };
    println!(
        "Wrote {} ({:.1} MB): {what}",
        w.path.display(),
        w.bytes as f64 / 1e6
    );
    for n in w.notes {
        eprintln!("metron: note: {n}");
    }
}
