//! `metron doctor`: which external tools metron found, where, at which version, what needs
//! them, and the install line for what is missing; then the counters perf_event offers.

use clap::Args;
use metron_measure::tool::{doctor, Doctor};

use crate::error::{CliError, CliResult};
use crate::GlobalOpts;

#[derive(Args, Debug, Clone)]
pub struct DoctorArgs {}

/// Exit code 1 when a tool is missing, so that scripts can ask `metron doctor -q`.
pub fn run(_args: DoctorArgs, global: &GlobalOpts) -> CliResult {
    let report = doctor();
    if global.json {
        let text = serde_json::to_string_pretty(&report).map_err(CliError::failure)?;
        println!("{text}");
    } else if !global.quiet {
        print_table(&report);
    }
    match report.install_line() {
        None => Ok(()),
        Some(line) => Err(CliError::failure(format!(
            "some tools are missing; install them with: {line} (or run scripts/install-deps)"
        ))),
    }
}

fn print_table(report: &Doctor) {
    println!(
        "{:<11} {:<8} {:<9} {:<26} NEEDED BY",
        "TOOL", "STATUS", "VERSION", "PATH"
    );
    for t in &report.tools {
        let (status, version, path) = match &t.resolved {
            Some(r) => (
                "ok",
                r.version.clone().unwrap_or_else(|| "?".into()),
                r.path.display().to_string(),
            ),
            None => ("MISSING", "-".into(), "-".into()),
        };
        println!(
            "{:<11} {:<8} {:<9} {:<26} {}",
            t.program,
            status,
            version,
            path,
            t.needed_by.join(", ")
        );
    }
    for t in report.tools.iter().filter(|t| t.resolved.is_none()) {
        if let Some(problem) = &t.problem {
            println!("  {}: {problem}", t.program);
        }
    }
    let c = &report.counters;
    println!("\nperf_event counters available: {}", list(&c.available));
    if !c.unavailable.is_empty() {
        let names: Vec<String> = c.unavailable.iter().map(|u| u.name.clone()).collect();
        println!("not available here: {}", list(&names));
        if let Some(u) = c.unavailable.first() {
            println!("  ({})", u.reason);
        }
    }
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}
