//! An experiment: which commands, with which parameter values, how often, in what order.
//!
//! Commands compared with each other run alternately (A B A B ...), so that a slow drift of
//! the machine (thermal, other tenants) spreads over both instead of biasing one.

use serde::{Deserialize, Serialize};

use crate::counters::CounterSet;
use crate::metric;
use crate::params::{self, Param};
use crate::runner::{self, Outcome, OutputPolicy};
use crate::stats::{Bootstrap, Summary};
use crate::{MeasureError, Result};
use metron_store::Sample;

/// A command as the user wrote it, before parameter substitution.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandTemplate {
    pub argv: Vec<String>,
}

impl CommandTemplate {
    pub fn new(argv: Vec<String>) -> Self {
        CommandTemplate { argv }
    }

    /// Splits a command string with shell quoting rules (no shell is run).
    pub fn parse(line: &str) -> Result<Self> {
        let argv = shell_words::split(line)
            .map_err(|e| MeasureError::Invalid(format!("command `{line}`: {e}")))?;
        if argv.is_empty() {
            return Err(MeasureError::EmptyCommand);
        }
        Ok(CommandTemplate { argv })
    }
}

/// One command with one parameter binding: the unit whose runs are summarised together.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BenchmarkSpec {
    /// "A" for the main command, "B", "C", ... for the ones compared with it.
    pub label: String,
    /// The substituted command, quoted for display and copy-paste.
    pub command: String,
    pub argv: Vec<String>,
    pub params: Vec<(String, String)>,
    /// `--command-name`, with `{PARAM}`s substituted (hyperfine's `-n`).
    #[serde(default)]
    pub name: Option<String>,
}

impl BenchmarkSpec {
    /// What tables call it: the name if one was given, else the command.
    pub fn display_name(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.command)
    }
}

/// When to stop repeating a benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "mode")]
pub enum Stopping {
    Fixed {
        runs: u32,
    },
    /// Until the 95% CI of the median of the primary metric is narrower than `target_pct`
    /// percent of the median, with at least `min` and at most `max` runs.
    Adaptive {
        min: u32,
        max: u32,
        target_pct: f64,
    },
    /// hyperfine's default: as many runs as fit in `seconds`, estimated from the first counted
    /// run, but at least `min` and at most `max`.
    Budget {
        min: u32,
        max: u32,
        seconds: f64,
    },
}

/// Commands around the measured ones, with hyperfine's meanings. Each list holds nothing, one
/// command for every benchmark, or one per command (A, B, ...). They run through `sh -c`, with
/// `{PARAM}`s substituted, their output discarded unless `show_output`; a failing one stops
/// the experiment.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Hooks {
    /// Before the first run (warm-up included) of each benchmark (`--setup`).
    pub setup: Vec<String>,
    /// Before every run, warm-ups included (`--prepare`, e.g. dropping the page cache).
    pub prepare: Vec<String>,
    /// After the last run of each benchmark (`--cleanup`).
    pub cleanup: Vec<String>,
    /// Display names of the commands (`--command-name`).
    pub names: Vec<String>,
    /// Stop at the first run that fails, as hyperfine does without `--ignore-failure`.
    pub abort_on_failure: bool,
}

impl Hooks {
    fn check(&self, commands: usize) -> Result<()> {
        for (flag, list) in [
            ("--setup", &self.setup),
            ("--prepare", &self.prepare),
            ("--cleanup", &self.cleanup),
            ("--command-name", &self.names),
        ] {
            if list.len() > 1 && list.len() != commands {
                return Err(MeasureError::Invalid(format!(
                    "{flag} is given {} times for {commands} command(s): give it once, or once per command",
                    list.len()
                )));
            }
        }
        Ok(())
    }

    /// The entry of `list` for the command with template index `t`.
    fn pick(list: &[String], t: usize) -> Option<&String> {
        match list.len() {
            0 => None,
            1 => list.first(),
            _ => list.get(t),
        }
    }
}

/// Everything that decides what an experiment runs; stored with it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Config {
    pub commands: Vec<CommandTemplate>,
    pub params: Vec<Param>,
    pub warmup: u32,
    pub stopping: Stopping,
    pub primary_metric: String,
    pub bootstrap: Bootstrap,
    pub show_output: bool,
}

/// The benchmarks of a config, and the groups that run alternately.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    pub config: Config,
    pub hooks: Hooks,
    pub benchmarks: Vec<BenchmarkSpec>,
    /// Indices into `benchmarks`; the members of a group run alternately.
    pub groups: Vec<Vec<usize>>,
}

