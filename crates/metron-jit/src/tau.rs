//! Costing transformations (001 §5): the time/cost ratio k = t/Γ of a task as its tuning
//! parameter τ varies, the Table-5 summary of where k is stable, and the tuning step of §5.1
//! that picks a new τ from a target task time through the skeleton's cost derivative.
//!
//! A task function is a Python script (`examples/jit/tasks`) that runs a warm-up, then one task
//! of size τ. Its cost comes from two-run differencing (001 §5.2.2, [`crate::difference`]); its
//! time from separate runs without `PYPYLOG`, taken inside the process around the task call,
//! because the smallest tasks last microseconds and pypy3 takes tens of milliseconds to start.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use metron_measure::counters::CounterSet;
use metron_measure::runner::{self, OutputPolicy};
use metron_measure::stats::{Bootstrap, Summary};

use crate::calibration::{Clock, RunTime};
use crate::cost::{analyze, CostModel, Weights};
use crate::difference::task_cost;
use crate::error::JitError;
use crate::log::parse_file;
use crate::op_class::OpClassTable;
use crate::pypy;

/// How a task's cost changes with τ (001 §5.1): the skeleton's cost derivative.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CostDerivative {
    /// parMapChunk, "1": doubling the chunk doubles the cost, γ ∝ τ.
    Constant,
    /// parMapStride, "1/x": doubling the stride halves the cost, γ ∝ 1/τ.
    Inverse,
    /// parDivconqThresh on Fibonacci, "phi^x": a task is fib(τ), γ ∝ φ^τ.
    GoldenPower,
}

/// φ, the growth of fib's call tree per unit of τ.
pub const GOLDEN_RATIO: f64 = 1.618_033_988_749_895;

impl CostDerivative {
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim() {
            "1" => Some(Self::Constant),
            "1/x" => Some(Self::Inverse),
            "phi^x" => Some(Self::GoldenPower),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Constant => "1",
            Self::Inverse => "1/x",
            Self::GoldenPower => "phi^x",
        }
    }

    /// γ(τ1)/γ(τ0) as the derivative predicts it.
    pub fn cost_ratio(self, tau0: f64, tau1: f64) -> f64 {
        match self {
            Self::Constant => tau1 / tau0,
            Self::Inverse => tau0 / tau1,
            Self::GoldenPower => GOLDEN_RATIO.powf(tau1 - tau0),
        }
    }

    /// The τ1 with γ(τ1)/γ(τ0) = `ratio`, the inverse of [`Self::cost_ratio`] (001 §5.1).
    pub fn tau_for_ratio(self, tau0: f64, ratio: f64) -> f64 {
        match self {
            Self::Constant => tau0 * ratio,
            Self::Inverse => tau0 / ratio,
            Self::GoldenPower => tau0 + ratio.ln() / GOLDEN_RATIO.ln(),
        }
    }
}

/// A task function: its script and the constants it declares.
#[derive(Debug, Clone, Serialize)]
pub struct TaskSpec {
    pub path: PathBuf,
    /// The script's file stem (`matmul_chunked`).
    pub name: String,
    pub skeleton: String,
    pub derivative: CostDerivative,
    /// The experiment's τ values (`TAUS = [...]`).
    pub taus: Vec<u64>,
}

impl TaskSpec {
    pub fn from_file(path: &Path) -> Result<Self, JitError> {
        let text = crate::error::read_text(path)?;
        Self::parse(&text, path)
    }

