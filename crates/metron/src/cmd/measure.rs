//! `metron measure`: run a command as an experiment.

use std::path::PathBuf;

use clap::Args;
use indicatif::ProgressBar;
use metron_measure::counters::{self, Availability, CounterSet};
use metron_measure::environment::Environment;
use metron_measure::experiment::{
    self, CommandTemplate, Config, Hooks, Observer, Plan, RunRecord, Stopped, Stopping,
};
use metron_measure::params::Param;
use metron_measure::persist::{self, StoreObserver};
use metron_measure::report::{self, Report};
use metron_measure::stats::Bootstrap;
use metron_measure::units::TimeUnit;
use metron_measure::{export, metric, signals};
use metron_store::Status;

use crate::error::{CliError, CliResult};
use crate::GlobalOpts;

#[derive(Args, Debug, Clone)]
#[command(after_help = "Examples:\n  \
    metron measure -- ./solver input.dat\n  \
    metron measure --runs 30 --param N=1000,2000,4000 -- ./stream {N}\n  \
    metron measure --compare './v2 {N}' --param N=1e6 -- ./v1 {N}\n  \
    metron measure --prepare 'sync; echo 3 > /proc/sys/vm/drop_caches' -- ./read-file\n  \
    metron measure -P T 0 1 -D 0.25 --export-markdown t.md -- ./app --tol {T}\n  \
    metron measure --target-ci 1 --max-runs 200 -- python3 bench.py\n\n\
    Without --runs or --target-ci, runs as many times as fit in 3 s (at least --min-runs 10),\n\
    as hyperfine does. A failing run stops the experiment (exit 1) unless --ignore-failure.")]
pub struct MeasureArgs {
    /// Counted runs per benchmark [default: as many as fit in 3 s, at least --min-runs].
    #[arg(long, short = 'r', value_parser = clap::value_parser!(u32).range(1..), conflicts_with_all = ["min_runs", "max_runs"])]
    pub runs: Option<u32>,
    /// Uncounted warm-up runs per benchmark, before the counted ones.
    #[arg(long, short = 'w', default_value_t = 1)]
    pub warmup: u32,
    /// Keep running until the 95% CI of the median is narrower than PCT percent of it; exit 1
    /// if --max-runs comes first.
    #[arg(long, value_name = "PCT", conflicts_with = "runs")]
    pub target_ci: Option<f64>,
    /// Fewest counted runs [default: 10; with --target-ci, 5].
    #[arg(long, short = 'm')]
    pub min_runs: Option<u32>,
    /// Most counted runs [default: no limit; with --target-ci, 100].
    #[arg(long, short = 'M')]
    pub max_runs: Option<u32>,
    /// Another command to compare with; runs alternate A B A B. Repeatable.
    #[arg(long, short = 'c', value_name = "CMD")]
    pub compare: Vec<String>,
    /// Sweep a parameter: NAME=V1,V2,... or NAME=FROM..TO[:STEP] (numbers like 1, 0.25, 1e3);
    /// `{NAME}` in the commands is replaced. Several give their Cartesian product.
    #[arg(long, short = 'p', value_name = "NAME=VALUES")]
    pub param: Vec<String>,
    /// The metric that comparisons, --target-ci and the markdown export use.
    #[arg(long, default_value = metric::WALL_TIME)]
    pub metric: String,
    /// Write every run as long-format CSV (experiment,command,params...,run,metric,value).
    #[arg(long, value_name = "FILE")]
    pub export_csv: Option<PathBuf>,
    /// Write the JSON report (docs/measure-json.md) to a file.
    #[arg(long, value_name = "FILE")]
    pub export_json: Option<PathBuf>,
    /// Do not record the experiment in the store.
    #[arg(long)]
    pub no_store: bool,
    /// Do not open perf_event counters.
    #[arg(long)]
    pub no_counters: bool,
    /// Let the command's stdout and stderr through (discarded by default).
    #[arg(long)]
    pub show_output: bool,
    /// Seed of the bootstrap resampling.
    #[arg(long, default_value_t = Bootstrap::default().seed)]
    pub seed: u64,
    /// Bootstrap resamples (000 App. A uses 3000).
    #[arg(long, default_value_t = 3000, value_parser = clap::value_parser!(u32).range(100..))]
    pub resamples: u32,
    #[command(flatten)]
    pub hyperfine: HyperfineArgs,
    /// The command to measure and its arguments (after `--`). Run directly, not through a
    /// shell: use `sh -c '...'` for pipes and globs.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<String>,
}

