//! Writing experiments to the store as they run, and reading them back as reports.

use std::path::Path;

use metron_store::{BenchmarkId, ExperimentId, NewBenchmark, NewExperiment, NewRun, Status, Store};
use serde::{Deserialize, Serialize};

use crate::counters::Availability;
use crate::environment::Environment;
use crate::experiment::{BenchmarkSpec, Config, Hooks, Observer, Plan, RunRecord};
use crate::report::{ExperimentInfo, Report, RunData};
use crate::{MeasureError, Result};

/// The experiment kind `metron measure` writes.
pub const KIND: &str = "measure";

/// What is kept in the experiment's `config` column: enough to rebuild the report.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct StoredConfig {
    config: Config,
    counters: Availability,
    groups: Vec<Vec<usize>>,
    /// Start-up calibration (`experiment::calibrate_startup`), seconds.
    #[serde(default)]
    startup: Vec<f64>,
    #[serde(default)]
    hooks: Hooks,
}

/// Commits every run as it finishes.
pub struct StoreObserver<'s> {
    store: &'s mut Store,
    pub experiment: ExperimentId,
    benchmarks: Vec<BenchmarkId>,
}

impl<'s> StoreObserver<'s> {
    /// Registers the experiment and its benchmarks before the first run.
    pub fn begin(
        store: &'s mut Store,
        plan: &Plan,
        environment: &Environment,
        counters: &Availability,
        startup: &[f64],
        argv: &[String],
    ) -> Result<Self> {
        let stored = StoredConfig {
            config: plan.config.clone(),
            counters: counters.clone(),
            groups: plan.groups.clone(),
            startup: startup.to_vec(),
            hooks: plan.hooks.clone(),
        };
        let experiment = store.begin_experiment(&NewExperiment {
            kind: KIND,
            name: plan.benchmarks.first().map(|b| b.command.as_str()),
            metron_version: env!("CARGO_PKG_VERSION"),
            argv: &serde_json::json!(argv),
            environment: &to_json(environment)?,
            config: &to_json(&stored)?,
            host: Some(&environment.hostname),
        })?;
        let benchmarks = plan
            .benchmarks
            .iter()
            .enumerate()
            .map(|(i, b)| {
                store.add_benchmark(
                    experiment,
                    &NewBenchmark {
                        position: i as u32,
                        label: &b.label,
                        command: &b.command,
                        argv: &b.argv,
                        params: &b.params,
                    },
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(StoreObserver {
            store,
            experiment,
            benchmarks,
        })
    }

    pub fn finish(self, ok: bool) -> Result<ExperimentId> {
        self.finish_as(if ok { Status::Complete } else { Status::Failed })
    }

    /// Ends the experiment with any status (`Incomplete` for a target not met,
    /// `Interrupted` for a signal).
    pub fn finish_as(self, status: Status) -> Result<ExperimentId> {
        self.store.finish_experiment(self.experiment, status)?;
        Ok(self.experiment)
    }
}

impl Observer for StoreObserver<'_> {
    fn run_finished(&mut self, benchmark: usize, run: &RunRecord) -> Result<()> {
        let samples = run.samples();
        self.store.record_run(&NewRun {
            benchmark: self.benchmarks[benchmark],
            index: run.index,
            warmup: run.warmup,
            exit_code: match run.outcome.exit {
                crate::runner::Exit::Code(c) => Some(c),
                crate::runner::Exit::Signal(_) => None,
            },
            signal: match run.outcome.exit {
                crate::runner::Exit::Signal(s) => Some(s),
                crate::runner::Exit::Code(_) => None,
            },
            ok: run.outcome.exit.success(),
            samples: &samples,
        })?;
        Ok(())
    }
}

fn to_json<T: Serialize>(v: &T) -> Result<serde_json::Value> {
    serde_json::to_value(v).map_err(|e| MeasureError::Invalid(format!("serialising: {e}")))
}

/// Rebuilds the report of a stored `measure` experiment from its raw runs.
pub fn load_report(store: &Store, id: ExperimentId) -> Result<Report> {
    let row = store.experiment(id)?;
    let corrupt = |what: &str, e: serde_json::Error| {
        MeasureError::Invalid(format!(
            "{}: experiment {}: unreadable {what}: {e}",
            store.path().display(),
            id.0
        ))
    };
    let environment: Environment =
        serde_json::from_value(row.environment.clone()).map_err(|e| corrupt("environment", e))?;
    // Other kinds (a MATLAB bench, later tuning campaigns) keep their own config; they are
    // summarised with the same statistics, each benchmark on its own.
    let stored: Option<StoredConfig> = if row.kind == KIND {
        Some(serde_json::from_value(row.config.clone()).map_err(|e| corrupt("config", e))?)
    } else {
        None
    };
    let name_of = |position: u32, params: &[(String, String)]| -> Option<String> {
        let s = stored.as_ref()?;
        let n = s.hooks.names.len();
        let t = position as usize % s.config.commands.len().max(1);
        let name = if n == 1 {
            s.hooks.names.first()
        } else {
            s.hooks.names.get(t)
        }?;
        crate::params::substitute(name, params).ok()
    };
    let bench_rows = store.benchmarks(id)?;
    let runs = store.runs(id)?;
    let benchmarks: Vec<(BenchmarkSpec, Vec<RunData>)> = bench_rows
        .iter()
        .map(|b| {
            let spec = BenchmarkSpec {
                label: b.label.clone(),
                command: b.command.clone(),
                argv: b.argv.clone(),
                params: b.params.clone(),
                name: name_of(b.position, &b.params),
            };
            let data = runs
                .iter()
                .filter(|r| r.benchmark == b.id)
                .map(|r| RunData {
                    index: r.index,
                    warmup: r.warmup,
                    ok: r.ok,
                    exit_status: r.exit_code.unwrap_or_else(|| 128 + r.signal.unwrap_or(0)),
                    samples: r.samples.clone(),
                })
                .collect();
            (spec, data)
        })
        .collect();
    let stored = stored.unwrap_or_else(|| generic_config(&benchmarks));
    let mut report = Report::build(
        stored.config,
        environment,
        stored.counters,
        &benchmarks,
        &stored.groups,
        &stored.startup,
    );
    report.hooks = stored.hooks;
    report.experiment = Some(ExperimentInfo {
        kind: row.kind,
        id: id.0,
        store: display_path(store.path()),
        status: row.status,
        started_at: row.started_at,
        finished_at: row.finished_at,
    });
    Ok(report)
}

/// A config for an experiment that `metron measure` did not write: parameters as the
/// benchmarks name them, the most frequent metric as the primary one, no comparisons.
fn generic_config(benchmarks: &[(BenchmarkSpec, Vec<RunData>)]) -> StoredConfig {
    let mut params: Vec<crate::params::Param> = Vec::new();
    let mut metric_counts: std::collections::BTreeMap<&str, usize> = Default::default();
    let mut most_runs = 0;
    for (spec, runs) in benchmarks {
        for (name, value) in &spec.params {
            match params.iter_mut().find(|p| &p.name == name) {
                Some(p) if !p.values.contains(value) => p.values.push(value.clone()),
                Some(_) => {}
                None => params.push(crate::params::Param {
                    name: name.clone(),
                    values: vec![value.clone()],
                }),
            }
        }
        most_runs = most_runs.max(runs.iter().filter(|r| !r.warmup).count() as u32);
        for s in runs.iter().flat_map(|r| &r.samples) {
            *metric_counts.entry(s.metric.as_str()).or_default() += 1;
        }
    }
    let primary = metric_counts
        .iter()
        .max_by_key(|(_, n)| **n)
        .map(|(m, _)| m.to_string())
        .unwrap_or_else(|| crate::metric::WALL_TIME.to_string());
    StoredConfig {
        config: Config {
            commands: benchmarks
                .iter()
                .map(|(b, _)| crate::experiment::CommandTemplate::new(b.argv.clone()))
                .collect(),
            params,
            warmup: 0,
            stopping: crate::experiment::Stopping::Fixed { runs: most_runs },
            primary_metric: primary,
            bootstrap: crate::stats::Bootstrap::default(),
            show_output: false,
        },
        counters: Availability::default(),
        groups: (0..benchmarks.len()).map(|i| vec![i]).collect(),
        startup: Vec::new(),
        hooks: Hooks::default(),
    }
}

fn display_path(p: &Path) -> String {
    p.display().to_string()
}