    /// Reads the module-level `SKELETON = "..."`, `COST_DERIVATIVE = "..."` and
    /// `TAUS = [...]` lines of a task script.
    pub fn parse(text: &str, path: &Path) -> Result<Self, JitError> {
        let spec_err = |what: String| JitError::Spec {
            path: path.to_path_buf(),
            what,
        };
        let mut skeleton = None;
        let mut derivative = None;
        let mut taus = None;
        for (i, line) in text.lines().enumerate() {
            let Some((name, value)) = line.split_once('=') else {
                continue;
            };
            let value = value.split('#').next().unwrap_or("").trim();
            let at = |what: &str| JitError::Table {
                path: path.to_path_buf(),
                line: i + 1,
                what: format!("{what}, found `{}`", line.trim()),
            };
            match name.trim_end() {
                "SKELETON" => {
                    skeleton = Some(
                        unquote(value).ok_or_else(|| at("expected SKELETON = \"parMapChunk\""))?,
                    )
                }
                "COST_DERIVATIVE" => {
                    let d = unquote(value)
                        .as_deref()
                        .and_then(CostDerivative::parse)
                        .ok_or_else(|| {
                            at("expected COST_DERIVATIVE = \"1\", \"1/x\" or \"phi^x\"")
                        })?;
                    derivative = Some(d);
                }
                "TAUS" => {
                    let inner = value
                        .strip_prefix('[')
                        .and_then(|v| v.strip_suffix(']'))
                        .ok_or_else(|| at("expected TAUS = [1, 2, 4] on one line"))?;
                    let list: Result<Vec<u64>, _> = inner
                        .split(',')
                        .map(str::trim)
                        .filter(|s| !s.is_empty())
                        .map(|s| s.replace('_', "").parse::<u64>())
                        .collect();
                    taus = Some(list.map_err(|_| at("expected TAUS to list positive integers"))?);
                }
                _ => {}
            }
        }
        let name = path
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(TaskSpec {
            path: path.to_path_buf(),
            name,
            skeleton: skeleton.ok_or_else(|| {
                spec_err(
                    "no `SKELETON = \"...\"` line: not a task function (see examples/jit/tasks)"
                        .into(),
                )
            })?,
            derivative: derivative.ok_or_else(|| {
                spec_err(
                    "no `COST_DERIVATIVE = \"...\"` line: expected \"1\", \"1/x\" or \"phi^x\""
                        .into(),
                )
            })?,
            taus: taus.ok_or_else(|| spec_err("no `TAUS = [...]` line".into()))?,
        })
    }
}

fn unquote(v: &str) -> Option<String> {
    let v = v.trim();
    ['"', '\'']
        .iter()
        .find_map(|q| v.strip_prefix(*q).and_then(|r| r.strip_suffix(*q)))
        .map(str::to_string)
}

/// The cost models of 001 §4, in the order they are reported.
pub fn models(weights: &Weights) -> Vec<CostModel> {
    vec![
        CostModel::Cm0,
        CostModel::Cmc,
        CostModel::Cmw(weights.clone()),
    ]
}

/// How a τ point is measured.
#[derive(Debug, Clone)]
pub struct TauOptions {
    pub clock: Clock,
    /// Timed repetitions of the task inside one process (after its warm-up).
    pub repeat: u32,
    /// Processes for timing, each running the warm-up and `repeat` tasks.
    pub processes: u32,
    /// Stop repeating in a process once this much task time is spent (after 3 repetitions).
    pub budget_seconds: f64,
    pub classes: OpClassTable,
    pub weights: Weights,
    /// Where the logs and time files go.
    pub workdir: PathBuf,
}

/// One τ of one task: its time, its cost per model and k = t/Γ.
#[derive(Debug, Clone, Serialize)]
pub struct TauPoint {
    pub tau: u64,
    pub clock: Clock,
    /// Task times in seconds on `clock`, every repetition of every timing process.
    pub times: Vec<f64>,
    /// Wall and CPU time of every repetition.
    pub runs: Vec<RunTime>,
    pub time: Summary,
    /// Task Γ by two-run differencing, per model name (CM0, CMC, CMW).
    pub gamma: BTreeMap<String, f64>,
    /// k = median time / Γ, per model (001 §5.1).
    pub k: BTreeMap<String, f64>,
    pub warnings: Vec<String>,
}

/// The task's Γ per model, and the warnings of the analysis, of one τ.
pub type TaskCosts = (BTreeMap<String, f64>, Vec<String>);

