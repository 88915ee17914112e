//! `metron jit`: tracing-JIT logs of PyPy, their fragments and costs (001).

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufReader, Read, Write as _};
use std::path::{Path, PathBuf};

use clap::{Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use metron_jit::cost::{analyze, Analysis, CostModel, Weights};
use metron_jit::log::{parse_reader, JitLog};
use metron_jit::op_class::OpClassTable;
use metron_jit::stream::StreamedAnalysis;
use metron_jit::{pypy, JitError};

use crate::error::{CliError, CliResult};

// calibrate --corpus, tau and tune: the experiments that run programs (001 §4.3, §5)
mod experiments;
// predict and the model file (issue 15)
mod predict;
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
    /// The trace graph (001 Fig. 1) of a log as Graphviz dot (or JSON with --json).
    Graph(GraphArgs),
    /// Print the default operation-class table (edit a copy, pass it with --classes).
    Classes,
    /// The cost of a task: a warm-up+task log minus a warm-up-only log (001 §5.2.2).
    Diff(DiffArgs),
    /// Fit CMW's weights (seconds per op) to measured times by NNLS (001 §4.3).
    Calibrate(CalibrateArgs),
    /// k = t/Γ of a task function across its tuning parameter τ, and 001 Table 5 (001 §5).
    Tau(TauArgs),
    /// Pick τ1 for a target task time from (τ0, t0, γ0), then measure it (001 §5.1).
    Tune(TuneArgs),
    /// Predict a program's run time from a saved model (calibrate -o model.json), by term.
    Predict(predict::PredictArgs),
}