impl Plan {
    /// Expands the sweep and checks every command before anything runs: unknown `{PARAM}`s
    /// and programs that do not exist are errors here, not after the first warm-up.
    pub fn new(config: Config) -> Result<Plan> {
        Plan::with_hooks(config, Hooks::default())
    }

    /// [`Plan::new`] with commands around the measured ones.
    pub fn with_hooks(config: Config, hooks: Hooks) -> Result<Plan> {
        if config.commands.is_empty() || config.commands.iter().any(|c| c.argv.is_empty()) {
            return Err(MeasureError::EmptyCommand);
        }
        params::check_unique(&config.params)?;
        hooks.check(config.commands.len())?;
        let mut benchmarks = Vec::new();
        let mut groups = Vec::new();
        for binding in params::cartesian(&config.params) {
            let mut group = Vec::new();
            for (i, template) in config.commands.iter().enumerate() {
                let argv = template
                    .argv
                    .iter()
                    .map(|a| params::substitute(a, &binding))
                    .collect::<Result<Vec<_>, _>>()?;
                let name = Hooks::pick(&hooks.names, i)
                    .map(|n| params::substitute(n, &binding))
                    .transpose()?;
                for list in [&hooks.setup, &hooks.prepare, &hooks.cleanup] {
                    if let Some(c) = Hooks::pick(list, i) {
                        params::substitute(c, &binding)?;
                    }
                }
                group.push(benchmarks.len());
                benchmarks.push(BenchmarkSpec {
                    label: label_of(i),
                    command: shell_words::join(&argv),
                    argv,
                    params: binding.clone(),
                    name,
                });
            }
            groups.push(group);
        }
        for b in &benchmarks {
            runner::resolve_program(&b.argv[0])?;
        }
        Ok(Plan {
            config,
            hooks,
            benchmarks,
            groups,
        })
    }

    /// Parameters that no command uses: probably a mistake, worth a warning.
    pub fn unused_params(&self) -> Vec<String> {
        self.config
            .params
            .iter()
            .filter(|p| {
                let needle = format!("{{{}}}", p.name);
                !self
                    .config
                    .commands
                    .iter()
                    .any(|c| c.argv.iter().any(|a| a.contains(&needle)))
            })
            .map(|p| p.name.clone())
            .collect()
    }

    /// Upper bound of runs (warm-ups included), for progress bars.
    pub fn max_runs(&self) -> u64 {
        let counted = match self.config.stopping {
            Stopping::Fixed { runs } => runs,
            Stopping::Adaptive { max, .. } => max,
            // Grows once the first run has shown how long a run takes.
            Stopping::Budget { min, .. } => min,
        };
        self.benchmarks.len() as u64 * u64::from(counted + self.config.warmup)
    }
}

/// "A", "B", ..., "Z", "AA", ...
pub fn label_of(i: usize) -> String {
    let mut n = i + 1;
    let mut s = Vec::new();
    while n > 0 {
        let r = (n - 1) % 26;
        s.push(b'A' + r as u8);
        n = (n - 1) / 26;
    }
    s.reverse();
    String::from_utf8_lossy(&s).into_owned()
}

/// One finished run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunRecord {
    /// 0-based among warm-ups, 1-based among counted runs.
    pub index: u32,
    pub warmup: bool,
    pub outcome: Outcome,
}

impl RunRecord {
    pub fn samples(&self) -> Vec<Sample> {
        outcome_samples(&self.outcome)
    }
}

/// The metrics of a run, in base units.
pub fn outcome_samples(o: &Outcome) -> Vec<Sample> {
    let mut v = vec![
        sample(metric::WALL_TIME, o.wall.as_secs_f64()),
        sample(metric::USER_TIME, o.user.as_secs_f64()),
        sample(metric::SYS_TIME, o.sys.as_secs_f64()),
        sample(metric::CPU_TIME, (o.user + o.sys).as_secs_f64()),
        sample(metric::MAX_RSS, o.max_rss_bytes as f64),
        sample(metric::EXIT_STATUS, f64::from(o.exit.status())),
    ];
    v.extend(o.counters.iter().map(|c| Sample {
        metric: c.name.to_string(),
        value: c.value,
        unit: c.unit.as_str().to_string(),
    }));
    v
}

fn sample(m: &str, value: f64) -> Sample {
    Sample {
        metric: m.to_string(),
        value,
        unit: metric::unit_of(m).as_str().to_string(),
    }
}

