//! `metron jit`: tracing-JIT logs of PyPy, their fragments and costs (001).

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufReader, Read};
use std::path::{Path, PathBuf};

use clap::{Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use metron_jit::cost::{analyze, Analysis, CostModel, Weights};
use metron_jit::log::{parse_reader, JitLog};
use metron_jit::op_class::OpClassTable;
use metron_jit::trace::TraceKind;
use metron_jit::{pypy, JitError};

use crate::error::{CliError, CliResult};
use crate::GlobalOpts;

#[derive(clap::Args, Debug)]
pub struct JitArgs {
    #[command(subcommand)]
    pub command: JitCommand,
}

#[derive(Subcommand, Debug)]
pub enum JitCommand {
    /// Fragments, frequencies, costs and Γ of a PYPYLOG, with the source lines they come from.
    Analyze(AnalyzeArgs),
    /// Run a Python script under pypy3 with PYPYLOG set and keep the log.
    Record(RecordArgs),
    /// Print the default operation-class table (edit a copy, pass it with --classes).
    Classes,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Model {
    /// 001 Eq. 1: every fragment costs 1
    Cm0,
    /// 001 Eq. 2: one per non-debug operation
    Cmc,
    /// 001 Eq. 3: a weight per operation class (--weights, default 001 Eq. 7)
    Cmw,
}

#[derive(clap::Args, Debug)]
pub struct AnalyzeArgs {
    /// A log written with PYPYLOG=jit-log-opt,jit-backend-counts,jit-summary:FILE
    pub log: PathBuf,
    /// Cost model [default: cmw with --weights, else cmc]
    #[arg(long, value_enum)]
    pub model: Option<Model>,
    /// CMW weights, lines of `class weight` (implies --model cmw)
    #[arg(long, value_name = "FILE")]
    pub weights: Option<PathBuf>,
    /// Operation-class table, lines of `operation class` (see `metron jit classes`)
    #[arg(long, value_name = "FILE")]
    pub classes: Option<PathBuf>,
    /// How many fragments and source lines to list
    #[arg(long, default_value_t = 10)]
    pub top: usize,
}

#[derive(clap::Args, Debug)]
pub struct RecordArgs {
    /// Where to write the log
    #[arg(long, short = 'o', default_value = "pypylog.txt")]
    pub output: PathBuf,
    /// PYPYLOG sections
    #[arg(long, default_value = pypy::DEFAULT_SECTIONS)]
    pub sections: String,
    /// The Python script and its arguments
    #[arg(required = true, last = true)]
    pub command: Vec<String>,
}

pub fn run(args: JitArgs, global: &GlobalOpts) -> CliResult {
    match args.command {
        JitCommand::Analyze(a) => run_analyze(a, global),
        JitCommand::Record(r) => run_record(r, global),
        JitCommand::Classes => {
            print!("{}", metron_jit::op_class::DEFAULT_TABLE);
            Ok(())
        }
    }
}

fn input(e: JitError) -> CliError {
    match e {
        JitError::Failed { .. } => CliError::failure(e),
        _ => CliError::input(e),
    }
}

fn run_record(args: RecordArgs, global: &GlobalOpts) -> CliResult {
    let (script, rest) = args
        .command
        .split_first()
        .ok_or_else(|| CliError::input("expected a Python script after `--`"))?;
    pypy::record(Path::new(script), rest, &args.output, &args.sections).map_err(input)?;
    if !global.quiet {
        eprintln!(
            "metron: log written to {}; analyse it with: metron jit analyze {}",
            args.output.display(),
            args.output.display()
        );
    }
    Ok(())
}

/// Counts bytes read for the progress bar.
struct Counting<R> {
    inner: R,
    bar: ProgressBar,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bar.inc(n as u64);
        Ok(n)
    }
}

fn parse_with_progress(path: &Path, quiet: bool) -> Result<JitLog, CliError> {
    let file = File::open(path).map_err(|source| {
        input(JitError::Io {
            path: path.to_path_buf(),
            source,
        })
    })?;
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    // Parsing runs at tens of MB/s or more; below this size it finishes in about a second.
    let bar = if quiet || size < 32 << 20 {
        ProgressBar::hidden()
    } else {
        let bar = ProgressBar::new(size);
        if let Ok(style) =
            ProgressStyle::with_template("parsing {bar:30} {bytes}/{total_bytes} ({eta})")
        {
            bar.set_style(style);
        }
        bar
    };
    let reader = BufReader::with_capacity(
        1 << 16,
        Counting {
            inner: file,
            bar: bar.clone(),
        },
    );
    let log = parse_reader(reader, path).map_err(input);
    bar.finish_and_clear();
    log
}

#[derive(Serialize)]
struct Report<'a> {
    log: &'a Path,
    bytes: u64,
    loops: usize,
    bridges: usize,
    truncated: bool,
    parse_warnings: &'a [metron_jit::log::Warning],
    suppressed_parse_warnings: usize,
    weights_origin: Option<&'a str>,
    #[serde(flatten)]
    analysis: &'a Analysis,
}