/// Two logged runs, warm-up alone and warm-up plus task, differenced (001 §5.2.2).
pub fn measure_costs(
    spec: &TaskSpec,
    tau: u64,
    opts: &TauOptions,
    on_step: &mut dyn FnMut(&str),
) -> Result<TaskCosts, JitError> {
    std::fs::create_dir_all(&opts.workdir).map_err(|source| JitError::Io {
        path: opts.workdir.clone(),
        source,
    })?;
    let tau_arg = tau.to_string();
    let warm_log = opts
        .workdir
        .join(format!("{}-tau{tau}-warmup.log", spec.name));
    let full_log = opts
        .workdir
        .join(format!("{}-tau{tau}-full.log", spec.name));
    on_step(&format!("τ={tau}: recording the warm-up alone"));
    let warm_args = vec!["--tau".to_string(), tau_arg.clone(), "--warmup-only".into()];
    pypy::record(&spec.path, &warm_args, &warm_log, pypy::DEFAULT_SECTIONS)?;
    on_step(&format!("τ={tau}: recording warm-up and task"));
    let full_args = vec!["--tau".to_string(), tau_arg];
    pypy::record(&spec.path, &full_args, &full_log, pypy::DEFAULT_SECTIONS)?;
    let warm = parse_file(&warm_log)?;
    let full = parse_file(&full_log)?;
    let mut gamma = BTreeMap::new();
    let mut warnings = Vec::new();
    for model in models(&opts.weights) {
        let w = analyze(&warm, &opts.classes, &model);
        let f = analyze(&full, &opts.classes, &model);
        let task = task_cost(&w, &f);
        if model == CostModel::Cmc {
            warnings.extend(w.warnings.iter().chain(&f.warnings).cloned());
            warnings.extend(task.warnings.iter().cloned());
        }
        gamma.insert(model.name().to_string(), task.gamma);
    }
    Ok((gamma, warnings))
}

/// Measures every τ: first the costs, then the timing processes in rounds over all τ
/// (round 1 times every τ once, then round 2, ...), so that a burst of load on the shared
/// machine spreads over the τ values instead of shifting one of them.
pub fn measure_sweep(
    spec: &TaskSpec,
    taus: &[u64],
    opts: &TauOptions,
    mut on_step: impl FnMut(&str),
) -> Result<Vec<TauPoint>, JitError> {
    let mut costs = Vec::new();
    for &tau in taus {
        costs.push(measure_costs(spec, tau, opts, &mut on_step)?);
    }
    let rounds = opts.processes.max(1);
    let mut runs: Vec<Vec<RunTime>> = vec![Vec::new(); taus.len()];
    for round in 0..rounds {
        for (i, &tau) in taus.iter().enumerate() {
            on_step(&format!("τ={tau}: timing, round {} of {rounds}", round + 1));
            runs[i].extend(time_task(spec, tau, opts, round)?);
        }
    }
    taus.iter()
        .zip(costs)
        .zip(runs)
        .map(|((&tau, (gamma, warnings)), runs)| {
            point(spec, tau, opts.clock, gamma, warnings, runs)
        })
        .collect()
}

/// Measures one τ: [`measure_sweep`] of a single value.
pub fn measure_point(
    spec: &TaskSpec,
    tau: u64,
    opts: &TauOptions,
    on_step: impl FnMut(&str),
) -> Result<TauPoint, JitError> {
    let mut points = measure_sweep(spec, &[tau], opts, on_step)?;
    points
        .pop()
        .ok_or_else(|| JitError::Measure("no τ measured".into()))
}

fn point(
    spec: &TaskSpec,
    tau: u64,
    clock: Clock,
    gamma: BTreeMap<String, f64>,
    warnings: Vec<String>,
    runs: Vec<RunTime>,
) -> Result<TauPoint, JitError> {
    let times: Vec<f64> = runs.iter().map(|r| r.on(clock)).collect();
    let time = Summary::of(&times, &Bootstrap::default()).ok_or_else(|| {
        JitError::Measure(format!(
            "{}: the timing runs reported no task times",
            spec.path.display()
        ))
    })?;
    let k = ratios(time.median, &gamma);
    Ok(TauPoint {
        tau,
        clock,
        times,
        runs,
        time,
        gamma,
        k,
        warnings,
    })
}