/// Told about every run as it finishes (the store, progress bars).
pub trait Observer {
    fn run_finished(&mut self, _benchmark: usize, _run: &RunRecord) -> Result<()> {
        Ok(())
    }
    /// A benchmark's number of counted runs became known (`Stopping::Budget`, after its first
    /// counted run).
    fn runs_planned(&mut self, _benchmark: usize, _counted: u32) {}
}

/// Does nothing; for callers that only want the results.
pub struct NoObserver;
impl Observer for NoObserver {}

/// Wall times of exec'ing `true`, the cost every measured run pays before its own first
/// instruction (fork excluded, exec, dynamic loading, exit and reaping included). Comparisons
/// subtract its median, as hyperfine subtracts its shell's start-up.
pub fn calibrate_startup(counters: &CounterSet, runs: u32) -> Result<Vec<f64>> {
    let argv = vec!["true".to_string()];
    let mut walls = Vec::new();
    for i in 0..=runs {
        let o = runner::run_once(&argv, OutputPolicy::Discard, counters)?;
        if i > 0 {
            walls.push(o.wall.as_secs_f64());
        }
    }
    Ok(walls)
}

/// Why an experiment stopped before its plan was done.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "reason")]
pub enum Stopped {
    /// A run failed and `Hooks::abort_on_failure` is set (hyperfine without `-i`).
    RunFailed {
        label: String,
        command: String,
        run: u32,
        warmup: bool,
        exit_status: i32,
    },
    /// SIGINT or SIGTERM: forwarded to the run in flight, which is not recorded.
    Interrupted { signal: i32 },
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stopped::RunFailed {
                label,
                command,
                run,
                warmup,
                exit_status,
            } => write!(
                f,
                "{label} `{command}` failed in {} {run} with exit status {exit_status}; \
                 stopped (use --ignore-failure to measure failing commands)",
                if *warmup { "warm-up run" } else { "run" }
            ),
            Stopped::Interrupted { signal } => write!(
                f,
                "interrupted by signal {signal}: passed on to the measured program, which was \
                 reaped; the run in flight is not recorded"
            ),
        }
    }
}

/// What [`execute_all`] did: every recorded run, and why it stopped early, if it did.
#[derive(Debug, Clone, PartialEq)]
pub struct Execution {
    pub records: Vec<Vec<RunRecord>>,
    pub stopped: Option<Stopped>,
}

/// Runs the plan and returns every run of every benchmark, warm-ups included. An early stop
/// (a failing run with `abort_on_failure`, a signal) is an error here; [`execute_all`] keeps
/// the runs made before it.
pub fn execute(
    plan: &Plan,
    counters: &CounterSet,
    observer: &mut dyn Observer,
) -> Result<Vec<Vec<RunRecord>>> {
    let e = execute_all(plan, counters, observer)?;
    match e.stopped {
        None => Ok(e.records),
        Some(s) => Err(MeasureError::Invalid(s.to_string())),
    }
}

/// One benchmark's place in the plan while it runs.
struct Ctx<'a> {
    plan: &'a Plan,
    counters: &'a CounterSet,
    output: OutputPolicy,
}

impl Ctx<'_> {
    /// Runs hook `list` for benchmark `b` (if it has one) through `sh -c`.
    fn hook(&self, what: &str, list: &[String], b: usize) -> Result<()> {
        let template = b % self.plan.config.commands.len();
        let Some(cmd) = Hooks::pick(list, template) else {
            return Ok(());
        };
        let cmd = params::substitute(cmd, &self.plan.benchmarks[b].params)?;
        let argv = vec!["sh".to_string(), "-c".to_string(), cmd.clone()];
        let o = runner::run_once(&argv, self.output, &CounterSet::none())?;
        if let Some(signal) = crate::signals::received() {
            return Err(MeasureError::Invalid(
                Stopped::Interrupted { signal }.to_string(),
            ));
        }
        if !o.exit.success() {
            return Err(MeasureError::Invalid(format!(
                "the {what} command `{cmd}` failed with exit status {} (it runs as sh -c)",
                o.exit.status()
            )));
        }
        Ok(())
    }

    /// One run of benchmark `b`, its `--prepare` first. `Err(stop)` when it must not be kept.
    fn run(&self, b: usize, index: u32, warmup: bool) -> Result<Result<RunRecord, Stopped>> {
        self.hook("prepare", &self.plan.hooks.prepare, b)?;
        let outcome = runner::run_once(&self.plan.benchmarks[b].argv, self.output, self.counters)?;
        if let Some(signal) = crate::signals::received() {
            return Ok(Err(Stopped::Interrupted { signal }));
        }
        Ok(Ok(RunRecord {
            index,
            warmup,
            outcome,
        }))
    }
}