fn run_analyze(args: AnalyzeArgs, global: &GlobalOpts) -> CliResult {
    let model = match (args.model, &args.weights) {
        (Some(Model::Cm0), Some(_)) | (Some(Model::Cmc), Some(_)) => {
            return Err(CliError::input(
                "--weights applies to --model cmw only (CM0 and CMC have no weights)",
            ))
        }
        (Some(Model::Cm0), None) => CostModel::Cm0,
        (Some(Model::Cmc), None) | (None, None) => CostModel::Cmc,
        (_, Some(w)) => CostModel::Cmw(Weights::from_file(w).map_err(input)?),
        (Some(Model::Cmw), None) => CostModel::Cmw(Weights::paper_eq7()),
    };
    let classes = match &args.classes {
        Some(p) => OpClassTable::from_file(p).map_err(input)?,
        None => OpClassTable::default_table(),
    };
    let log = parse_with_progress(&args.log, global.quiet)?;
    let analysis = analyze(&log, &classes, &model);
    let loops = log
        .traces
        .iter()
        .filter(|t| matches!(t.kind, TraceKind::Loop { .. }))
        .count();
    let weights_origin = match &model {
        CostModel::Cmw(w) => Some(w.origin.as_str()),
        _ => None,
    };
    if global.json {
        let report = Report {
            log: &args.log,
            bytes: log.bytes,
            loops,
            bridges: log.traces.len() - loops,
            truncated: log.truncated,
            parse_warnings: &log.warnings,
            suppressed_parse_warnings: log.suppressed_warnings,
            weights_origin,
            analysis: &analysis,
        };
        let text = serde_json::to_string_pretty(&report)
            .map_err(|e| CliError::failure(format!("cannot write JSON: {e}")))?;
        println!("{text}");
        return Ok(());
    }
    print!("{}", human(&args, &log, &analysis, loops, weights_origin));
    if !global.quiet {
        print_warnings(&args.log, &log, &analysis);
    }
    Ok(())
}