/// The options a hyperfine user expects, with hyperfine's meanings.
#[derive(Args, Debug, Clone, Default)]
pub struct HyperfineArgs {
    /// Shell command run once before the runs of each benchmark (e.g. a build). Once, or once
    /// per command.
    #[arg(long, short = 's', value_name = "CMD")]
    pub setup: Vec<String>,
    /// Shell command run before every run, warm-ups included (e.g. dropping the page cache).
    /// Once, or once per command.
    #[arg(long, value_name = "CMD")]
    pub prepare: Vec<String>,
    /// Shell command run after the last run of each benchmark. Once, or once per command.
    #[arg(long, value_name = "CMD")]
    pub cleanup: Vec<String>,
    /// Name shown instead of the command (`{PARAM}`s are substituted). Once per command.
    #[arg(long, short = 'n', value_name = "NAME")]
    pub command_name: Vec<String>,
    /// Keep measuring when a run fails (non-zero exit); failed runs are excluded from the
    /// statistics. Without it the first failing run stops the experiment with exit 1.
    #[arg(long, short = 'i')]
    pub ignore_failure: bool,
    /// Unit of times in the table and the markdown: nanosecond, microsecond, millisecond,
    /// second (or ns, us, ms, s). JSON and CSV stay in seconds.
    #[arg(long, short = 'u', value_name = "UNIT", value_parser = parse_time_unit)]
    pub time_unit: Option<TimeUnit>,
    /// Write hyperfine's markdown table (plus metron's median and CI) to a file.
    #[arg(long, value_name = "FILE")]
    pub export_markdown: Option<PathBuf>,
    /// hyperfine's scan: VAR MIN MAX, with --parameter-step-size (default 1).
    #[arg(long, short = 'P', num_args = 3, value_names = ["VAR", "MIN", "MAX"])]
    pub parameter_scan: Vec<String>,
    /// Step of --parameter-scan; may be a decimal (0.25) or use exponents (1e3).
    #[arg(long, short = 'D', value_name = "DELTA", requires = "parameter_scan")]
    pub parameter_step_size: Option<String>,
    /// hyperfine's list: VAR V1,V2,...
    #[arg(long, short = 'L', num_args = 2, value_names = ["VAR", "VALUES"])]
    pub parameter_list: Vec<String>,
}

fn parse_time_unit(s: &str) -> Result<TimeUnit, String> {
    TimeUnit::parse(s).ok_or_else(|| {
        format!("`{s}`: expected nanosecond, microsecond, millisecond or second (ns, us, ms, s)")
    })
}

impl HyperfineArgs {
    /// `-P VAR MIN MAX [-D STEP]` and `-L VAR VALUES` as `--param` specifications.
    fn params(&self) -> Vec<String> {
        let step = self.parameter_step_size.as_deref().unwrap_or("1");
        let mut v: Vec<String> = self
            .parameter_scan
            .chunks(3)
            .filter(|c| c.len() == 3)
            .map(|c| format!("{}={}..{}:{step}", c[0], c[1], c[2]))
            .collect();
        v.extend(
            self.parameter_list
                .chunks(2)
                .filter(|c| c.len() == 2)
                .map(|c| format!("{}={}", c[0], c[1])),
        );
        v
    }