#[derive(clap::Args, Debug)]
pub struct ModelArgs {
    /// Cost model [default: cmw with --weights, else cmc]
    #[arg(long, value_enum)]
    pub model: Option<Model>,
    /// CMW weights, lines of `class weight` (implies --model cmw)
    #[arg(long, value_name = "FILE")]
    pub weights: Option<PathBuf>,
    /// Operation-class table, lines of `operation class` (see `metron jit classes`)
    #[arg(long, value_name = "FILE")]
    pub classes: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct DiffArgs {
    /// Log of the run with the warm-up alone
    pub warm: PathBuf,
    /// Log of the run with warm-up and task
    pub full: PathBuf,
    #[command(flatten)]
    pub model: ModelArgs,
    /// How many fragment shapes to list
    #[arg(long, default_value_t = 10)]
    pub top: usize,
}

#[derive(clap::Args, Debug)]
pub struct CalibrateArgs {
    /// Directory of PYPYLOGs with counters, one `PROGRAM.log` per program (with --times)
    #[arg(required_unless_present = "corpus", conflicts_with = "corpus")]
    pub logs: Option<PathBuf>,
    /// CSV of `program,seconds`: mean times measured WITHOUT PYPYLOG (counters slow the code)
    #[arg(long, value_name = "FILE", required_unless_present = "corpus")]
    pub times: Option<PathBuf>,
    /// Do the whole job on a directory of Python programs: time each with metron-measure
    /// (no PYPYLOG), record its counters in a separate run, fit CMW, CMC and CM0
    #[arg(long, value_name = "DIR", conflicts_with = "times")]
    pub corpus: Option<PathBuf>,
    /// Size factor passed to every corpus program as its first argument; several,
    /// comma-separated, run every program at each size (`name@scale`; cross-validation holds
    /// all sizes of a program out together)
    #[arg(long, value_delimiter = ',', default_value = "0.25")]
    pub scale: Vec<f64>,
    /// Warm-up runs per corpus program
    #[arg(long, default_value_t = 1)]
    pub warmup: u32,
    /// Timed runs per corpus program
    #[arg(long, default_value_t = 10)]
    pub runs: u32,
    /// Which time the counts must explain: CPU (user + system, robust on a shared machine) or wall
    #[arg(long, value_enum, default_value = "cpu")]
    pub clock: ClockArg,
    /// Corpus programs to leave out, by name (`25_sort_keys`), comma-separated: e.g. programs
    /// that spend their time in the runtime's builtins, which no trace shows (001 §4.3.2's trav2)
    #[arg(long, value_delimiter = ',')]
    pub exclude: Vec<String>,
    /// Folds of the k-fold cross-validation (leave-one-out is reported too)
    #[arg(long, default_value_t = 5)]
    pub folds: usize,
    /// Keep the corpus's counter logs here (default: a temporary directory)
    #[arg(long, value_name = "DIR")]
    pub keep_logs: Option<PathBuf>,
    /// Write a Markdown report of a corpus calibration (machine, weights, fits, per program)
    #[arg(long, value_name = "FILE")]
    pub report: Option<PathBuf>,
    /// With --corpus: do not record the calibration in the experiment store.
    #[arg(long)]
    pub no_store: bool,
    /// Classes to fit, comma-separated
    #[arg(long, value_delimiter = ',', default_values_t = metron_jit::calibrate::DEFAULT_FEATURES.map(String::from))]
    pub features: Vec<String>,
    /// Operation-class table
    #[arg(long, value_name = "FILE")]
    pub classes: Option<PathBuf>,
    /// With `-o FILE.json`: whole-program features or terms to leave out, comma-separated
    /// (`gc`, `warmup.jit_seconds`, ...; see docs/jit.md), e.g. for an ablation
    #[arg(long, value_delimiter = ',')]
    pub without: Vec<String>,
    /// Write the weights here (a file `--weights` reads); a name ending in `.json` gets the
    /// whole-program model instead (all three cost models, fit statistics; `predict --model`)
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct TauArgs {
    /// A task function (examples/jit/tasks/*.py) declaring SKELETON, COST_DERIVATIVE and TAUS
    pub task: PathBuf,
    /// τ values, comma-separated [default: the script's TAUS]
    #[arg(long, value_delimiter = ',')]
    pub tau: Vec<u64>,
    #[command(flatten)]
    pub timing: TimingArgs,
    /// Relative distance from the coarsest tasks' k within which k counts as stable
    #[arg(long, default_value_t = 0.25)]
    pub tolerance: f64,
    /// Write the plot data (long-format CSV: τ, model, time, Γ, k) here
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// CMW weights, lines of `class weight` [default: 001 Eq. 7]
    #[arg(long, value_name = "FILE")]
    pub weights: Option<PathBuf>,
    /// Operation-class table
    #[arg(long, value_name = "FILE")]
    pub classes: Option<PathBuf>,
}

#[derive(ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClockArg {
    /// user + system CPU time (waiting for a core on a shared machine does not count)
    Cpu,
    /// elapsed time
    Wall,
}

impl ClockArg {
    pub fn clock(self) -> metron_jit::calibration::Clock {
        match self {
            ClockArg::Cpu => metron_jit::calibration::Clock::Cpu,
            ClockArg::Wall => metron_jit::calibration::Clock::Wall,
        }
    }
}

#[derive(clap::Args, Debug)]
pub struct TimingArgs {
    /// Which task time k uses: the task's CPU time (thread time) or its wall time
    #[arg(long, value_enum, default_value = "cpu")]
    pub clock: ClockArg,
    /// Timed repetitions of the task per timing process (the median is used)
    #[arg(long, default_value_t = 10)]
    pub repeat: u32,
    /// Timing processes per τ, run in rounds over all τ (load bursts spread over the τ values)
    #[arg(long, default_value_t = 1)]
    pub processes: u32,
    /// Stop repeating once this many seconds of task time are spent (after 3 repetitions)
    #[arg(long, default_value_t = 2.0)]
    pub budget: f64,
    /// Keep the logs and time files here (default: a temporary directory)
    #[arg(long, value_name = "DIR")]
    pub keep_logs: Option<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct TuneArgs {
    /// A task function (examples/jit/tasks/*.py)
    pub task: PathBuf,
    /// The observed tuning parameter τ0
    #[arg(long)]
    pub tau0: u64,
    /// The target task time t1 in seconds (001 §5.1 aims at 0.01-0.1)
    #[arg(long)]
    pub target: f64,
    /// The model whose γ0 gives k = t0/γ0
    #[arg(long, value_enum, default_value = "cmw")]
    pub model: Model,
    #[command(flatten)]
    pub timing: TimingArgs,
    /// CMW weights [default: 001 Eq. 7]
    #[arg(long, value_name = "FILE")]
    pub weights: Option<PathBuf>,
    /// Operation-class table
    #[arg(long, value_name = "FILE")]
    pub classes: Option<PathBuf>,
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
    #[command(flatten)]
    pub model: ModelArgs,
    /// How many fragments and source lines to list
    #[arg(long, default_value_t = 10)]
    pub top: usize,
}

#[derive(clap::Args, Debug)]
pub struct GraphArgs {
    /// A log written with PYPYLOG=jit-log-opt,jit-backend-counts:FILE
    pub log: PathBuf,
}

#[derive(clap::Args, Debug)]
pub struct RecordArgs {
    /// Where to write the log
    #[arg(long, short = 'o', default_value = "pypylog.txt")]
    pub output: PathBuf,
    /// PYPYLOG sections
    #[arg(long, default_value = pypy::DEFAULT_SECTIONS)]
    pub sections: String,
    /// JIT options passed as `pypy3 --jit OPTIONS` (e.g. `threshold=200,loop_longevity=1000`)
    #[arg(long, value_name = "OPTIONS")]
    pub jit: Option<String>,
    /// Discard the program's output instead of passing it through
    #[arg(long)]
    pub discard_output: bool,
    /// The Python script and its arguments
    #[arg(required = true, last = true)]
    pub command: Vec<String>,
}

pub fn run(args: JitArgs, global: &GlobalOpts) -> CliResult {
    match args.command {
        JitCommand::Analyze(a) => run_analyze(a, global),
        JitCommand::Record(r) => run_record(r, global),
        JitCommand::Graph(g) => run_graph(g, global),
        JitCommand::Classes => {
            print!("{}", metron_jit::op_class::DEFAULT_TABLE);
            Ok(())
        }
        JitCommand::Diff(d) => run_diff(d, global),
        JitCommand::Calibrate(c) => run_calibrate(c, global),
        JitCommand::Tau(t) => experiments::run_tau(t, global),
        JitCommand::Tune(t) => experiments::run_tune(t, global),
        JitCommand::Predict(p) => predict::run_predict(p, global),
    }
}

pub(crate) fn model_and_classes(m: &ModelArgs) -> Result<(CostModel, OpClassTable), CliError> {
    let model = match (m.model, &m.weights) {
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
    let classes = match &m.classes {
        Some(p) => OpClassTable::from_file(p).map_err(input)?,
        None => OpClassTable::default_table(),
    };
    if let CostModel::Cmw(w) = &model {
        w.check_classes(&classes).map_err(CliError::input)?;
    }
    Ok((model, classes))
}

fn run_graph(args: GraphArgs, global: &GlobalOpts) -> CliResult {
    let log = parse_with_progress(&args.log, global.quiet)?;
    let graph = metron_jit::fragment::build(&log);
    let export = metron_jit::graph_export::export(&log, &graph);
    if global.json {
        let text = serde_json::to_string_pretty(&export)
            .map_err(|e| CliError::failure(format!("cannot write JSON: {e}")))?;
        println!("{text}");
    } else {
        print!("{}", metron_jit::graph_export::to_dot(&export));
    }
    truncation(&args.log, &log)
}

fn run_diff(args: DiffArgs, global: &GlobalOpts) -> CliResult {
    let (model, classes) = model_and_classes(&args.model)?;
    let warm_log = parse_with_progress(&args.warm, global.quiet)?;
    let full_log = parse_with_progress(&args.full, global.quiet)?;
    let warm = analyze(&warm_log, &classes, &model);
    let full = analyze(&full_log, &classes, &model);
    let task = metron_jit::difference::task_cost(&warm, &full);
    if global.json {
        let text = serde_json::to_string_pretty(&task)
            .map_err(|e| CliError::failure(format!("cannot write JSON: {e}")))?;
        println!("{text}");
    } else {
        println!("model: {}", model.name());
        println!(
            "task Γ = {} (full run minus warm-up run)",
            fmt_cost(task.gamma)
        );
        println!(
            "\n  {:<16} {:>10} {:>16} {:>16} {:>16} {:>11}",
            "fragment", "γ", "warm-up", "full", "task", "task cost"
        );
        for s in task.shapes.iter().take(args.top) {
            println!(
                "  {:<16} {:>10} {:>16} {:>16} {:>16} {:>11}",
                s.name,
                fmt_cost(s.gamma),
                fmt_count(s.warm_frequency),
                fmt_count(s.full_frequency),
                fmt_count(s.task_frequency),
                fmt_cost(s.task_frequency as f64 * s.gamma)
            );
        }
    }
    if !global.quiet {
        for w in warm
            .warnings
            .iter()
            .chain(&full.warnings)
            .chain(&task.warnings)
        {
            eprintln!("metron: warning: {w}");
        }
    }
    Ok(())
}

/// Reads `program,seconds` lines (an optional header line is skipped).
fn read_times(path: &Path) -> Result<Vec<(String, f64)>, CliError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| CliError::input(format!("{}: cannot read: {e}", path.display())))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = || {
            CliError::input(format!(
                "{}:{}: expected `program,seconds` (e.g. `06_float_mandel,0.84`), found `{line}`",
                path.display(),
                i + 1
            ))
        };
        let (name, secs) = line.split_once(',').ok_or_else(bad)?;
        match secs.trim().parse::<f64>() {
            Ok(t) if t.is_finite() && t > 0.0 => out.push((name.trim().to_string(), t)),
            _ if i == 0 => continue, // header
            _ => return Err(bad()),
        }
    }
    Ok(out)
}

