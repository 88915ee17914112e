//! The result of an experiment, as metron prints it (table) and publishes it (`--json`,
//! schema in docs/measure-json.md). It is built the same way from a live run and from the
//! store, so `metron show ID` prints what `metron measure` printed.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::counters::Availability;
use crate::environment::Environment;
use crate::experiment::{BenchmarkSpec, Config, Hooks, Stopping};
use crate::metric;
use crate::stats::{Interval, Summary};
use crate::units::{format_in, TimeUnit, Unit};
use metron_store::Sample;

/// Version tag of the JSON layout; bumped on any incompatible change.
pub const SCHEMA: &str = "metron.measure/1";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Report {
    pub schema: String,
    pub experiment: Option<ExperimentInfo>,
    pub environment: Environment,
    pub counters: Availability,
    pub config: Config,
    pub benchmarks: Vec<BenchmarkReport>,
    pub comparisons: Vec<Comparison>,
    /// Wall time of exec'ing `true` (seconds), measured before the experiment when it compares
    /// commands.
    pub startup: Option<Summary>,
    pub warnings: Vec<String>,
    /// Setup, prepare and cleanup commands, command names, abort on failure.
    #[serde(default)]
    pub hooks: Hooks,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ExperimentInfo {
    /// `measure` for `metron measure`; other kinds (`matlab-bench`, ...) are shown the same way.
    #[serde(default = "measure_kind")]
    pub kind: String,
    pub id: i64,
    pub store: String,
    pub status: String,
    pub started_at: String,
    pub finished_at: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BenchmarkReport {
    pub position: usize,
    pub label: String,
    /// `--command-name`, if one was given.
    #[serde(default)]
    pub name: Option<String>,
    pub command: String,
    pub argv: Vec<String>,
    pub params: BTreeMap<String, String>,
    pub warmup_runs: usize,
    pub runs: Vec<RunReport>,
    pub failed_runs: usize,
    /// Over successful counted runs only, in metron's display order of metrics.
    pub metrics: Vec<MetricSummary>,
    /// With `--target-ci`: whether this benchmark reached the target.
    #[serde(default)]
    pub target: Option<TargetOutcome>,
}

impl BenchmarkReport {
    pub fn display_name(&self) -> &str {
        self.name.as_deref().unwrap_or(&self.command)
    }
}

/// The stopping rule of `--target-ci`, checked on the runs as they are.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TargetOutcome {
    /// Asked-for width of the median's 95% CI, percent of the median.
    pub target_pct: f64,
    /// Width reached; null when no run succeeded.
    pub reached_pct: Option<f64>,
    pub met: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    pub index: u32,
    pub ok: bool,
    pub exit_status: i32,
    pub metrics: BTreeMap<String, f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricSummary {
    pub metric: String,
    pub unit: Unit,
    #[serde(flatten)]
    pub summary: Summary,
}

/// Ratio of the medians of the primary metric, A over another command of the same group.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    pub params: BTreeMap<String, String>,
    pub a: String,
    pub b: String,
    pub metric: String,
    pub ratio: f64,
    pub ci: Interval,
    /// The same ratio after subtracting the median process start-up time from both sides
    /// (`Report::startup`); present when start-up was calibrated.
    pub corrected: Option<CorrectedRatio>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CorrectedRatio {
    pub startup: f64,
    pub ratio: f64,
    pub ci: Interval,
}

fn measure_kind() -> String {
    "measure".to_string()
}

/// A stored or live run, reduced to what the report needs.
#[derive(Debug, Clone, PartialEq)]
pub struct RunData {
    pub index: u32,
    pub warmup: bool,
    pub ok: bool,
    pub exit_status: i32,
    pub samples: Vec<Sample>,
}

impl Report {
    pub fn build(
        config: Config,
        environment: Environment,
        counters: Availability,
        benchmarks: &[(BenchmarkSpec, Vec<RunData>)],
        groups: &[Vec<usize>],
        startup_samples: &[f64],
    ) -> Report {
        let startup = Summary::of(startup_samples, &config.bootstrap);
        let mut warnings = Vec::new();
        let reports: Vec<BenchmarkReport> = benchmarks
            .iter()
            .enumerate()
            .map(|(i, (spec, runs))| benchmark_report(i, spec, runs, &config, &mut warnings))
            .collect();
        let comparisons = groups
            .iter()
            .flat_map(|g| compare_group(g, &reports, benchmarks, &config, startup.as_ref()))
            .collect();
        Report {
            schema: SCHEMA.to_string(),
            experiment: None,
            environment,
            counters,
            config,
            benchmarks: reports,
            comparisons,
            startup,
            warnings,
            hooks: Hooks::default(),
        }
    }

    /// Benchmarks that stopped without reaching `--target-ci`, one message each, saying what
    /// was reached.
    pub fn unmet_targets(&self) -> Vec<String> {
        self.benchmarks
            .iter()
            .filter_map(|b| {
                let t = b.target.as_ref().filter(|t| !t.met)?;
                let reached = t
                    .reached_pct
                    .map_or("no successful run".to_string(), |p| format!("{p:.2}%"));
                Some(format!(
                    "{} `{}`: target CI {}% not met: reached {reached} after {} runs",
                    b.label,
                    b.display_name(),
                    t.target_pct,
                    b.runs.len()
                ))
            })
            .collect()
    }

    /// True when some benchmark had no successful run at all.
    pub fn any_benchmark_failed_entirely(&self) -> bool {
        self.benchmarks
            .iter()
            .any(|b| b.metrics.is_empty() && !b.runs.is_empty())
    }
}

fn benchmark_report(
    position: usize,
    spec: &BenchmarkSpec,
    runs: &[RunData],
    config: &Config,
    warnings: &mut Vec<String>,
) -> BenchmarkReport {
    let counted: Vec<&RunData> = runs.iter().filter(|r| !r.warmup).collect();
    let good: Vec<&RunData> = counted.iter().copied().filter(|r| r.ok).collect();
    let failed = counted.len() - good.len();
    if failed > 0 {
        let statuses: Vec<String> = counted
            .iter()
            .filter(|r| !r.ok)
            .map(|r| r.exit_status.to_string())
            .collect();
        warnings.push(format!(
            "{} `{}`: {failed} of {} runs failed (exit status {}); they are excluded from the statistics",
            spec.label,
            spec.command,
            counted.len(),
            dedup(statuses).join(", ")
        ));
    }
    let mut names: Vec<String> = good
        .iter()
        .flat_map(|r| r.samples.iter().map(|s| s.metric.clone()))
        .filter(|m| m != metric::EXIT_STATUS)
        .collect();
    names.sort_by_key(|m| (metric::rank(m), m.clone()));
    names.dedup();
    let metrics: Vec<MetricSummary> = names
        .into_iter()
        .filter_map(|m| {
            let values: Vec<f64> = good
                .iter()
                .filter_map(|r| r.samples.iter().find(|s| s.metric == m).map(|s| s.value))
                .collect();
            let unit = good
                .iter()
                .find_map(|r| r.samples.iter().find(|s| s.metric == m))
                .and_then(|s| Unit::parse(&s.unit))
                .unwrap_or(metric::unit_of(&m));
            Some(MetricSummary {
                summary: Summary::of(&values, &config.bootstrap)?,
                metric: m,
                unit,
            })
        })
        .collect();
    let target = match config.stopping {
        Stopping::Adaptive { target_pct, .. } => {
            let reached_pct = metrics
                .iter()
                .find(|m: &&MetricSummary| m.metric == config.primary_metric)
                .map(|m| m.summary.median_ci_width_pct());
            Some(TargetOutcome {
                target_pct,
                reached_pct,
                met: reached_pct.is_some_and(|p| p <= target_pct),
            })
        }
        _ => None,
    };
    BenchmarkReport {
        position,
        label: spec.label.clone(),
        name: spec.name.clone(),
        target,
        command: spec.command.clone(),
        argv: spec.argv.clone(),
        params: spec.params.iter().cloned().collect(),
        warmup_runs: runs.len() - counted.len(),
        runs: counted
            .iter()
            .map(|r| RunReport {
                index: r.index,
                ok: r.ok,
                exit_status: r.exit_status,
                metrics: r
                    .samples
                    .iter()
                    .map(|s| (s.metric.clone(), s.value))
                    .collect(),
            })
            .collect(),
        failed_runs: failed,
        metrics,
    }
}

fn dedup(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v.dedup();
    v
}

fn compare_group(
    group: &[usize],
    reports: &[BenchmarkReport],
    benchmarks: &[(BenchmarkSpec, Vec<RunData>)],
    config: &Config,
    startup: Option<&Summary>,
) -> Vec<Comparison> {
    let values = |i: usize| -> Vec<f64> {
        benchmarks[i]
            .1
            .iter()
            .filter(|r| !r.warmup && r.ok)
            .filter_map(|r| {
                r.samples
                    .iter()
                    .find(|s| s.metric == config.primary_metric)
                    .map(|s| s.value)
            })
            .collect()
    };
    let Some((&a, rest)) = group.split_first() else {
        return Vec::new();
    };
    let va = values(a);
    rest.iter()
        .filter_map(|&b| {
            let vb = values(b);
            let median = |s: &[f64]| crate::stats::median(s).unwrap_or(f64::NAN);
            let ci = config.bootstrap.ratio_interval(&va, &vb, median)?;
            // Start-up is wall time; other metrics are not corrected.
            let corrected = startup
                .filter(|_| config.primary_metric == metric::WALL_TIME)
                .and_then(|s| {
                    let less = |v: &[f64]| v.iter().map(|x| x - s.median).collect::<Vec<_>>();
                    let (ca, cb) = (less(&va), less(&vb));
                    Some(CorrectedRatio {
                        startup: s.median,
                        ratio: median(&ca) / median(&cb),
                        ci: config.bootstrap.ratio_interval(&ca, &cb, median)?,
                    })
                });
            Some(Comparison {
                params: reports[a].params.clone(),
                a: reports[a].label.clone(),
                b: reports[b].label.clone(),
                metric: config.primary_metric.clone(),
                ratio: median(&va) / median(&vb),
                ci,
                corrected,
            })
        })
        .collect()
}

/// The machine in one line, so that a pasted result says where it came from.
fn environment_line(e: &Environment) -> String {
    let mut parts = vec![
        format!(
            "{} × {}",
            e.cores,
            e.cpu_model.as_deref().unwrap_or("unknown CPU")
        ),
        format!("Linux {}", e.kernel),
    ];
    if let Some(g) = &e.governor {
        parts.push(format!("governor {g}"));
    }
    if let Some([one, _, _]) = e.load_average {
        parts.push(format!("load {one:.2}"));
    }
    if let Some(git) = &e.git {
        let short: String = git.commit.chars().take(10).collect();
        parts.push(format!(
            "git {short}{}",
            if git.dirty { " (dirty)" } else { "" }
        ));
    }
    format!("Machine: {}", parts.join(", "))
}

/// What 000 App. A.1 asks of a measurement machine, checked at the start.
pub fn environment_warnings(e: &Environment) -> Vec<String> {
    let mut w = Vec::new();
    if let Some([one, _, _]) = e.load_average {
        if one > 0.5 * e.cores as f64 {
            w.push(format!(
                "the machine was busy when the experiment started (load {one:.2} on {} CPUs): expect noisy timings",
                e.cores
            ));
        }
    }
    if let Some(g) = e.governor.as_deref().filter(|g| *g != "performance") {
        w.push(format!(
            "CPU frequency governor is `{g}`, not `performance`: the clock rate may change during runs"
        ));
    }
    w
}

/// One line per benchmark: the primary metric's median and CI, for sweeps and comparisons.
fn render_summary(out: &mut String, r: &Report, tu: Option<TimeUnit>) {
    let name = metric::label(&r.config.primary_metric);
    let _ = writeln!(out, "Summary ({name}, median and 95% CI)");
    for b in &r.benchmarks {
        let params: Vec<String> = b.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let cell = match b
            .metrics
            .iter()
            .find(|m| m.metric == r.config.primary_metric)
        {
            Some(m) => {
                let f = |v: f64| format_in(m.unit, v, tu);
                let s = &m.summary;
                format!(
                    "{:>11}  [{}, {}]",
                    f(s.median),
                    f(s.ci_median.lo),
                    f(s.ci_median.hi)
                )
            }
            None => "no successful run".to_string(),
        };
        let _ = writeln!(
            out,
            "  {:<3} {:<20} {cell}   {}",
            b.label,
            params.join(" "),
            b.display_name()
        );
    }
    out.push('\n');
}

/// The human table: per benchmark, one line per metric; then comparisons and notes.
pub fn render_table(r: &Report) -> String {
    render_table_in(r, None)
}

/// [`render_table`] with times in a fixed unit (`--time-unit`).
pub fn render_table_in(r: &Report, tu: Option<TimeUnit>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}\n", environment_line(&r.environment));
    let total = r.benchmarks.len();
    for b in &r.benchmarks {
        let ok = b.runs.len() - b.failed_runs;
        let _ = writeln!(
            out,
            "Benchmark {}/{total} [{}]: {}",
            b.position + 1,
            b.label,
            match &b.name {
                Some(n) => format!("{n} ({})", b.command),
                None => b.command.clone(),
            }
        );
        let _ = writeln!(
            out,
            "  {ok} runs ({} failed), {} warm-up",
            b.failed_runs, b.warmup_runs
        );
        if b.metrics.is_empty() {
            let _ = writeln!(out, "  no successful run: nothing to summarise\n");
            continue;
        }
        let _ = writeln!(
            out,
            "  {:<17} {:>11}  {:<25} {:>11} {:>11} {:>11} {:>11}",
            "metric", "median", "95% CI of median", "mean", "σ", "min", "max"
        );
        for m in &b.metrics {
            let f = |v: f64| format_in(m.unit, v, tu);
            let s = &m.summary;
            let _ = writeln!(
                out,
                "  {:<17} {:>11}  {:<25} {:>11} {:>11} {:>11} {:>11}",
                metric::label(&m.metric),
                f(s.median),
                format!("[{}, {}]", f(s.ci_median.lo), f(s.ci_median.hi)),
                f(s.mean),
                f(s.std_dev),
                f(s.min),
                f(s.max)
            );
        }
        if let Some(primary) = b
            .metrics
            .iter()
            .find(|m| m.metric == r.config.primary_metric)
        {
            let outliers = &primary.summary.outliers;
            if !outliers.is_empty() {
                let _ = writeln!(
                    out,
                    "  {} outlier(s) in {} by the IQR rule ({} severe)",
                    outliers.len(),
                    metric::label(&primary.metric),
                    outliers
                        .iter()
                        .filter(|o| o.severity == crate::stats::Severity::Severe)
                        .count()
                );
            }
        }
        out.push('\n');
    }
    if r.benchmarks.len() > 1 {
        render_summary(&mut out, r, tu);
    }
    if !r.comparisons.is_empty() {
        let _ = writeln!(
            out,
            "Comparison (ratio of medians of {}, 95% bootstrap CI)",
            metric::label(&r.config.primary_metric)
        );
        for c in &r.comparisons {
            let params = if c.params.is_empty() {
                String::new()
            } else {
                let p: Vec<String> = c.params.iter().map(|(k, v)| format!("{k}={v}")).collect();
                format!("  [{}]", p.join(" "))
            };
            match &c.corrected {
                Some(k) => {
                    let _ = writeln!(
                        out,
                        "  {}/{} = {:.4}  [{:.4}, {:.4}]  less {} start-up;  raw {:.4}  [{:.4}, {:.4}]{params}",
                        c.a, c.b, k.ratio, k.ci.lo, k.ci.hi, crate::units::format_seconds(k.startup),
                        c.ratio, c.ci.lo, c.ci.hi
                    );
                }
                None => {
                    let _ = writeln!(
                        out,
                        "  {}/{} = {:.4}  [{:.4}, {:.4}]{params}",
                        c.a, c.b, c.ratio, c.ci.lo, c.ci.hi
                    );
                }
            }
        }
        out.push('\n');
    }
    if let Stopping::Adaptive { target_pct, .. } = r.config.stopping {
        let unmet = r.unmet_targets();
        if unmet.is_empty() {
            let _ = writeln!(
                out,
                "Stopping rule: 95% CI of the median narrower than {target_pct}% of it: met\n"
            );
        } else {
            let _ = writeln!(
                out,
                "Stopping rule --target-ci {target_pct}%: NOT MET, the 95% CI of the median stayed wider"
            );
            for u in unmet {
                let _ = writeln!(out, "  {u}");
            }
            out.push('\n');
        }
    }
    for note in environment_warnings(&r.environment) {
        let _ = writeln!(out, "warning: {note}");
    }
    for note in r.counters.notes() {
        let _ = writeln!(out, "note: {note}");
    }
    for w in &r.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    out
}

impl Report {
    /// The report of runs that were not (or not yet) stored.
    pub fn from_records(
        plan: &crate::experiment::Plan,
        environment: Environment,
        counters: Availability,
        records: &[Vec<crate::experiment::RunRecord>],
        startup_samples: &[f64],
    ) -> Report {
        let benchmarks: Vec<(BenchmarkSpec, Vec<RunData>)> = plan
            .benchmarks
            .iter()
            .zip(records)
            .map(|(spec, runs)| {
                let data = runs
                    .iter()
                    .map(|r| RunData {
                        index: r.index,
                        warmup: r.warmup,
                        ok: r.outcome.exit.success(),
                        exit_status: r.outcome.exit.status(),
                        samples: r.samples(),
                    })
                    .collect();
                (spec.clone(), data)
            })
            .collect();
        let mut report = Report::build(
            plan.config.clone(),
            environment,
            counters,
            &benchmarks,
            &plan.groups,
            startup_samples,
        );
        report.hooks = plan.hooks.clone();
        report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(load: f64, governor: Option<&str>) -> Environment {
        let mut e = Environment::capture(std::path::Path::new("/"));
        e.cores = 4;
        e.load_average = Some([load, 0.0, 0.0]);
        e.governor = governor.map(String::from);
        e
    }

    #[test]
    fn a_busy_or_frequency_scaling_machine_is_flagged() {
        assert!(environment_warnings(&env(0.5, Some("performance"))).is_empty());
        let w = environment_warnings(&env(3.0, Some("powersave")));
        assert_eq!(w.len(), 2, "{w:?}");
        assert!(w[0].contains("load 3.00 on 4 CPUs"));
        assert!(w[1].contains("powersave"));
        assert!(environment_line(&env(0.5, None)).starts_with("Machine: 4 × "));
    }
}