    fn hooks(&self) -> Hooks {
        Hooks {
            setup: self.setup.clone(),
            prepare: self.prepare.clone(),
            cleanup: self.cleanup.clone(),
            names: self.command_name.clone(),
            abort_on_failure: !self.ignore_failure,
        }
    }
}

impl MeasureArgs {
    fn stopping(&self) -> CliResult<Stopping> {
        let (min, max) = (self.min_runs, self.max_runs);
        if let (Some(a), Some(b)) = (min, max) {
            if a > b {
                return Err(CliError::input(format!(
                    "--min-runs {a} is larger than --max-runs {b}"
                )));
            }
        }
        Ok(match (self.target_ci, self.runs) {
            (Some(pct), _) if !(pct > 0.0 && pct.is_finite()) => {
                return Err(CliError::input(format!(
                    "--target-ci {pct}: expected a positive percentage"
                )))
            }
            (Some(target_pct), _) => {
                let min = min.unwrap_or(5);
                Stopping::Adaptive {
                    min,
                    max: max.unwrap_or(100.max(min)),
                    target_pct,
                }
            }
            (None, Some(runs)) => Stopping::Fixed { runs },
            (None, None) => {
                let max = max.unwrap_or(u32::MAX).max(1);
                Stopping::Budget {
                    // An explicit --max-runs below the default minimum wins, as in hyperfine.
                    min: min.unwrap_or(10.min(max)).max(1),
                    max,
                    seconds: 3.0,
                }
            }
        })
    }