/// [`execute`], keeping the runs made before an early stop.
pub fn execute_all(
    plan: &Plan,
    counters: &CounterSet,
    observer: &mut dyn Observer,
) -> Result<Execution> {
    let output = if plan.config.show_output {
        OutputPolicy::Inherit
    } else {
        OutputPolicy::Discard
    };
    let ctx = Ctx {
        plan,
        counters,
        output,
    };
    let mut all: Vec<Vec<RunRecord>> = vec![Vec::new(); plan.benchmarks.len()];
    for group in &plan.groups {
        let stopped = run_group(&ctx, group, &mut all, observer)?;
        if stopped.is_some() {
            return Ok(Execution {
                records: all,
                stopped,
            });
        }
        for &b in group {
            ctx.hook("cleanup", &plan.hooks.cleanup, b)?;
        }
    }
    Ok(Execution {
        records: all,
        stopped: None,
    })
}

/// Setup, warm-ups and counted runs of one group of alternating benchmarks.
fn run_group(
    ctx: &Ctx<'_>,
    group: &[usize],
    all: &mut [Vec<RunRecord>],
    observer: &mut dyn Observer,
) -> Result<Option<Stopped>> {
    let cfg = &ctx.plan.config;
    for &b in group {
        ctx.hook("setup", &ctx.plan.hooks.setup, b)?;
        if let Stopping::Fixed { runs } = cfg.stopping {
            observer.runs_planned(b, runs);
        }
    }
    for w in 0..cfg.warmup {
        for &b in group {
            let rec = match ctx.run(b, w, true)? {
                Ok(rec) => rec,
                Err(stop) => return Ok(Some(stop)),
            };
            if let Some(stop) = keep(ctx, all, b, rec, observer)? {
                return Ok(Some(stop));
            }
        }
    }
    let mut index = 0;
    loop {
        let pending: Vec<usize> = group
            .iter()
            .copied()
            .filter(|&b| !finished(cfg, &all[b]))
            .collect();
        if pending.is_empty() {
            return Ok(None);
        }
        index += 1;
        for b in pending {
            let rec = match ctx.run(b, index, false)? {
                Ok(rec) => rec,
                Err(stop) => return Ok(Some(stop)),
            };
            if let Some(stop) = keep(ctx, all, b, rec, observer)? {
                return Ok(Some(stop));
            }
        }
    }
}

/// Hands a finished run to the observer and the records; `Some` when it must stop the experiment.
fn keep(
    ctx: &Ctx<'_>,
    all: &mut [Vec<RunRecord>],
    b: usize,
    rec: RunRecord,
    observer: &mut dyn Observer,
) -> Result<Option<Stopped>> {
    observer.run_finished(b, &rec)?;
    let first_counted = !rec.warmup && !all[b].iter().any(|r| !r.warmup);
    let stop = (!rec.outcome.exit.success() && ctx.plan.hooks.abort_on_failure).then(|| {
        Stopped::RunFailed {
            label: ctx.plan.benchmarks[b].label.clone(),
            command: ctx.plan.benchmarks[b].command.clone(),
            run: rec.index,
            warmup: rec.warmup,
            exit_status: rec.outcome.exit.status(),
        }
    });
    all[b].push(rec);
    if first_counted {
        if let Some(n) = budget_runs(&ctx.plan.config, &all[b]) {
            observer.runs_planned(b, n);
        }
    }
    Ok(stop)
}

/// Counted runs under `Stopping::Budget`, once the first counted run is known: hyperfine's
/// estimate, budget / time of the first run, within [min, max].
fn budget_runs(cfg: &Config, runs: &[RunRecord]) -> Option<u32> {
    let Stopping::Budget { min, max, seconds } = cfg.stopping else {
        return None;
    };
    let first = runs.iter().find(|r| !r.warmup)?.outcome.wall.as_secs_f64();
    let estimate = (seconds / first.max(1e-9)).ceil().min(f64::from(u32::MAX)) as u32;
    Some(estimate.clamp(min.max(1), max.max(min.max(1))))
}

fn finished(cfg: &Config, runs: &[RunRecord]) -> bool {
    let counted = runs.iter().filter(|r| !r.warmup).count() as u32;
    match cfg.stopping {
        Stopping::Fixed { runs } => counted >= runs,
        Stopping::Budget { .. } => budget_runs(cfg, runs).is_some_and(|n| counted >= n),
        Stopping::Adaptive {
            min,
            max,
            target_pct,
        } => {
            if counted >= max {
                return true;
            }
            let values = primary_values(&cfg.primary_metric, runs);
            if (values.len() as u32) < min.max(2) {
                return false;
            }
            Summary::of(&values, &cfg.bootstrap)
                .is_some_and(|s| s.median_ci_width_pct() <= target_pct)
        }
    }
}