fn run_calibrate(args: CalibrateArgs, global: &GlobalOpts) -> CliResult {
    let classes = match &args.classes {
        Some(p) => OpClassTable::from_file(p).map_err(input)?,
        None => OpClassTable::default_table(),
    };
    if let Some(corpus) = &args.corpus {
        return experiments::run_corpus_calibration(&args, corpus, &classes, global);
    }
    let (Some(logs), Some(times_path)) = (&args.logs, &args.times) else {
        return Err(CliError::input(
            "expected LOGDIR with --times FILE, or --corpus DIR",
        ));
    };
    let times = read_times(times_path)?;
    let mut samples = Vec::new();
    for (program, seconds) in &times {
        let path = logs.join(format!("{program}.log"));
        let log = parse_with_progress(&path, global.quiet)?;
        let a = analyze(&log, &classes, &CostModel::Cmc);
        if !a.has_counters {
            return Err(CliError::input(format!(
                "{}: no jit-backend-counts section; record with PYPYLOG={}:FILE",
                path.display(),
                pypy::DEFAULT_SECTIONS
            )));
        }
        samples.push(metron_jit::calibrate::Sample {
            program: program.clone(),
            seconds: *seconds,
            executed_ops: a.executed_ops,
        });
    }
    let features: Vec<&str> = args.features.iter().map(String::as_str).collect();
    if let Some(out) = args.output.as_ref().filter(|o| is_json(o)) {
        return predict::fit_logs_to_model(logs, &times, &classes, &features, &args, out, global);
    }
    let cal = metron_jit::calibrate::calibrate(&samples, &features)
        .map_err(|e| CliError::input(format!("calibration: {e}")))?;
    if let Some(out) = &args.output {
        let header = format!(
            "CMW weights fitted by `metron jit calibrate` on {} programs ({})",
            samples.len(),
            times_path.display()
        );
        std::fs::write(out, cal.weights_file(&header))
            .map_err(|e| CliError::failure(format!("{}: cannot write: {e}", out.display())))?;
    }
    if global.json {
        let text = serde_json::to_string_pretty(&cal)
            .map_err(|e| CliError::failure(format!("cannot write JSON: {e}")))?;
        println!("{text}");
        return Ok(());
    }
    println!("weights (seconds per operation), NNLS without intercept (001 §4.3.2)");
    for (c, w) in &cal.weights {
        println!("  {c:<10} {w:.4e}");
    }
    println!(
        "R² = {:.4}, leave-one-out RMSE = {:.4} s",
        cal.r_squared, cal.loo_rmse
    );
    println!(
        "\n  {:<28} {:>10} {:>10} {:>10} {:>10}",
        "program", "measured", "fitted", "residual", "LOO error"
    );
    for p in &cal.programs {
        println!(
            "  {:<28} {:>10.4} {:>10.4} {:>10.4} {:>10.4}",
            p.program, p.seconds, p.predicted, p.residual, p.loo_error
        );
    }
    Ok(())
}