    fn config(&self) -> CliResult<Config> {
        let mut commands = vec![CommandTemplate::new(self.command.clone())];
        for c in &self.compare {
            commands.push(CommandTemplate::parse(c).map_err(CliError::input)?);
        }
        let params = self
            .param
            .iter()
            .cloned()
            .chain(self.hyperfine.params())
            .map(|p| Param::parse(&p))
            .collect::<Result<Vec<_>, _>>()
            .map_err(CliError::input)?;
        if metric::rank(&self.metric) == metric::KNOWN.len() {
            return Err(CliError::input(format!(
                "--metric {}: unknown metric; expected one of {}",
                self.metric,
                metric::KNOWN
                    .iter()
                    .map(|(m, _)| *m)
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        Ok(Config {
            commands,
            params,
            warmup: self.warmup,
            stopping: self.stopping()?,
            primary_metric: self.metric.clone(),
            bootstrap: Bootstrap {
                seed: self.seed,
                resamples: self.resamples as usize,
                ..Bootstrap::default()
            },
            show_output: self.show_output,
        })
    }
}

/// A counter chosen as the primary metric must be one this machine can count: otherwise
/// every run would lack it and the experiment would silently summarise nothing.
fn check_metric(metric_name: &str, availability: &Availability, no_counters: bool) -> CliResult {
    if counters::by_name(metric_name).is_none()
        || availability.available.iter().any(|a| a == metric_name)
    {
        return Ok(());
    }
    let why = if no_counters {
        "counters are off (--no-counters)".to_string()
    } else {
        availability
            .unavailable
            .iter()
            .find(|u| u.name == metric_name)
            .map_or("not available".to_string(), |u| u.reason.clone())
    };
    let mut can: Vec<&str> = [
        metric::WALL_TIME,
        metric::USER_TIME,
        metric::SYS_TIME,
        metric::CPU_TIME,
        metric::MAX_RSS,
    ]
    .to_vec();
    can.extend(availability.available.iter().map(String::as_str));
    Err(CliError::input(format!(
        "--metric {metric_name}: this machine cannot measure it ({why}); metrics it can measure: {}",
        can.join(", ")
    )))
}

/// Progress bar and store, told about each run.
struct CliObserver<'s> {
    store: Option<StoreObserver<'s>>,
    bar: ProgressBar,
    commands: Vec<String>,
    /// Counted runs each benchmark's share of the bar stands for.
    planned: Vec<u32>,
}

impl Observer for CliObserver<'_> {
    fn run_finished(&mut self, b: usize, run: &RunRecord) -> metron_measure::Result<()> {
        if let Some(s) = &mut self.store {
            s.run_finished(b, run)?;
        }
        self.bar.set_message(self.commands[b].clone());
        self.bar.inc(1);
        Ok(())
    }

    fn runs_planned(&mut self, b: usize, counted: u32) {
        // The bar started with --min-runs for a time budget; now the real count is known.
        let old = std::mem::replace(&mut self.planned[b], counted);
        let len = self.bar.length().unwrap_or(0);
        self.bar
            .set_length((len + u64::from(counted)).saturating_sub(u64::from(old)));
    }
}

/// Measures as the arguments say; returns the report (the demo prints it its own way), and
/// why the experiment stopped early, if it did.
pub fn measure_all(
    args: &MeasureArgs,
    global: &GlobalOpts,
) -> CliResult<(Report, Option<Stopped>)> {
    check_export_paths(args)?;
    let plan = Plan::with_hooks(args.config()?, args.hyperfine.hooks()).map_err(CliError::input)?;
    for p in plan.unused_params() {
        if !global.quiet {
            eprintln!(
                "metron: warning: --param {p} is not used by any command ({{{p}}} does not appear)"
            );
        }
    }
    // The environment first: capturing it runs git, which must not be counted.
    let environment = Environment::capture(&std::env::current_dir().unwrap_or_default());
    let counters = open_counters(args)?;
    let availability = counters.availability().clone();
    let startup = if plan.groups.iter().any(|g| g.len() > 1) {
        experiment::calibrate_startup(&counters, 10).map_err(CliError::input)?
    } else {
        Vec::new()
    };
    let mut store = if args.no_store {
        None
    } else {
        Some(super::open_store(&global.store_path())?)
    };
    let argv: Vec<String> = std::env::args().collect();
    let store_observer = match store.as_mut() {
        Some(s) => Some(
            StoreObserver::begin(s, &plan, &environment, &availability, &startup, &argv)
                .map_err(CliError::input)?,
        ),
        None => None,
    };
    let minimum = match plan.config.stopping {
        Stopping::Fixed { runs } => runs,
        Stopping::Adaptive { max, .. } => max,
        Stopping::Budget { min, .. } => min,
    };
    let mut observer = CliObserver {
        store: store_observer,
        bar: crate::progress::bar(plan.max_runs(), global.quiet),
        commands: plan
            .benchmarks
            .iter()
            .map(|b| b.display_name().to_string())
            .collect(),
        planned: vec![minimum; plan.benchmarks.len()],
    };
    // From here on Ctrl-C and SIGTERM reach the measured program, which is reaped, and the
    // experiment is closed as interrupted.
    let forwarding = signals::forward_to_children();
    let execution = experiment::execute_all(&plan, &counters, &mut observer);
    drop(forwarding);
    observer.bar.finish_and_clear();
    let execution = match execution {
        Ok(e) => e,
        Err(e) => {
            // A failing --setup/--prepare/--cleanup: close the experiment rather than leave it
            // `running`.
            if let Some(s) = observer.store.take() {
                let _ = s.finish_as(Status::Failed);
            }
            return Err(CliError::input(e));
        }
    };
    let mut report = Report::from_records(
        &plan,
        environment,
        availability,
        &execution.records,
        &startup,
    );
    if let Some(s) = observer.store.take() {
        let id = s
            .finish_as(final_status(execution.stopped.as_ref(), &report))
            .map_err(CliError::input)?;
        if let Some(store) = store.as_ref() {
            // Read back what was stored, so that `metron show` prints exactly this.
            report = persist::load_report(store, id).map_err(CliError::input)?;
        }
    }
    Ok((report, execution.stopped))
}

/// An export that cannot be written is found out before the measurement, not after it.
fn check_export_paths(args: &MeasureArgs) -> CliResult {
    for path in [
        &args.export_csv,
        &args.export_json,
        &args.hyperfine.export_markdown,
    ]
    .into_iter()
    .flatten()
    {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty());
        if dir.is_some_and(|d| !d.is_dir()) {
            return Err(CliError::input(format!(
                "cannot write {}: no such directory",
                path.display()
            )));
        }
    }
    Ok(())
}

/// How the stored experiment ended; `history` must not call an unmet target complete.
fn final_status(stopped: Option<&Stopped>, report: &Report) -> Status {
    match stopped {
        Some(Stopped::Interrupted { .. }) => Status::Interrupted,
        Some(Stopped::RunFailed { .. }) => Status::Failed,
        None if report.any_benchmark_failed_entirely() => Status::Failed,
        None if !report.unmet_targets().is_empty() => Status::Incomplete,
        None => Status::Complete,
    }
}

/// Counters for the run, and the primary metric checked against what they can count.
fn open_counters(args: &MeasureArgs) -> CliResult<CounterSet> {
    let counters = if args.no_counters {
        CounterSet::none()
    } else {
        CounterSet::open(counters::DEFAULT)
    };
    check_metric(&args.metric, counters.availability(), args.no_counters)?;
    Ok(counters)
}

/// [`measure_all`] for callers that treat an early stop as an error.
pub fn measure(args: &MeasureArgs, global: &GlobalOpts) -> CliResult<Report> {
    let (report, stopped) = measure_all(args, global)?;
    match stopped {
        None => Ok(report),
        Some(s) => Err(stop_error(&s)),
    }
}

fn stop_error(s: &Stopped) -> CliError {
    match s {
        Stopped::Interrupted { signal } => CliError::Interrupted {
            signal: *signal,
            message: s.to_string(),
        },
        Stopped::RunFailed { .. } => CliError::failure(s),
    }
}

pub fn run(args: MeasureArgs, global: &GlobalOpts) -> CliResult {
    let (report, stopped) = measure_all(&args, global)?;
    if let Some(s @ Stopped::Interrupted { .. }) = &stopped {
        return Err(stop_error(s));
    }
    if let Some(path) = &args.export_csv {
        export::write_csv(&report, path).map_err(CliError::input)?;
    }
    if let Some(path) = &args.export_json {
        export::write_json(&report, path).map_err(CliError::input)?;
    }
    if let Some(path) = &args.hyperfine.export_markdown {
        export::write_markdown(&report, path, args.hyperfine.time_unit).map_err(CliError::input)?;
    }
    print_report_in(&report, global, args.hyperfine.time_unit)?;
    if let Some(s) = &stopped {
        return Err(stop_error(s));
    }
    if report.any_benchmark_failed_entirely() {
        return Err(CliError::failure(
            "a command failed in every run; see the warnings above",
        ));
    }
    let unmet = report.unmet_targets();
    if !unmet.is_empty() {
        return Err(CliError::failure(format!(
            "{} (raise --max-runs, or accept a wider --target-ci)",
            unmet.join("; ")
        )));
    }
    Ok(())
}

pub fn print_report(report: &Report, global: &GlobalOpts) -> CliResult {
    print_report_in(report, global, None)
}

/// [`print_report`] with times in a fixed unit (`--time-unit`).
pub fn print_report_in(report: &Report, global: &GlobalOpts, unit: Option<TimeUnit>) -> CliResult {
    if global.json {
        let text = serde_json::to_string_pretty(report).map_err(CliError::failure)?;
        println!("{text}");
        return Ok(());
    }
    print!("{}", report::render_table_in(report, unit));
    if let Some(e) = &report.experiment {
        if !global.quiet {
            println!(
                "Stored as experiment {} in {} (metron show {})",
                e.id, e.store, e.id
            );
        }
    }
    Ok(())
}