/// The primary metric of the successful counted runs.
fn primary_values(metric_name: &str, runs: &[RunRecord]) -> Vec<f64> {
    runs.iter()
        .filter(|r| !r.warmup && r.outcome.exit.success())
        .flat_map(|r| r.samples())
        .filter(|s| s.metric == metric_name)
        .map(|s| s.value)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(commands: &[&str], params: &[&str], stopping: Stopping) -> Config {
        Config {
            commands: commands
                .iter()
                .map(|c| CommandTemplate::parse(c).unwrap())
                .collect(),
            params: params.iter().map(|p| Param::parse(p).unwrap()).collect(),
            warmup: 1,
            stopping,
            primary_metric: metric::WALL_TIME.into(),
            bootstrap: Bootstrap::default(),
            show_output: false,
        }
    }

    #[test]
    fn labels() {
        assert_eq!(label_of(0), "A");
        assert_eq!(label_of(25), "Z");
        assert_eq!(label_of(26), "AA");
    }

    #[test]
    fn sweep_and_compare_make_alternating_groups() {
        let plan = Plan::new(config(
            &["echo {N} {M}", "echo b{N}"],
            &["N=1,2", "M=x,y,z"],
            Stopping::Fixed { runs: 2 },
        ))
        .unwrap();
        assert_eq!(plan.benchmarks.len(), 12);
        assert_eq!(plan.groups.len(), 6);
        assert_eq!(plan.groups[0], vec![0, 1]);
        assert_eq!(plan.benchmarks[0].argv, ["echo", "1", "x"]);
        assert_eq!(plan.benchmarks[1].argv, ["echo", "b1"]);
        assert_eq!(plan.benchmarks[1].label, "B");
        assert_eq!(plan.max_runs(), 12 * 3);
        assert!(plan.unused_params().is_empty());
    }

    #[test]
    fn unknown_parameter_and_missing_program_fail_before_running() {
        let e = Plan::new(config(&["echo {K}"], &["N=1"], Stopping::Fixed { runs: 1 }));
        assert!(e.unwrap_err().to_string().contains("{K}"));
        let e = Plan::new(config(
            &["metron-nope-xyz 1"],
            &[],
            Stopping::Fixed { runs: 1 },
        ));
        assert!(e.unwrap_err().to_string().contains("metron-nope-xyz"));
    }

    #[test]
    fn alternation_order_is_a_b_a_b() {
        struct Order(Vec<(usize, bool)>);
        impl Observer for Order {
            fn run_finished(&mut self, b: usize, r: &RunRecord) -> Result<()> {
                self.0.push((b, r.warmup));
                Ok(())
            }
        }
        let plan = Plan::new(config(&["true", "true"], &[], Stopping::Fixed { runs: 3 })).unwrap();
        let mut order = Order(Vec::new());
        let runs = execute(&plan, &CounterSet::none(), &mut order).unwrap();
        assert_eq!(
            order.0,
            vec![
                (0, true),
                (1, true),
                (0, false),
                (1, false),
                (0, false),
                (1, false),
                (0, false),
                (1, false)
            ]
        );
        assert_eq!(runs[0].len(), 4);
    }

    #[test]
    fn adaptive_stopping_respects_min_and_max() {
        // `true` is fast and steady-ish; a 0% target can never be met, so it runs to max.
        let plan = Plan::new(config(
            &["true"],
            &[],
            Stopping::Adaptive {
                min: 3,
                max: 6,
                target_pct: 0.0,
            },
        ))
        .unwrap();
        let runs = execute(&plan, &CounterSet::none(), &mut NoObserver).unwrap();
        assert_eq!(runs[0].iter().filter(|r| !r.warmup).count(), 6);
        // An infinite target is met as soon as min runs exist.
        let mut cfg = plan.config.clone();
        cfg.stopping = Stopping::Adaptive {
            min: 3,
            max: 50,
            target_pct: f64::INFINITY,
        };
        let runs = execute(
            &Plan::new(cfg).unwrap(),
            &CounterSet::none(),
            &mut NoObserver,
        )
        .unwrap();
        assert_eq!(runs[0].iter().filter(|r| !r.warmup).count(), 3);
    }
}