/// `-o model.json` asks for the whole-program model file rather than a weights file.
pub(crate) fn is_json(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("json"))
}

pub(crate) fn input(e: JitError) -> CliError {
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
    if !Path::new(script).is_file() {
        return Err(CliError::input(format!(
            "{script}: no such file: expected a Python script after `--`"
        )));
    }
    let options = pypy::RecordOptions {
        sections: args.sections.clone(),
        jit: args.jit.clone(),
        output: if args.discard_output {
            metron_measure::runner::OutputPolicy::Discard
        } else {
            metron_measure::runner::OutputPolicy::Inherit
        },
    };
    pypy::record_with(Path::new(script), rest, &args.output, &options).map_err(input)?;
    let written = std::fs::metadata(&args.output)
        .map(|m| m.len())
        .unwrap_or(0);
    if written == 0 {
        return Err(CliError::failure(format!(
            "{}: pypy3 wrote no log (does this pypy3 honour PYPYLOG?)",
            args.output.display()
        )));
    }
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

/// Analyses in two streaming passes over the file (metron_jit::stream), so that memory stays
/// bounded by the largest trace however large the log.
fn analyze_with_progress(
    path: &Path,
    classes: &OpClassTable,
    model: &CostModel,
    quiet: bool,
) -> Result<StreamedAnalysis, CliError> {
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    // Parsing runs at tens of MB/s or more; below this size it finishes in about a second.
    let bar = if quiet || size < 32 << 20 {
        ProgressBar::hidden()
    } else {
        let bar = ProgressBar::new(2 * size);
        if let Ok(style) = ProgressStyle::with_template(
            "reading (2 passes) {bar:30} {bytes}/{total_bytes} ({eta})",
        ) {
            bar.set_style(style);
        }
        bar
    };
    let open = || {
        let file = File::open(path).map_err(|source| JitError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(BufReader::with_capacity(
            1 << 16,
            Counting {
                inner: file,
                bar: bar.clone(),
            },
        ))
    };
    let result = metron_jit::stream::analyze_stream(open, path, classes, model).map_err(input);
    bar.finish_and_clear();
    result
}

fn run_analyze(args: AnalyzeArgs, global: &GlobalOpts) -> CliResult {
    let (model, classes) = model_and_classes(&args.model)?;
    let StreamedAnalysis {
        log,
        analysis,
        loops,
        bridges,
        ..
    } = analyze_with_progress(&args.log, &classes, &model, global.quiet)?;
    let weights_origin = match &model {
        CostModel::Cmw(w) => Some(w.origin.as_str()),
        _ => None,
    };
    if global.json {
        let report = Report {
            log: &args.log,
            bytes: log.bytes,
            loops,
            bridges,
            truncated: log.truncated,
            parse_warnings: &log.warnings,
            suppressed_parse_warnings: log.suppressed_warnings,
            weights_origin,
            analysis: &analysis,
        };
        // Written as it is serialised: the report of a large log runs to hundreds of MB.
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        serde_json::to_writer_pretty(&mut out, &report)
            .and_then(|()| writeln!(out).map_err(serde_json::Error::io))
            .and_then(|()| out.flush().map_err(serde_json::Error::io))
            .map_err(|e| CliError::failure(format!("cannot write JSON: {e}")))?;
        let outcome = truncation(&args.log, &log);
        std::mem::forget((analysis, log));
        return outcome;
    }
    print!(
        "{}",
        human(&args, &log, &analysis, loops, bridges, weights_origin)
    );
    if !global.quiet {
        print_warnings(&args.log, &log, &analysis);
    }
    let outcome = truncation(&args.log, &log);
    // The analysis of a large log holds about a million small allocations, and its source
    // table half a million more; the process ends right after this, and freeing them one by
    // one took a sixth of the run (docs/jit.md).
    std::mem::forget((analysis, log));
    outcome
}

/// A truncated log gives a partial answer: shown, but the run fails (exit 1).
fn truncation(path: &Path, log: &JitLog) -> CliResult {
    match log.truncated_at.filter(|_| log.truncated) {
        Some(line) => Err(CliError::failure(format!(
            "{}: truncated at line {line}: the analysis above covers only the complete traces \
             before it (a crashed or killed program, or a file cut short)",
            path.display()
        ))),
        None => Ok(()),
    }
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

pub(crate) fn fmt_cost(x: f64) -> String {
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
    bridges: usize,
    weights_origin: Option<&str>,
) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{}: {} loops, {} bridges, {} fragments ({:.1} MB)",
        args.log.display(),
        loops,
        bridges,
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
            let unit = match &a.model {
                CostModel::Cmw(w) if w.unit == "s" => " s".to_string(),
                CostModel::Cmw(w) => format!(" [{}]", w.unit),
                CostModel::Cmc => " operations".to_string(),
                CostModel::Cm0 => " fragment executions".to_string(),
            };
            let _ = writeln!(o, "Γ = {}{unit} (001 Eq. 4)", fmt_cost(g));
        }
        None => {
            let _ = writeln!(
                o,
                "Γ: not available, the log has no jit-backend-counts (static per-trace costs below)"
            );
        }
    }
    let summary = |key: &str| {
        log.summary.iter().find(|s| s.key == key).and_then(|s| {
            Some((
                s.values.first()?.clone(),
                s.values.get(1)?.parse::<f64>().ok()?,
            ))
        })
    };
    if let (Some((traced, t_tracing)), Some((_, t_backend))) =
        (summary("Tracing"), summary("Backend"))
    {
        let _ = writeln!(
            o,
            "JIT warm-up (jit-summary): tracing {t_tracing:.3} s and backend {t_backend:.3} s for {traced} traces"
        );
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

    if !a.op_histogram.is_empty() {
        let _ = writeln!(o, "\nmost common operations (001 Fig. 3)");
        let _ = writeln!(
            o,
            "  {:<28} {:<8} {:>10} {:>18}",
            "operation", "class", "in traces", "executed"
        );
        for c in a
            .op_histogram
            .iter()
            .filter(|c| c.class != "debug")
            .take(args.top)
        {
            let _ = writeln!(
                o,
                "  {:<28} {:<8} {:>10} {:>18}",
                c.name,
                c.class,
                fmt_count(c.in_traces),
                if a.has_counters {
                    fmt_count(c.executed)
                } else {
                    "?".to_string()
                }
            );
        }
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
            let src = &f.starts_at;
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

/// How many warnings are printed in full; the rest are counted by kind.
const SHOWN_WARNINGS: usize = 20;

/// Notes go to stderr so that the tables on stdout stay clean. The first
/// [`SHOWN_WARNINGS`] in full, the rest summarised (`--json` has them all).
fn print_warnings(path: &Path, log: &JitLog, a: &Analysis) {
    let parse = log.warnings.iter().map(|w| match w.line {
        Some(l) => format!("{}:{l}: {}", path.display(), w.message),
        None => format!("{}: {}", path.display(), w.message),
    });
    let all: Vec<String> = parse.chain(a.warnings.iter().cloned()).collect();
    for w in all.iter().take(SHOWN_WARNINGS) {
        eprintln!("metron: warning: {w}");
    }
    let rest = all.len().saturating_sub(SHOWN_WARNINGS) + log.suppressed_warnings;
    if rest > 0 {
        let mut kinds: std::collections::BTreeMap<String, usize> = Default::default();
        for w in all.iter().skip(SHOWN_WARNINGS) {
            let kind: String = w
                .split(|c: char| c.is_ascii_digit() || c == '`')
                .next()
                .unwrap_or("")
                .chars()
                .take(60)
                .collect();
            *kinds.entry(kind).or_insert(0) += 1;
        }
        eprintln!("metron: warning: ... and {rest} more warnings (all of them are in --json)");
        for (kind, n) in kinds.iter().take(5) {
            eprintln!("metron: warning:     {n} × {kind}...");
        }
    }
}
