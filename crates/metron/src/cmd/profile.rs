//! `metron profile show|merge|export`: reading what metron-probe wrote (002 §2.7-2.8, §3.4).

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand, ValueEnum};
use metron_probe::analysis::{self, ProfileSet, Strategy};

use crate::error::{CliError, CliResult};
use crate::GlobalOpts;

#[derive(Args, Debug)]
pub struct ProfileArgs {
    #[command(subcommand)]
    pub command: ProfileCommand,
}

#[derive(Subcommand, Debug)]
pub enum ProfileCommand {
    /// Flat table, call tree, per-rank columns and load imbalance of a profile, a merged
    /// profile or a directory of per-rank profiles (METRON_PROFILE_DIR).
    Show(ShowArgs),
    /// Combine per-rank profiles (files or directories) into one file.
    Merge(MergeArgs),
    /// Write a profile in another tool's format.
    Export(ExportArgs),
}

/// How one value is chosen across ranks and threads (002 §3.4).
#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum Across {
    Min,
    Max,
    Avg,
    Sum,
}

impl From<Across> for Strategy {
    fn from(a: Across) -> Strategy {
        match a {
            Across::Min => Strategy::Min,
            Across::Max => Strategy::Max,
            Across::Avg => Strategy::Avg,
            Across::Sum => Strategy::Sum,
        }
    }
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// Profile file, merged file, or directory of *.json profiles.
    pub path: PathBuf,
    /// Strategy across ranks and threads for the "across" column and the tree.
    #[arg(long, value_enum, default_value = "max")]
    pub across: Across,
    /// Show only the flat table.
    #[arg(long, conflicts_with = "tree")]
    pub flat: bool,
    /// Show only the call tree.
    #[arg(long)]
    pub tree: bool,
    /// Per-rank columns are shown up to this many ranks/threads.
    #[arg(long, default_value_t = 8)]
    pub max_columns: usize,
}

#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Profile files or directories.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Output file (default: standard output).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("format").required(true)))]
pub struct ExportArgs {
    pub path: PathBuf,
    /// Folded stacks (`a;b;c ns`) for flamegraph.pl, inferno, speedscope.
    #[arg(long, group = "format")]
    pub folded: bool,
    /// Chrome trace-event JSON drawn from the call tree (Perfetto, chrome://tracing).
    #[arg(long, group = "format")]
    pub chrome: bool,
    /// Long-format CSV, one row per rank, thread and region.
    #[arg(long, group = "format")]
    pub csv: bool,
    /// The thesis's CSV layouts (002 Listings 2.34-2.35): timers, a blank line, call stacks.
    #[arg(long, group = "format")]
    pub thesis_csv: bool,
    /// Output file (default: standard output).
    #[arg(long, short)]
    pub output: Option<PathBuf>,
}

pub fn run(args: ProfileArgs, global: &GlobalOpts) -> CliResult {
    match args.command {
        ProfileCommand::Show(a) => show(a, global),
        ProfileCommand::Merge(a) => merge(a, global),
        ProfileCommand::Export(a) => export(a),
    }
}

fn load(path: &Path) -> CliResult<ProfileSet> {
    if !path.exists() {
        return Err(CliError::input(format!(
            "{}: no such file or directory (expected a metron-probe profile or a directory of them)",
            path.display()
        )));
    }
    analysis::load(path).map_err(CliError::input)
}

fn emit(text: &str, output: Option<&Path>) -> CliResult {
    match output {
        // A path that cannot be written is the user's input: exit 2.
        Some(p) => std::fs::write(p, text)
            .map_err(|e| CliError::input(format!("cannot write {}: {e}", p.display()))),
        None => {
            use std::io::Write as _;
            // A closed pipe (`| head`) is the reader's choice, not a failure.
            match std::io::stdout().lock().write_all(text.as_bytes()) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(CliError::failure(
                    format!("cannot write to standard output: {e}"),
                )),
                _ => Ok(()),
            }
        }
    }
}

fn merge(a: MergeArgs, global: &GlobalOpts) -> CliResult {
    let sets = a
        .inputs
        .iter()
        .map(|p| load(p))
        .collect::<CliResult<Vec<_>>>()?;
    let merged = analysis::merge(sets);
    emit(&analysis::to_json(&merged), a.output.as_deref())?;
    if !global.quiet {
        if let Some(o) = &a.output {
            eprintln!(
                "merged {} profile(s) into {}",
                merged.profiles.len(),
                o.display()
            );
        }
    }
    Ok(())
}

fn export(a: ExportArgs) -> CliResult {
    let set = load(&a.path)?;
    let text = if a.folded {
        analysis::to_folded(&set)
    } else if a.chrome {
        analysis::to_chrome(&set)
    } else if a.csv {
        analysis::to_csv(&set)
    } else {
        let (timers, stacks) = analysis::to_thesis_csv(&set);
        format!("{timers}\n{stacks}")
    };
    emit(&text, a.output.as_deref())
}

/// `writeln!` into the output buffer (writing to a String cannot fail).
macro_rules! outln {
    ($out:expr, $($arg:tt)*) => {{
        use std::fmt::Write as _;
        let _ = writeln!($out, $($arg)*);
    }};
}

/// Milliseconds with three significant decimals: the thesis's unit (002 §2.6).
fn ms(ns: f64) -> String {
    format!("{:.3}", ns * 1e-6)
}

