//! The `--json` outputs of other metron commands, read back as the report needs them. Only
//! the fields drawn are declared and unknown ones are ignored, so the producers may add
//! fields without breaking old reports; a missing optional field is `None` / empty.

use std::collections::BTreeMap;

use serde::Deserialize;

/// `metron static BINARY --param ... --json` (004): the model of every function.
#[derive(Debug, Clone, Deserialize)]
pub struct StaticModel {
    #[serde(default)]
    pub architecture: Option<String>,
    pub functions: Vec<StaticFunction>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct StaticFunction {
    pub name: String,
    #[serde(default)]
    pub model_name: Option<String>,
    /// Instructions per call by category, when the parameters were bound.
    #[serde(default)]
    pub categories: BTreeMap<String, f64>,
    #[serde(default)]
    pub total: Option<f64>,
}

/// One row of `metron static validate ... --json`: a function or loop, predicted against
/// callgrind's counts.
#[derive(Debug, Clone, Deserialize)]
pub struct StaticComparison {
    pub region: String,
    #[serde(default)]
    pub predicted: Option<Counts>,
    #[serde(default)]
    pub measured: Option<Counts>,
    #[serde(default)]
    pub error_percent: Option<f64>,
    #[serde(default)]
    pub unevaluated: Option<String>,
    #[serde(default)]
    pub categories: Vec<CategoryComparison>,
}

/// Instruction counts: a total alone, or a total with its categories.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum Counts {
    Total(f64),
    Detailed {
        #[serde(default)]
        total: Option<f64>,
        #[serde(default)]
        by_category: BTreeMap<String, f64>,
    },
}

