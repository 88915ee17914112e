//! `metron probe calibrate`: 002 Tables 2.1 (cost of a start/stop pair, Listing 2.32) and
//! 2.2 (clock granularity, Listing 2.33), re-measured for every clock this machine offers.

use clap::{Args, Subcommand};
use metron_probe::calibrate;

use crate::error::CliResult;
use crate::GlobalOpts;

#[derive(Args, Debug)]
pub struct ProbeArgs {
    #[command(subcommand)]
    pub command: ProbeCommand,
}

#[derive(Subcommand, Debug)]
pub enum ProbeCommand {
    /// Granularity, read cost and enter/exit cost (with and without call tree) per clock.
    Calibrate(CalibrateArgs),
}

#[derive(Args, Debug)]
pub struct CalibrateArgs {
    /// Enter/exit pairs per repetition (the thesis uses up to 10^6).
    #[arg(long, short, default_value_t = 1_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub n: u64,
}

pub fn run(args: ProbeArgs, global: &GlobalOpts) -> CliResult {
    match args.command {
        ProbeCommand::Calibrate(a) => run_calibrate(a, global),
    }
}

fn run_calibrate(a: CalibrateArgs, global: &GlobalOpts) -> CliResult {
    if !global.quiet && !global.json {
        eprintln!(
            "calibrating clocks ({} pairs x 5 repetitions each) ...",
            a.n
        );
    }
    if cfg!(debug_assertions) && !global.quiet {
        eprintln!(
            "note: this metron is a debug build; enter/exit costs are those of unoptimised code \
             (build with --release for the real figures)"
        );
    }
    let results = calibrate::calibrate_all(a.n.max(1));
    if global.json {
        let v: Vec<serde_json::Value> = results
            .iter()
            .map(|c| {
                serde_json::json!({
                    "clock": c.clock.name(),
                    "ticks_per_ns": c.ticks_per_ns,
                    "granularity_ns": c.granularity_ns,
                    "read_ns": c.read_ns,
                    "pair_ns_call_tree": c.pair_ns_tree,
                    "pair_ns_flat": c.pair_ns_flat,
                })
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&v).unwrap_or_default());
        return Ok(());
    }
    println!(
        "{:<14} {:>10} {:>16} {:>10} {:>18} {:>18}",
        "clock", "ticks/ns", "granularity ns", "read ns", "pair ns (tree)", "pair ns (no tree)"
    );
    for c in &results {
        println!(
            "{:<14} {:>10.4} {:>16.2} {:>10.2} {:>18.2} {:>18.2}",
            c.clock.name(),
            c.ticks_per_ns,
            c.granularity_ns,
            c.read_ns,
            c.pair_ns_tree,
            c.pair_ns_flat
        );
    }
    if !global.quiet {
        println!(
            "\ngranularity: smallest nonzero step of 1000 spins (002 Listing 2.33); pair: outer \
             region over n enter/exit pairs / n (002 Listing 2.32), minimum of 5 repetitions"
        );
    }
    Ok(())
}