fn show(a: ShowArgs, global: &GlobalOpts) -> CliResult {
    let set = load(&a.path)?;
    let strategy: Strategy = a.across.into();
    let flat = analysis::flat_table(&set, strategy);
    // --flat does not pay for the tree.
    let tree = if a.flat {
        Vec::new()
    } else {
        analysis::call_tree(&set, strategy)
    };
    let problems: Vec<String> = set
        .profiles
        .iter()
        .flat_map(|p| {
            let rank = p.rank.map_or("-".to_string(), |r| r.to_string());
            p.problems()
                .into_iter()
                .map(move |m| format!("rank {rank}, {m}"))
        })
        .collect();
    if global.json {
        let v = serde_json::json!({ "flat": flat, "tree": tree, "problems": problems });
        return emit(
            &(serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"),
            None,
        );
    }
    let mut out = String::new();
    let units = &flat.units;
    let first = &set.profiles[0];
    let clocks: std::collections::BTreeSet<String> = set
        .profiles
        .iter()
        .map(|p| {
            format!(
                "{} (granularity {:.1} ns)",
                p.clock.name, p.clock.granularity_ns
            )
        })
        .collect();
    let hosts: std::collections::BTreeSet<&str> =
        set.profiles.iter().map(|p| p.host.as_str()).collect();
    outln!(
        out,
        "{}: {} process(es), {} thread(s), clock {}, host(s) {}",
        a.path.display(),
        set.profiles.len(),
        units.len(),
        clocks.into_iter().collect::<Vec<_>>().join(", "),
        hosts.into_iter().collect::<Vec<_>>().join(", ")
    );
    if !first.cmdline.is_empty() {
        outln!(out, "command: {}", first.cmdline.join(" "));
    }
    let per_unit = units.len() > 1 && units.len() <= a.max_columns;
    let s = strategy.name();
    if !a.tree {
        outln!(
            out,
            "\nregions (ms; total({s}) = {s} of the per-rank/thread totals over {} rank/thread(s); mean/min/max per outermost activation; imbal = max/avg)",
            units.len()
        );
        let mut header = vec![
            "region".to_string(),
            "count".into(),
            format!("total({s})"),
            "mean".into(),
            "min".into(),
            "max".into(),
            "imbal".into(),
        ];
        if per_unit {
            header.extend(units.iter().map(|u| u.label.clone()));
        }
        let mut rows = vec![header];
        for r in &flat.rows {
            let mut name = r.name.clone();
            if r.errors > 0 {
                name.push_str(" [stop-before-start]");
            }
            if r.open_at_exit {
                name.push_str(" [open at exit]");
            }
            let mut row = vec![
                name,
                r.count.to_string(),
                ms(r.across_ns),
                ms(r.mean_ns),
                ms(r.min_ns),
                ms(r.max_ns),
                format!("{:.2}", r.imbalance),
            ];
            if per_unit {
                row.extend(r.per_unit_ns.iter().map(|v| v.map_or("-".into(), ms)));
            }
            rows.push(row);
        }
        print_table(&mut out, &rows, 1);
    }
    if !a.flat && !tree.is_empty() {
        outln!(
            out,
            "\ncall tree (ms; inclusive/exclusive = {s} over rank/thread(s); count summed)"
        );
        let mut header = vec![
            "inclusive".to_string(),
            "exclusive".into(),
            "count".into(),
            "imbal".into(),
        ];
        if per_unit {
            header.extend(units.iter().map(|u| u.label.clone()));
        }
        header.push("region".into());
        let mut rows = vec![header];
        for r in &tree {
            let mut row = vec![
                ms(r.inclusive_ns),
                ms(r.exclusive_ns),
                r.count.to_string(),
                format!("{:.2}", r.imbalance),
            ];
            if per_unit {
                row.extend(
                    r.per_unit_inclusive_ns
                        .iter()
                        .map(|v| v.map_or("-".into(), ms)),
                );
            }
            row.push(indented(r.depth, &r.name));
            rows.push(row);
        }
        print_table(&mut out, &rows, 0);
    }
    emit(&out, None)?;
    for p in &problems {
        eprintln!("warning: {p}");
    }
    Ok(())
}

/// Deepest level drawn by indentation; deeper ones print their depth instead, so that the
/// output of a deep recursion stays linear in its size.
const MAX_INDENT: u32 = 32;

fn indented(depth: u32, name: &str) -> String {
    if depth <= MAX_INDENT {
        format!("{}{name}", "  ".repeat(depth as usize))
    } else {
        format!("{}[depth {depth}] {name}", "  ".repeat(MAX_INDENT as usize))
    }
}

/// Columns padded to their widest cell; the first `left` columns left-aligned, the rest right,
/// except a last "region" column, which is left-aligned.
fn print_table(out: &mut String, rows: &[Vec<String>], left: usize) {
    let ncol = rows.iter().map(Vec::len).max().unwrap_or(0);
    let width: Vec<usize> = (0..ncol)
        .map(|c| {
            rows.iter()
                .map(|r| r.get(c).map_or(0, |s| s.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    let last_is_name = rows
        .first()
        .and_then(|h| h.last())
        .is_some_and(|h| h == "region")
        && left == 0;
    for r in rows {
        let mut line = String::new();
        for (c, cell) in r.iter().enumerate() {
            if c > 0 {
                line.push_str("  ");
            }
            let w = width[c];
            if c < left || (last_is_name && c == ncol - 1) {
                line.push_str(&format!("{cell:<w$}"));
            } else {
                line.push_str(&format!("{cell:>w$}"));
            }
        }
        outln!(out, "{}", line.trim_end());
    }
}