impl Counts {
    pub fn total(&self) -> Option<f64> {
        match self {
            Counts::Total(t) => Some(*t),
            Counts::Detailed {
                total, by_category, ..
            } => total.or_else(|| (!by_category.is_empty()).then(|| by_category.values().sum())),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct CategoryComparison {
    pub category: String,
    #[serde(default)]
    pub predicted: Option<f64>,
    #[serde(default)]
    pub measured: Option<f64>,
    #[serde(default)]
    pub error_percent: Option<f64>,
}

/// `metron static validate --json`: the rows, or (with `--perf`) an object holding them.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum StaticValidation {
    Rows(Vec<StaticComparison>),
    WithPerf { rows: Vec<StaticComparison> },
}

impl StaticValidation {
    pub fn rows(&self) -> &[StaticComparison] {
        match self {
            StaticValidation::Rows(r) | StaticValidation::WithPerf { rows: r } => r,
        }
    }
}

/// `metron memory analyze ... --json` (003 Ch. 3): symbolic access counts per function.
#[derive(Debug, Clone, Deserialize)]
pub struct MemoryAnalysis {
    #[serde(default)]
    pub params: BTreeMap<String, serde_json::Value>,
    pub functions: Vec<MemoryFunction>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct MemoryFunction {
    pub counts: MemoryCounts,
}

#[derive(Debug, Clone, Deserialize)]
pub struct MemoryCounts {
    pub function: String,
    #[serde(default)]
    pub n_k: Option<Formula>,
    #[serde(default)]
    pub n_k_value: Option<String>,
    #[serde(default)]
    pub variables: Vec<VariableCounts>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Formula {
    #[serde(default)]
    pub text: String,
}

#[derive(Debug, Clone, Deserialize)]
pub struct VariableCounts {
    pub variable: Variable,
    #[serde(default)]
    pub reads: Option<Formula>,
    #[serde(default)]
    pub writes: Option<Formula>,
    #[serde(default)]
    pub reads_value: Option<String>,
    #[serde(default)]
    pub writes_value: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct Variable {
    pub name: String,
    #[serde(default)]
    pub class: Option<String>,
}

/// `metron memory validate ... --json`: static counts against a traced run, per variable.
#[derive(Debug, Clone, Deserialize)]
pub struct MemoryValidation {
    pub function: String,
    #[serde(default)]
    pub params: BTreeMap<String, serde_json::Value>,
    #[serde(default)]
    pub equal: Option<bool>,
    pub rows: Vec<MemoryRow>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct MemoryRow {
    pub function: String,
    pub variable: String,
    pub kind: String,
    /// A number, or a formula's text when it could not be evaluated.
    pub static_count: serde_json::Value,
    pub dynamic_count: f64,
    #[serde(default)]
    pub equal: Option<bool>,
}

/// `metron contention simulate ... --json` (003 Ch. 4): per core, alone and together.
#[derive(Debug, Clone, Deserialize)]
pub struct Simulation {
    #[serde(default)]
    pub config: serde_json::Value,
    pub cores: Vec<SimulatedCore>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct SimulatedCore {
    pub accesses: f64,
    pub conflicts: f64,
    pub stall_cycles: f64,
    pub t_par: f64,
    pub t_seq: f64,
}

/// A contention model as fitted on the training thread count (003 §5.2).
#[derive(Debug, Clone, Deserialize)]
pub struct Fitted {
    pub model: u8,
    #[serde(default)]
    pub training: Option<String>,
    #[serde(default)]
    pub coefficient: Option<f64>,
    #[serde(default)]
    pub intercept: Option<f64>,
    #[serde(default)]
    pub samples: Option<usize>,
}

/// Its errors Δt − Δt^j on one test thread count.
#[derive(Debug, Clone, Deserialize)]
pub struct Evaluation {
    pub threads: usize,
    #[serde(default)]
    pub errors: Vec<f64>,
    #[serde(default)]
    pub median_abs_error_relative: Option<f64>,
}

/// One element of `metron contention fit ... --json`.
#[derive(Debug, Clone, Deserialize)]
pub struct ContentionFit {
    pub fit: Fitted,
    /// Errors on the training thread count (absent in outputs before issue 13's last round).
    #[serde(default)]
    pub train: Option<Evaluation>,
    pub tests: Vec<Evaluation>,
}

/// `metron contention experiment ... --json` (003 Ch. 5).
#[derive(Debug, Clone, Deserialize)]
pub struct ContentionExperiment {
    pub results: Vec<ExperimentFunction>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ExperimentFunction {
    pub setup: String,
    pub function: String,
    pub models: Vec<ExperimentModel>,
    /// (T, median Δt / t_seq).
    #[serde(default)]
    pub relative_increase: Vec<(usize, f64)>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ExperimentModel {
    pub fitted: Fitted,
    #[serde(default)]
    pub train: Option<Evaluation>,
    pub tests: Vec<Evaluation>,
}

/// `metron jit analyze LOG --json` (001): fragments, their costs and source lines.
#[derive(Debug, Clone, Deserialize)]
pub struct JitAnalysis {
    #[serde(default)]
    pub log: Option<String>,
    #[serde(default)]
    pub gamma: Option<f64>,
    #[serde(default)]
    pub model: serde_json::Value,
    pub fragments: Vec<JitFragment>,
    #[serde(default)]
    pub source_lines: Vec<JitSourceLine>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct JitFragment {
    pub name: String,
    #[serde(default)]
    pub trace: Option<String>,
    #[serde(default)]
    pub frequency: Option<f64>,
    #[serde(default)]
    pub gamma: Option<f64>,
    #[serde(default)]
    pub cost: Option<f64>,
    #[serde(default)]
    pub sources: Vec<JitSource>,
    /// `function:line` where the fragment starts.
    #[serde(default)]
    pub starts_at: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct JitSource {
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default)]
    pub function: Option<String>,
    #[serde(default)]
    pub line: Option<u64>,
    #[serde(default)]
    pub opcode: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct JitSourceLine {
    pub file: String,
    #[serde(default)]
    pub function: Option<String>,
    pub line: u64,
    pub cost: f64,
}

/// `metron jit tau ... --json` (001 §5): k = t/Γ per model across τ.
#[derive(Debug, Clone, Deserialize)]
pub struct TauExperiment {
    pub benchmark: String,
    #[serde(default)]
    pub skeleton: Option<String>,
    pub points: Vec<TauPoint>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct TauPoint {
    pub tau: f64,
    #[serde(default)]
    pub time: Option<TimeSummary>,
    #[serde(default)]
    pub k: BTreeMap<String, f64>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct TimeSummary {
    pub median: f64,
}

/// `metron jit calibrate --json` (001 §4.3): one model's fit, per program.
#[derive(Debug, Clone, Deserialize)]
pub struct Calibration {
    #[serde(default)]
    pub r_squared: Option<f64>,
    pub programs: Vec<ProgramFit>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ProgramFit {
    pub program: String,
    pub seconds: f64,
    pub predicted: f64,
    #[serde(default)]
    pub loo_predicted: Option<f64>,
}

/// `metron jit calibrate --corpus --json`: the fit of every model.
#[derive(Debug, Clone, Deserialize)]
pub struct CorpusCalibration {
    pub fits: Vec<ModelFit>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct ModelFit {
    pub model: String,
    pub fit: Calibration,
}

/// A calibration as drawn: per model, its programs.
#[derive(Debug, Clone)]
pub struct CalibrationSet {
    pub fits: Vec<(String, Calibration)>,
}

/// A metron-probe timeline (`*.trace.json`, `METRON_TIMELINE=N`): Chrome trace events.
#[derive(Debug, Clone, Deserialize)]
pub struct ChromeTrace {
    #[serde(rename = "traceEvents")]
    pub trace_events: Vec<TraceEvent>,
}

#[derive(Debug, Clone, Deserialize)]
pub struct TraceEvent {
    pub name: String,
    /// `B` (begin) or `E` (end); other phases are ignored.
    pub ph: String,
    /// Microseconds.
    pub ts: f64,
    #[serde(default)]
    pub pid: u64,
    #[serde(default)]
    pub tid: u64,
}