/// k = t/Γ per model; a zero Γ (the task ran nothing compiled) gives no k.
pub fn ratios(seconds: f64, gamma: &BTreeMap<String, f64>) -> BTreeMap<String, f64> {
    gamma
        .iter()
        .filter(|(_, g)| **g > 0.0)
        .map(|(m, g)| (m.clone(), seconds / g))
        .collect()
}

/// One timing process: pypy3 without PYPYLOG (counters slow compiled code), the task's own
/// times written to a file named by METRON_TASK_TIMES.
fn time_task(
    spec: &TaskSpec,
    tau: u64,
    opts: &TauOptions,
    process: u32,
) -> Result<Vec<RunTime>, JitError> {
    let pypy = pypy::locate()?;
    let file = opts
        .workdir
        .join(format!("{}-tau{tau}-times-{process}.txt", spec.name));
    let _ = std::fs::remove_file(&file);
    let argv = vec![
        pypy.display().to_string(),
        spec.path.display().to_string(),
        "--tau".into(),
        tau.to_string(),
        "--repeat".into(),
        opts.repeat.max(1).to_string(),
        "--budget".into(),
        opts.budget_seconds.to_string(),
    ];
    let env = [("METRON_TASK_TIMES".to_string(), file.display().to_string())];
    let outcome =
        runner::run_once_with_env(&argv, &env, OutputPolicy::Discard, &CounterSet::none())
            .map_err(|e| JitError::Measure(e.to_string()))?;
    if !outcome.exit.success() {
        return Err(JitError::Failed {
            what: argv.join(" "),
            status: format!("exit status {}", outcome.exit.status()),
        });
    }
    let text = std::fs::read_to_string(&file).map_err(|source| JitError::Io {
        path: file.clone(),
        source,
    })?;
    parse_times(&text, &file)
}

/// Lines of `WALL CPU` seconds, as `_taskcli.py` writes them.
pub fn parse_times(text: &str, path: &Path) -> Result<Vec<RunTime>, JitError> {
    let seconds = |s: &str| s.parse::<f64>().ok().filter(|t| t.is_finite() && *t >= 0.0);
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            let mut fields = l.split_whitespace();
            match (fields.next().and_then(seconds), fields.next().and_then(seconds), fields.next()) {
                (Some(wall), Some(cpu), None) => Ok(RunTime { wall, cpu }),
                _ => Err(JitError::Table {
                    path: path.to_path_buf(),
                    line: i + 1,
                    what: format!(
                        "expected a task's wall and CPU time in seconds (`0.0123 0.0121`), found `{}`",
                        l.trim()
                    ),
                }),
            }
        })
        .collect()
}

/// One row of 001 Table 5: where k settles for one benchmark and model.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StableK {
    pub model: String,
    /// Median k over the plateau.
    pub stable_k: f64,
    pub k_min: f64,
    pub k_max: f64,
    /// k_max − k_min over all τ, as 001 Table 5 lists it.
    pub range: f64,
    /// The shortest task time (seconds) from which on k stays within the tolerance.
    pub min_granularity_seconds: f64,
    /// Every measured τ is on the plateau: the true minimum lies below the smallest task
    /// measured (001 Table 5 writes `< 11400 µs`).
    pub below_smallest: bool,
    /// The τ values on the plateau.
    pub plateau_taus: Vec<u64>,
    /// Coarser τ values whose k is off the reference, skipped before the plateau.
    pub coarse_outliers: Vec<u64>,
}