fn fmt_count(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn fmt_cost(x: f64) -> String {
    if x == 0.0 {
        "0".to_string()
    } else if x.abs() >= 1e6 || x.abs() < 1e-2 {
        format!("{x:.3e}")
    } else {
        format!("{x:.2}")
    }
}

fn human(
    args: &AnalyzeArgs,
    log: &JitLog,
    a: &Analysis,
    loops: usize,
    weights_origin: Option<&str>,
) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{}: {} loops, {} bridges, {} fragments ({:.1} MB)",
        args.log.display(),
        loops,
        log.traces.len() - loops,
        a.fragments.len(),
        log.bytes as f64 / 1e6
    );
    let _ = write!(o, "model: {}", a.model.name());
    if let Some(origin) = weights_origin {
        let _ = write!(o, " (weights: {origin})");
    }
    let _ = writeln!(o);
    match a.gamma {
        Some(g) => {
            let _ = writeln!(o, "Γ = {} (001 Eq. 4)", fmt_cost(g));
        }
        None => {
            let _ = writeln!(
                o,
                "Γ: not available, the log has no jit-backend-counts (static per-trace costs below)"
            );
        }
    }
    if !a.executed_ops.is_empty() {
        let ops: Vec<String> = a
            .executed_ops
            .iter()
            .filter(|(c, _)| c.as_str() != "debug")
            .map(|(c, n)| format!("{c} {}", fmt_count(*n)))
            .collect();
        let _ = writeln!(o, "executed ops: {}", ops.join(", "));
    }

    if a.has_counters {
        let mut frags: Vec<_> = a.fragments.iter().collect();
        frags.sort_by(|x, y| y.cost.unwrap_or(-1.0).total_cmp(&x.cost.unwrap_or(-1.0)));
        let _ = writeln!(o, "\ntop fragments");
        let _ = writeln!(
            o,
            "  {:<14} {:<20} {:>5} {:>16} {:>10} {:>11} {:>6}  starts at",
            "fragment", "trace", "ops", "frequency", "γ", "cost", "share"
        );
        for f in frags.iter().take(args.top) {
            let ops: u32 = f
                .ops
                .iter()
                .filter(|(c, _)| c.as_str() != "debug" && c.as_str() != "control")
                .map(|(_, n)| *n)
                .sum();
            let src = f
                .sources
                .first()
                .map(|s| match s.line {
                    Some(l) if !s.function.is_empty() => format!("{}:{l}", s.function),
                    _ => s.file.clone(),
                })
                .unwrap_or_default();
            let _ = writeln!(
                o,
                "  {:<14} {:<20} {:>5} {:>16} {:>10} {:>11} {:>5.1}%  {}",
                f.name,
                f.trace,
                ops,
                f.frequency.map_or("?".into(), fmt_count),
                fmt_cost(f.gamma),
                f.cost.map_or("?".into(), fmt_cost),
                f.share.unwrap_or(0.0),
                src
            );
        }
        let _ = writeln!(o, "\ntop source lines");
        let _ = writeln!(
            o,
            "  {:>11} {:>6}  {:<40} ops executed",
            "cost", "share", "line"
        );
        for s in a
            .source_lines
            .iter()
            .filter(|s| s.cost > 0.0)
            .take(args.top)
        {
            let place = match s.key.line {
                Some(l) => format!("{}:{} ({})", s.key.file, l, s.key.function),
                None => s.key.file.clone(),
            };
            let ops: Vec<String> = s
                .ops
                .iter()
                .filter(|(c, _)| c.as_str() != "control")
                .map(|(c, n)| format!("{c} {}", fmt_count(*n)))
                .collect();
            let _ = writeln!(
                o,
                "  {:>11} {:>5.1}%  {:<40} {}",
                fmt_cost(s.cost),
                s.share,
                place,
                ops.join(", ")
            );
        }
    } else {
        let _ = writeln!(o, "\nstatic per-trace costs (one pass through each trace)");
        let _ = writeln!(o, "  {:<22} {:>6} {:>10}  name", "trace", "ops", "γ");
        let mut traces: Vec<_> = a.trace_costs.iter().collect();
        traces.sort_by(|x, y| y.gamma.total_cmp(&x.gamma));
        for t in traces.iter().take(args.top) {
            let _ = writeln!(
                o,
                "  {:<22} {:>6} {:>10}  {}",
                t.trace,
                t.ops,
                fmt_cost(t.gamma),
                t.name
            );
        }
    }
    o
}

/// Notes go to stderr so that the tables on stdout stay clean.
fn print_warnings(path: &Path, log: &JitLog, a: &Analysis) {
    for w in &log.warnings {
        match w.line {
            Some(l) => eprintln!("metron: warning: {}:{l}: {}", path.display(), w.message),
            None => eprintln!("metron: warning: {}: {}", path.display(), w.message),
        }
    }
    if log.suppressed_warnings > 0 {
        eprintln!(
            "metron: warning: ... and {} more parse warnings",
            log.suppressed_warnings
        );
    }
    for w in &a.warnings {
        eprintln!("metron: warning: {w}");
    }
}
