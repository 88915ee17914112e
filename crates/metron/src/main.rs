//! The `metron` binary: argument parsing and printing only. Every capability is a library
//! function in one of the `metron-*` crates (ARCHITECTURE.md).

mod cmd;
mod error;
mod progress;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use error::CliResult;

/// Measure, model, predict and tune the performance of programs.
#[derive(Parser, Debug)]
#[command(name = "metron", version, about, propagate_version = true)]
pub(crate) struct Cli {
    #[command(flatten)]
    global: GlobalOpts,
    #[command(subcommand)]
    command: Command,
}

/// Options every subcommand understands.
#[derive(clap::Args, Debug, Clone)]
pub struct GlobalOpts {
    /// Print machine-readable JSON instead of tables.
    #[arg(long, global = true)]
    pub json: bool,
    /// Print nothing but results and errors (no progress bars, no notes).
    #[arg(long, short = 'q', global = true)]
    pub quiet: bool,
    /// The experiment store [default: .metron/metron.db].
    #[arg(long, global = true, env = "METRON_STORE", value_name = "PATH")]
    pub store: Option<std::path::PathBuf>,
}

impl GlobalOpts {
    pub fn store_path(&self) -> std::path::PathBuf {
        self.store.clone().unwrap_or_else(cmd::default_store)
    }
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run a command as an experiment: warm-up, repeated runs, counters, bootstrap CIs.
    Measure(cmd::measure::MeasureArgs),
    /// List the experiments in the store.
    History(cmd::history::HistoryArgs),
    /// Print a stored experiment again.
    Show(cmd::history::ShowArgs),
    /// Show, merge and export metron-probe profiles.
    Profile(cmd::profile::ProfileArgs),
    /// The probe library's own measurements (clock calibration).
    Probe(cmd::probe::ProbeArgs),
    /// Cost models from tracing-JIT logs (PyPy): fragments, frequencies, CM0/CMC/CMW (001).
    Jit(cmd::jit::JitArgs),
    /// Static memory-access counts on LLVM IR, with traced ground truth (003).
    Memory(cmd::memory::MemoryArgs),
    /// Access-conflict models and the memory-bank contention simulator (003).
    Contention(cmd::contention::ContentionArgs),
    /// MATLAB/Octave: execution model, source-to-source passes, proof on Octave.
    #[command(subcommand)]
    Matlab(cmd::matlab::MatlabCommand),
    /// Static instruction-count models from binary + source (004); `static validate` checks them.
    Static(cmd::static_::StaticArgs),
    /// Performance event profiles: sampled counter groups over time, execution regions (000 Ch. 3).
    Pep(cmd::pep::PepArgs),
    /// Generate-build-run campaigns, the genetic tuner, replay and the processing tool (002).
    Tune(cmd::tune::TuneArgs),
    /// One self-contained interactive HTML report of the store and of profile files.
    Report(cmd::report::ReportArgs),
    /// Static figures (SVG or PNG) of the report's charts, for papers.
    Plot(cmd::plot::PlotArgs),
    /// Run what metron can do on small bundled examples.
    Demo(cmd::demo::DemoArgs),
    /// List the external tools metron uses: found where, which version, what needs them, how to install.
    Doctor(cmd::doctor::DoctorArgs),
}

pub(crate) fn run(cli: Cli) -> CliResult {
    let g = &cli.global;
    match cli.command {
        Command::Measure(a) => cmd::measure::run(a, g),
        Command::History(a) => cmd::history::history(a, g),
        Command::Show(a) => cmd::history::show(a, g),
        Command::Profile(a) => cmd::profile::run(a, g),
        Command::Probe(a) => cmd::probe::run(a, g),
        Command::Jit(a) => cmd::jit::run(a, g),
        Command::Memory(a) => cmd::memory::run(a, g),
        Command::Contention(a) => cmd::contention::run(a, g),
        Command::Matlab(a) => cmd::matlab::run(a, g),
        Command::Static(a) => cmd::static_::run(a, g),
        Command::Pep(a) => cmd::pep::run(a, g),
        Command::Tune(a) => cmd::tune::run(a, g),
        Command::Demo(a) => cmd::demo::run(a, g),
        Command::Doctor(a) => cmd::doctor::run(a, g),
        Command::Report(a) => cmd::report::run(a, g),
        Command::Plot(a) => cmd::plot::run(a, g),
    }
}

fn main() -> ExitCode {
    // `metron ... | head` should end quietly, as other Unix tools do, not panic in println!.
    // SAFETY: resetting a signal disposition before any thread exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("metron: error: {e}");
            e.exit_code()
        }
    }
}