/// 001 Table 5 from (τ, task seconds, k) points. The paper reads its stable k off the graphs;
/// here it is defined: points sorted by task time, the reference is the median k of the
/// coarser half of the tasks (at least three), and the plateau is the longest run of points
/// from the coarsest down whose k is within `tolerance` (relative) of the reference, after
/// skipping coarse points that are off it. Stable k is the plateau's median.
pub fn table5_row(model: &str, points: &[(u64, f64, f64)], tolerance: f64) -> Option<StableK> {
    let mut pts: Vec<(u64, f64, f64)> = points
        .iter()
        .copied()
        .filter(|(_, t, k)| t.is_finite() && k.is_finite())
        .collect();
    if pts.is_empty() {
        return None;
    }
    pts.sort_by(|a, b| b.1.total_cmp(&a.1)); // coarsest first
    let coarse = pts.len().div_ceil(2).max(3);
    let reference = median(pts.iter().take(coarse).map(|p| p.2).collect());
    let within = |p: &(u64, f64, f64)| (p.2 / reference - 1.0).abs() <= tolerance;
    // Coarse tasks off the reference are noise (a burst of load), not a loss of stability:
    // they are skipped and reported, and the plateau starts at the first point within.
    let coarse_outliers: Vec<u64> = pts.iter().take_while(|p| !within(p)).map(|p| p.0).collect();
    let plateau: Vec<(u64, f64, f64)> = pts
        .iter()
        .skip(coarse_outliers.len())
        .copied()
        .take_while(within)
        .collect();
    // Only when no point at all is within (tolerance below the scatter) is the plateau the
    // coarsest point alone.
    let (plateau, coarse_outliers) = if plateau.is_empty() {
        (vec![pts[0]], Vec::new())
    } else {
        (plateau, coarse_outliers)
    };
    let k_min = pts.iter().map(|p| p.2).fold(f64::INFINITY, f64::min);
    let k_max = pts.iter().map(|p| p.2).fold(f64::NEG_INFINITY, f64::max);
    let last = plateau[plateau.len() - 1];
    Some(StableK {
        model: model.to_string(),
        stable_k: median(plateau.iter().map(|p| p.2).collect()),
        k_min,
        k_max,
        range: k_max - k_min,
        min_granularity_seconds: last.1,
        below_smallest: plateau.last() == pts.last(),
        plateau_taus: plateau.iter().map(|p| p.0).collect(),
        coarse_outliers,
    })
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

/// The k(τ) experiment of one task function.
#[derive(Debug, Clone, Serialize)]
pub struct TauExperiment {
    pub benchmark: String,
    pub skeleton: String,
    pub derivative: CostDerivative,
    pub points: Vec<TauPoint>,
    /// One row per model.
    pub table5: Vec<StableK>,
    pub tolerance: f64,
}

impl TauExperiment {
    pub fn new(spec: &TaskSpec, points: Vec<TauPoint>, tolerance: f64) -> Self {
        let mut table5 = Vec::new();
        for model in ["CM0", "CMC", "CMW"] {
            let pts: Vec<(u64, f64, f64)> = points
                .iter()
                .filter_map(|p| p.k.get(model).map(|k| (p.tau, p.time.median, *k)))
                .collect();
            if let Some(row) = table5_row(model, &pts, tolerance) {
                table5.push(row);
            }
        }
        TauExperiment {
            benchmark: spec.name.clone(),
            skeleton: spec.skeleton.clone(),
            derivative: spec.derivative,
            points,
            table5,
            tolerance,
        }
    }

    /// Plot data in long format: one line per τ and model (001 Figures 6-11 plot k against τ).
    pub fn csv(&self) -> String {
        let mut out = String::from(
            "benchmark,skeleton,tau,model,task_seconds_median,task_seconds_ci_lo,task_seconds_ci_hi,runs,gamma,k\n",
        );
        for p in &self.points {
            for (model, g) in &p.gamma {
                let k = p.k.get(model).map_or(String::new(), |k| format!("{k:e}"));
                out.push_str(&format!(
                    "{},{},{},{},{:e},{:e},{:e},{},{:e},{}\n",
                    self.benchmark,
                    self.skeleton,
                    p.tau,
                    model,
                    p.time.median,
                    p.time.ci_median.lo,
                    p.time.ci_median.hi,
                    p.times.len(),
                    g,
                    k
                ));
            }
        }
        out
    }
}

/// The tuning step of 001 §5.1 for an observed (τ0, t0, γ0) and a target task time t1.
#[derive(Debug, Clone, Serialize)]
pub struct TunePrediction {
    pub tau0: u64,
    pub t0: f64,
    pub gamma0: f64,
    /// k = t0/γ0
    pub k: f64,
    pub t1: f64,
    /// γ1 = t1/k
    pub gamma1: f64,
    /// τ1 from γ1/γ0 through the cost derivative, before rounding.
    pub tau1_exact: f64,
    /// τ1 rounded to a valid (positive integer) τ.
    pub tau1: u64,
    /// The time the derivative predicts for the rounded τ1: t0 · γ(τ1)/γ(τ0).
    pub t1_at_tau1: f64,
}

/// 001 §5.1: k = t0/γ0, γ1 = t1/k, τ1 with γ1/γ0 given by the skeleton's cost derivative.
/// With k taken at τ0 itself γ1/γ0 = t1/t0, so τ1 does not depend on the cost model; the model
/// matters where k comes from elsewhere, and in how well Γ(τ1)/Γ(τ0) follows the derivative.
pub fn predict_tau(
    derivative: CostDerivative,
    tau0: u64,
    t0: f64,
    gamma0: f64,
    t1: f64,
) -> TunePrediction {
    let k = t0 / gamma0;
    let gamma1 = t1 / k;
    let tau1_exact = derivative.tau_for_ratio(tau0 as f64, gamma1 / gamma0);
    let tau1 = if tau1_exact.is_finite() {
        tau1_exact.round().max(1.0) as u64
    } else {
        1
    };
    let t1_at_tau1 = t0 * derivative.cost_ratio(tau0 as f64, tau1 as f64);
    TunePrediction {
        tau0,
        t0,
        gamma0,
        k,
        t1,
        gamma1,
        tau1_exact,
        tau1,
        t1_at_tau1,
    }
}

/// The closed loop: the prediction and what τ1 then measured.
#[derive(Debug, Clone, Serialize)]
pub struct TuneResult {
    pub benchmark: String,
    pub model: String,
    pub prediction: TunePrediction,
    pub before: TauPoint,
    pub after: TauPoint,
    /// (t(τ1) − t1)/t1: the error against the target.
    pub error_vs_target: f64,
    /// (t(τ1) − t1_at_tau1)/t1_at_tau1: the error with τ1's rounding taken out.
    pub error_vs_rounded: f64,
    /// Γ(τ1)/Γ(τ0) per model, against the derivative's cost ratio: how well each model's cost
    /// follows the derivative the tuning step relies on.
    pub gamma_ratio: BTreeMap<String, f64>,
    pub derivative_ratio: f64,
    pub time_ratio: f64,
}

pub fn tune_result(
    spec: &TaskSpec,
    model: &str,
    prediction: TunePrediction,
    before: TauPoint,
    after: TauPoint,
) -> TuneResult {
    let t = after.time.median;
    let gamma_ratio = before
        .gamma
        .iter()
        .filter_map(|(m, g0)| {
            let g1 = after.gamma.get(m)?;
            (*g0 > 0.0).then(|| (m.clone(), g1 / g0))
        })
        .collect();
    TuneResult {
        benchmark: spec.name.clone(),
        model: model.to_string(),
        error_vs_target: (t - prediction.t1) / prediction.t1,
        error_vs_rounded: (t - prediction.t1_at_tau1) / prediction.t1_at_tau1,
        derivative_ratio: spec
            .derivative
            .cost_ratio(prediction.tau0 as f64, prediction.tau1 as f64),
        time_ratio: t / before.time.median,
        gamma_ratio,
        prediction,
        before,
        after,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derivatives_invert_each_other() {
        // 001 §5.1: chunk doubled -> cost doubled; stride doubled -> cost halved
        assert_eq!(CostDerivative::Constant.cost_ratio(4.0, 8.0), 2.0);
        assert_eq!(CostDerivative::Inverse.cost_ratio(4.0, 8.0), 0.5);
        assert_eq!(CostDerivative::Constant.tau_for_ratio(4.0, 2.5), 10.0);
        assert_eq!(CostDerivative::Inverse.tau_for_ratio(40.0, 4.0), 10.0);
        // fib: one more unit of threshold multiplies the work by φ
        let r = CostDerivative::GoldenPower.cost_ratio(20.0, 22.0);
        assert!((r - GOLDEN_RATIO * GOLDEN_RATIO).abs() < 1e-12);
        let back = CostDerivative::GoldenPower.tau_for_ratio(20.0, r);
        assert!((back - 22.0).abs() < 1e-12);
    }

    #[test]
    fn predicts_tau_by_hand() {
        // chunked: τ0 = 10 took 2 ms at γ0 = 4e6, so k = 5e-10 s; 20 ms target: γ1 = 4e7,
        // ratio 10, τ1 = 100
        let p = predict_tau(CostDerivative::Constant, 10, 0.002, 4e6, 0.020);
        assert!((p.k - 5e-10).abs() < 1e-22);
        assert!((p.gamma1 - 4e7).abs() < 1e-3);
        assert!((p.tau1_exact - 100.0).abs() < 1e-9);
        assert_eq!(p.tau1, 100);
        assert!((p.t1_at_tau1 - 0.020).abs() < 1e-15);
        // strided: τ0 = 64 took 40 ms; for 10 ms the stride quadruples: 256
        let p = predict_tau(CostDerivative::Inverse, 64, 0.040, 123.0, 0.010);
        assert_eq!(p.tau1, 256);
        // rounding: 3 ms at τ0 = 7, 10 ms -> 23.33..., rounded 23, whose time is 3·23/7 ms
        let p = predict_tau(CostDerivative::Constant, 7, 0.003, 1.0, 0.010);
        assert!((p.tau1_exact - 70.0 / 3.0).abs() < 1e-12);
        assert_eq!(p.tau1, 23);
        assert!((p.t1_at_tau1 - 0.003 * 23.0 / 7.0).abs() < 1e-15);
        // never below τ = 1
        assert_eq!(
            predict_tau(CostDerivative::Constant, 2, 1.0, 1.0, 0.001).tau1,
            1
        );
    }

    #[test]
    fn table5_plateau_by_hand() {
        // k falls then settles near 0.5, as in 001 Figures 6-11 (task times double with τ)
        let pts = [
            (1, 1e-5, 9.0),
            (2, 2e-5, 2.0),
            (4, 4e-5, 0.62),
            (8, 8e-5, 0.55),
            (16, 1.6e-4, 0.50),
            (32, 3.2e-4, 0.52),
            (64, 6.4e-4, 0.48),
        ];
        let row = table5_row("CMW", &pts, 0.25).unwrap();
        // reference: median of the coarser four, 0.48 0.52 0.50 0.55 -> 0.51; within 25 %:
        // 0.3825..0.6375, so 0.62 is in and 2.0 out
        assert_eq!(row.plateau_taus, vec![64, 32, 16, 8, 4]);
        assert!((row.stable_k - 0.52).abs() < 1e-12); // median of 0.48 0.50 0.52 0.55 0.62
        assert!((row.range - (9.0 - 0.48)).abs() < 1e-12);
        assert_eq!(row.min_granularity_seconds, 4e-5);
        assert!(!row.below_smallest);
        // 10 %: 0.459..0.561 drops 0.62
        let row = table5_row("CMW", &pts, 0.1).unwrap();
        assert_eq!(row.plateau_taus, vec![64, 32, 16, 8]);
        assert_eq!(row.min_granularity_seconds, 8e-5);
        // 5 %: 0.4845..0.5355 excludes the coarsest (0.48), an outlier; the plateau is 32, 16
        let row = table5_row("CMW", &pts, 0.05).unwrap();
        assert_eq!(row.coarse_outliers, vec![64]);
        assert_eq!(row.plateau_taus, vec![32, 16]);
        assert_eq!(row.min_granularity_seconds, 1.6e-4);
        assert!((row.stable_k - 0.51).abs() < 1e-12);
        // 1 %: nothing within 0.5049..0.5151; the plateau falls back to the coarsest point
        let row = table5_row("CMW", &pts, 0.01).unwrap();
        assert_eq!(row.plateau_taus, vec![64]);
        assert!(row.coarse_outliers.is_empty());
    }

    #[test]
    fn table5_all_stable_and_striding_order() {
        // striding: larger τ means smaller tasks; the order comes from the times, not τ
        let pts = [(8, 0.08, 0.25), (16, 0.04, 0.26), (32, 0.02, 0.25)];
        let row = table5_row("CM0", &pts, 0.1).unwrap();
        assert!(row.below_smallest);
        assert_eq!(row.plateau_taus, vec![8, 16, 32]);
        assert_eq!(row.min_granularity_seconds, 0.02);
        assert!((row.range - 0.01).abs() < 1e-12);
        assert!(table5_row("CM0", &[], 0.1).is_none());
    }

    #[test]
    fn k_is_time_over_gamma() {
        let gamma: BTreeMap<String, f64> =
            [("CM0".to_string(), 400.0), ("CMC".to_string(), 0.0)].into();
        let k = ratios(0.002, &gamma);
        assert_eq!(k["CM0"], 0.002 / 400.0);
        assert!(!k.contains_key("CMC"), "a zero Γ has no k");
    }

    #[test]
    fn parses_every_task_function() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/jit/tasks");
        let want = [
            ("matmul_chunked", "parMapChunk", CostDerivative::Constant),
            ("sumeuler_chunked", "parMapChunk", CostDerivative::Constant),
            ("sumeuler_strided", "parMapStride", CostDerivative::Inverse),
            (
                "fib_thresh",
                "parDivconqThresh",
                CostDerivative::GoldenPower,
            ),
            ("kmeans_chunked", "parMapChunk", CostDerivative::Constant),
            (
                "mandelbrot_chunked",
                "parMapChunk",
                CostDerivative::Constant,
            ),
        ];
        for (name, skeleton, derivative) in want {
            let spec = TaskSpec::from_file(&dir.join(format!("{name}.py"))).unwrap();
            assert_eq!(spec.name, name);
            assert_eq!(spec.skeleton, skeleton);
            assert_eq!(spec.derivative, derivative);
            assert!(spec.taus.len() >= 5, "{name}: {:?}", spec.taus);
        }
    }

    #[test]
    fn bad_task_files_name_the_line() {
        let p = Path::new("t.py");
        let e = TaskSpec::parse("SKELETON = \"x\"\nCOST_DERIVATIVE = \"x^2\"\n", p).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.py:2: expected COST_DERIVATIVE"),
            "{e}"
        );
        let e = TaskSpec::parse(
            "SKELETON = \"x\"\nCOST_DERIVATIVE = \"1\"\nTAUS = [1, a]\n",
            p,
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("t.py:3:"), "{e}");
        let e = TaskSpec::parse("print(1)\n", p).unwrap_err();
        assert!(e.to_string().contains("no `SKELETON"), "{e}");
        let e = parse_times("0.5 0.4\nfast 1\n", p).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.py:2: expected a task's wall and CPU"),
            "{e}"
        );
        assert!(parse_times("0.5\n", p).is_err());
        let t = parse_times("0.5 0.4\n\n1e-3 9e-4\n", p).unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!((t[1].wall, t[1].on(Clock::Cpu)), (1e-3, 9e-4));
    }
}
