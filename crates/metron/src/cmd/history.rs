//! `metron history` and `metron show`: what the store holds.

use clap::Args;
use metron_store::ExperimentId;

use crate::error::{CliError, CliResult};
use crate::GlobalOpts;

#[derive(Args, Debug, Clone)]
pub struct HistoryArgs {
    /// Show only the newest N experiments.
    #[arg(long, default_value_t = 20)]
    pub last: usize,
}

#[derive(Args, Debug, Clone)]
pub struct ShowArgs {
    /// Experiment id, as `metron history` lists it.
    pub id: i64,
}

pub fn history(args: HistoryArgs, global: &GlobalOpts) -> CliResult {
    let store = super::open_store_read_only(&global.store_path())?;
    let (rows, skipped) = store
        .experiments_lenient(Some(args.last))
        .map_err(CliError::input)?;
    // One unreadable experiment must not hide the others: a note each, on stderr.
    for e in &skipped {
        eprintln!("metron: note: skipped an unreadable experiment: {e}");
    }
    if global.json {
        let text = serde_json::to_string_pretty(&rows).map_err(CliError::failure)?;
        println!("{text}");
        return Ok(());
    }
    if rows.is_empty() {
        println!("No experiments in {} yet.", store.path().display());
        return Ok(());
    }
    println!(
        "{:>5}  {:<20}  {:<8}  {:<11}  {:>5}  command",
        "id", "started (UTC)", "kind", "status", "runs"
    );
    for e in rows {
        let started: String = e.started_at.replace('T', " ").chars().take(19).collect();
        // A `running` experiment whose process is gone was interrupted.
        let status = if e.status == "running" && !process_alive(e.host.as_deref(), e.pid) {
            "interrupted".to_string()
        } else {
            e.status.clone()
        };
        println!(
            "{:>5}  {:<20}  {:<8}  {:<11}  {:>5}  {}",
            e.id.0,
            started,
            e.kind,
            status,
            e.runs,
            e.name.unwrap_or_default()
        );
    }
    Ok(())
}

/// Whether the writer of a `running` experiment still exists. Only answerable on the host that
/// wrote it (a store may live on a shared file system); elsewhere it is assumed alive.
fn process_alive(host: Option<&str>, pid: Option<i64>) -> bool {
    if host.is_some_and(|h| h != metron_measure::environment::hostname()) {
        return true;
    }
    pid.is_some_and(|p| std::path::Path::new(&format!("/proc/{p}")).exists())
}

pub fn show(args: ShowArgs, global: &GlobalOpts) -> CliResult {
    let store = super::open_store_read_only(&global.store_path())?;
    let report = metron_measure::persist::load_report(&store, ExperimentId(args.id))
        .map_err(CliError::input)?;
    super::measure::print_report(&report, global)
}
