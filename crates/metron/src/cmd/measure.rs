//! `metron measure`: run a command as an experiment.

use std::path::PathBuf;

use clap::Args;
use indicatif::ProgressBar;
use metron_measure::counters::{self, CounterSet};
use metron_measure::environment::Environment;
use metron_measure::experiment::{
    self, CommandTemplate, Config, Observer, Plan, RunRecord, Stopping,
};
use metron_measure::params::Param;
use metron_measure::persist::{self, StoreObserver};
use metron_measure::report::{self, Report};
use metron_measure::stats::Bootstrap;
use metron_measure::{export, metric};

use crate::error::{CliError, CliResult};
use crate::GlobalOpts;

#[derive(Args, Debug, Clone)]
#[command(after_help = "Examples:\n  \
    metron measure -- ./solver input.dat\n  \
    metron measure --runs 30 --param N=1000,2000,4000 -- ./stream {N}\n  \
    metron measure --compare './v2 {N}' --param N=1e6 -- ./v1 {N}\n  \
    metron measure --target-ci 1 --max-runs 200 -- python3 bench.py")]
pub struct MeasureArgs {
    /// Counted runs per benchmark.
    #[arg(long, short = 'r', default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub runs: u32,
    /// Uncounted warm-up runs per benchmark, before the counted ones.
    #[arg(long, short = 'w', default_value_t = 1)]
    pub warmup: u32,
    /// Keep running until the 95% CI of the median is narrower than PCT percent of it.
    #[arg(long, value_name = "PCT")]
    pub target_ci: Option<f64>,
    /// With --target-ci: runs before the stopping rule is first checked.
    #[arg(long, requires = "target_ci", default_value_t = 5)]
    pub min_runs: u32,
    /// With --target-ci: give up after this many runs.
    #[arg(long, requires = "target_ci", default_value_t = 100)]
    pub max_runs: u32,
    /// Another command to compare with; runs alternate A B A B. Repeatable.
    #[arg(long, short = 'c', value_name = "CMD")]
    pub compare: Vec<String>,
    /// Sweep a parameter: NAME=V1,V2,... or NAME=FROM..TO[:STEP]; `{NAME}` in the commands
    /// is replaced. Several give their Cartesian product.
    #[arg(long, short = 'p', value_name = "NAME=VALUES")]
    pub param: Vec<String>,
    /// The metric that comparisons and --target-ci use.
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
    /// The command to measure and its arguments (after `--`). Run directly, not through a
    /// shell: use `sh -c '...'` for pipes and globs.
    #[arg(last = true, required = true, value_name = "CMD")]
    pub command: Vec<String>,
}

impl MeasureArgs {
    fn config(&self) -> CliResult<Config> {
        let mut commands = vec![CommandTemplate::new(self.command.clone())];
        for c in &self.compare {
            commands.push(CommandTemplate::parse(c).map_err(CliError::input)?);
        }
        let params = self
            .param
            .iter()
            .map(|p| Param::parse(p))
            .collect::<Result<Vec<_>, _>>()
            .map_err(CliError::input)?;
        let stopping = match self.target_ci {
            Some(pct) if !(pct > 0.0 && pct.is_finite()) => {
                return Err(CliError::input(format!(
                    "--target-ci {pct}: expected a positive percentage"
                )))
            }
            Some(_) if self.min_runs > self.max_runs => {
                return Err(CliError::input(format!(
                    "--min-runs {} is larger than --max-runs {}",
                    self.min_runs, self.max_runs
                )));
            }
            Some(target_pct) => Stopping::Adaptive {
                min: self.min_runs,
                max: self.max_runs,
                target_pct,
            },
            None => Stopping::Fixed { runs: self.runs },
        };
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
            stopping,
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

/// Progress bar and store, told about each run.
struct CliObserver<'s> {
    store: Option<StoreObserver<'s>>,
    bar: ProgressBar,
    commands: Vec<String>,
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
}

/// Measures as the arguments say; returns the report (the demo prints it its own way).
pub fn measure(args: &MeasureArgs, global: &GlobalOpts) -> CliResult<Report> {
    let plan = Plan::new(args.config()?).map_err(CliError::input)?;
    for p in plan.unused_params() {
        if !global.quiet {
            eprintln!(
                "metron: warning: --param {p} is not used by any command ({{{p}}} does not appear)"
            );
        }
    }
    // The environment first: capturing it runs git, which must not be counted.
    let environment = Environment::capture(&std::env::current_dir().unwrap_or_default());
    let counters = if args.no_counters {
        CounterSet::none()
    } else {
        CounterSet::open(counters::DEFAULT)
    };
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
    let mut observer = CliObserver {
        store: store_observer,
        bar: crate::progress::bar(plan.max_runs(), global.quiet),
        commands: plan.benchmarks.iter().map(|b| b.command.clone()).collect(),
    };
    let records = experiment::execute(&plan, &counters, &mut observer);
    observer.bar.finish_and_clear();
    let records = records.map_err(CliError::input)?;
    let mut report = Report::from_records(&plan, environment, availability, &records, &startup);
    if let Some(s) = observer.store.take() {
        let id = s
            .finish(!report.any_benchmark_failed_entirely())
            .map_err(CliError::input)?;
        if let Some(store) = store.as_ref() {
            // Read back what was stored, so that `metron show` prints exactly this.
            report = persist::load_report(store, id).map_err(CliError::input)?;
        }
    }
    Ok(report)
}

pub fn run(args: MeasureArgs, global: &GlobalOpts) -> CliResult {
    let report = measure(&args, global)?;
    if let Some(path) = &args.export_csv {
        export::write_csv(&report, path).map_err(CliError::input)?;
    }
    if let Some(path) = &args.export_json {
        export::write_json(&report, path).map_err(CliError::input)?;
    }
    print_report(&report, global)?;
    if report.any_benchmark_failed_entirely() {
        return Err(CliError::failure(
            "a command failed in every run; see the warnings above",
        ));
    }
    Ok(())
}

pub fn print_report(report: &Report, global: &GlobalOpts) -> CliResult {
    if global.json {
        let text = serde_json::to_string_pretty(report).map_err(CliError::failure)?;
        println!("{text}");
        return Ok(());
    }
    print!("{}", report::render_table(report));
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
