//! The `metron` binary: argument parsing and printing only. Every capability is a library
//! function in one of the `metron-*` crates (ARCHITECTURE.md).

mod cmd;
mod error;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use error::CliResult;

/// Measure, model, predict and tune the performance of programs.
#[derive(Parser, Debug)]
#[command(name = "metron", version, about, propagate_version = true)]
struct Cli {
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
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Tracing-JIT (PyPy) logs: fragments, frequencies, cost models (001)
    Jit(cmd::jit::JitArgs),
}

fn run(cli: Cli) -> CliResult {
    match cli.command {
        Command::Jit(args) => cmd::jit::run(args, &cli.global),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("metron: error: {e}");
            e.exit_code()
        }
    }
}
