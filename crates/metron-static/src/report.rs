//! What `metron static` reports, as typed data (004 §III.C.5–7): per function its parameters,
//! loops, calls and counts, as formulas or, under a binding, as numbers; and the validation
//! rows against callgrind. The CLI renders these as tables and serialises them for `--json`;
//! nothing reads them back from JSON.

use std::collections::{BTreeMap, BTreeSet};

use metron_symbolic::Binding;
use serde::Serialize;

use crate::binary::Binary;
use crate::category::Architecture;
use crate::emit::{ExternalCall, FormulaCall, Formulas, FunctionFormulas};
use crate::error::Result;
use crate::model::LoopModel;
use crate::program::ProgramModel;
use crate::validate::{Comparison, PerfCheck};

/// JSON schema name of [`ModelReport`].
pub const SCHEMA: &str = "metron.static/1";

/// The whole model.
#[derive(Debug, Clone, Serialize)]
pub struct ModelReport {
    pub schema: &'static str,
    pub architecture: String,
    pub functions: Vec<FunctionReport>,
    /// The interpreted run of `main` that gave counts following data their odds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub interpreted_profile: Option<crate::interpreted_profile::InterpretedProfile>,
}

/// One function: its formulas, or its numbers under the user's binding.
#[derive(Debug, Clone, Serialize)]
pub struct FunctionReport {
    pub name: String,
    pub symbol: String,
    /// Mira's model name (`A_foo_2`), the Python function's name.
    pub model_name: String,
    /// Parameters of its model, callees included.
    pub parameters: BTreeSet<String>,
    /// Sizes the compiler fixed in its machine code (DWARF), at which it is counted.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub fixed: BTreeMap<String, i64>,
    pub calls: Vec<CallReport>,
    pub external_calls: Vec<ExternalCallReport>,
    pub loops: Vec<LoopReport>,
    /// Data-dependent branches (file:line) and what the counts assume about each.
    pub assumptions: Vec<crate::assumption::Assumption>,
    /// What runs of its machine code checked and refitted; absent under `--mira-compat`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calibration: Option<crate::calibrate::Calibration>,
    /// Why its counts were not checked against runs (data-dependent control, a clone, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_checked: Option<crate::calibrate::NotChecked>,
    /// Under a binding: its own parameters the binding does not give (bound at its call
    /// sites); it then has no per-call numbers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unbound: Option<Vec<String>>,
    /// Per call, callees included, under the binding.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// Per mnemonic: formulas, or numbers under the binding; absent when `unbound`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub counts: Option<CountsReport>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub categories: Option<BTreeMap<String, f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rollups: Option<BTreeMap<String, f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub derived: Option<BTreeMap<String, f64>>,
    /// What one run from `main` executes of it (004 §III.C.5 contexts summed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run: Option<RunReport>,
}

/// Per-mnemonic counts of one call.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum CountsReport {
    Formulas(BTreeMap<String, String>),
    Values(BTreeMap<String, f64>),
}

#[derive(Debug, Clone, Serialize)]
pub struct CallReport {
    /// The callee's model name.
    pub callee: String,
    pub line: Option<u32>,
    /// Executions per call of the caller (a formula).
    pub times: String,
    /// The callee's parameters as bound at the site.
    pub arguments: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ExternalCallReport {
    pub callee: String,
    pub line: Option<u32>,
    /// Executions per call of the caller: a formula, or its value under the binding (`None`
    /// when the binding does not give it).
    pub times: Option<String>,
    /// Instructions per call from a `call_cost` annotation.
    pub cost_per_call: Option<u64>,
    pub note: &'static str,
}

#[derive(Debug, Clone, Serialize)]
pub struct LoopReport {
    /// Address of the binary loop's header (`0x1139`).
    pub header: String,
    pub depth: usize,
    pub source_line: Option<u32>,
    /// Body executions per call of the function.
    pub iterations: String,
    pub note: Option<String>,
    /// A loop copy's factor: read from its induction variable, or the fallback.
    pub counted_from: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub calls: f64,
    /// Its own instructions over all its calls.
    pub total: f64,
    pub categories: BTreeMap<String, f64>,
}

/// Numbers of one function under a binding.
struct Evaluated {
    total: f64,
    counts: BTreeMap<String, f64>,
    categories: BTreeMap<String, f64>,
    rollups: BTreeMap<String, f64>,
    derived: BTreeMap<String, f64>,
}

impl ModelReport {
    /// The model of `formulas`: formulas, or numbers when `binding` is given.
    pub fn build(
        formulas: &Formulas,
        arch: &Architecture,
        binding: Option<&Binding>,
    ) -> Result<ModelReport> {
        // `NAME_LINE` parameters take `NAME`'s value when not given: once for all functions.
        let bound = binding.map(|b| formulas.with_fallbacks(b));
        let functions = (0..formulas.functions.len())
            .map(|k| function_report(formulas, k, arch, binding, bound.as_ref()))
            .collect::<Result<_>>()?;
        Ok(ModelReport {
            schema: SCHEMA,
            architecture: arch.name.clone(),
            functions,
            interpreted_profile: None,
        })
    }

    /// Adds, per function, what one run from `main` executes (its calls and its own
    /// instructions over all of them), the numbers `validate` compares with callgrind.
    pub fn add_run(
        &mut self,
        binary: &Binary,
        program: &ProgramModel,
        arch: &Architecture,
        binding: &Binding,
    ) -> Result<()> {
        if program.main(binary).is_none() {
            return Ok(());
        }
        let blocks = program.block_executions(binary, binding)?;
        let calls = program.calls_in(binary, &blocks);
        for (((i, model), blocks), calls) in program.functions.iter().zip(&blocks).zip(calls) {
            let function = &binary.functions[*i];
            let run = model.counts(function, arch, blocks, None);
            if let Some(entry) = self
                .functions
                .iter_mut()
                .find(|e| e.symbol == function.symbol)
            {
                entry.run = Some(RunReport {
                    calls,
                    total: run.total,
                    categories: run.by_category,
                });
            }
        }
        Ok(())
    }

    /// Keeps only the functions whose symbol is in `symbols` (a source name's clones and parts).
    pub fn retain_symbols(&mut self, symbols: &[&str]) {
        self.functions
            .retain(|f| symbols.contains(&f.symbol.as_str()));
    }
}

fn function_report(
    formulas: &Formulas,
    k: usize,
    arch: &Architecture,
    binding: Option<&Binding>,
    bound: Option<&Binding>,
) -> Result<FunctionReport> {
    let f = &formulas.functions[k];
    let mut report = FunctionReport {
        name: f.name.clone(),
        symbol: f.symbol.clone(),
        model_name: f.model_name.clone(),
        parameters: formulas.parameters(k),
        fixed: f.fixed.clone(),
        calls: f.calls.iter().map(|c| call_report(formulas, c)).collect(),
        external_calls: f
            .external
            .iter()
            .map(|e| external_report(e, binding))
            .collect(),
        loops: f.loops.iter().map(loop_report).collect(),
        assumptions: f.assumptions.clone(),
        calibration: f.calibration.clone().and_then(std::result::Result::ok),
        not_checked: f.calibration.clone().and_then(std::result::Result::err),
        unbound: None,
        total: None,
        counts: None,
        categories: None,
        rollups: None,
        derived: None,
        run: None,
    };
    let Some(bound) = bound else {
        report.counts = Some(CountsReport::Formulas(formula_counts(f)));
        return Ok(report);
    };
    // A callee whose parameters come from its call sites (`sum_rows(a, k, n)` binds `rows`,
    // `cols`) has no per-call numbers under the user's binding; its counts are in its
    // callers' totals and in the run's (`run`).
    let unbound: Vec<String> = report
        .parameters
        .iter()
        .filter(|p| !bound.contains_key(*p))
        .cloned()
        .collect();
    if !unbound.is_empty() {
        report.unbound = Some(unbound);
        return Ok(report);
    }
    let e = evaluate(formulas, k, arch, bound)?;
    report.total = Some(e.total);
    report.counts = Some(CountsReport::Values(e.counts));
    report.categories = Some(e.categories);
    report.rollups = Some(e.rollups);
    report.derived = Some(e.derived);
    Ok(report)
}

fn evaluate(
    formulas: &Formulas,
    k: usize,
    arch: &Architecture,
    bound: &Binding,
) -> Result<Evaluated> {
    let counts = formulas.evaluate_bound(k, bound, &|f| &f.own)?;
    let mut categories: BTreeMap<String, f64> = BTreeMap::new();
    for (m, v) in &counts {
        let class = arch.classify(m.trim_start_matches("x86_"));
        *categories.entry(class.category).or_default() += v;
    }
    let (rollups, derived) = crate::derived::with_derived(
        arch,
        &counts,
        formulas.evaluate_bound(k, bound, &|f| &f.rollups)?,
    );
    Ok(Evaluated {
        total: counts.values().sum(),
        counts,
        categories,
        rollups,
        derived,
    })
}

fn formula_counts(f: &FunctionFormulas) -> BTreeMap<String, String> {
    f.own
        .iter()
        .map(|(m, p)| (m.clone(), p.to_string()))
        .collect()
}

fn call_report(formulas: &Formulas, c: &FormulaCall) -> CallReport {
    CallReport {
        callee: formulas.functions[c.callee].model_name.clone(),
        line: c.line,
        times: c.times.to_string(),
        arguments: c
            .arguments
            .iter()
            .map(|(q, a)| (q.clone(), a.text()))
            .collect(),
    }
}

fn external_report(e: &ExternalCall, binding: Option<&Binding>) -> ExternalCallReport {
    ExternalCallReport {
        callee: e.callee.clone(),
        line: e.line,
        times: match binding {
            Some(b) => e.times.evaluate(b).ok().map(|v| v.to_string()),
            None => Some(e.times.to_string()),
        },
        cost_per_call: e.cost,
        note: if e.cost.is_some() {
            "cost from call_cost annotation"
        } else {
            "not analysed: call and set-up counted, callee not; annotate `call_cost: NAME=N`"
        },
    }
}

fn loop_report(l: &LoopModel) -> LoopReport {
    LoopReport {
        header: format!("0x{:x}", l.header_address),
        depth: l.depth,
        source_line: l.source_line,
        iterations: l.iterations.clone(),
        note: l.note.clone(),
        counted_from: l.counted_from.clone(),
    }
}

/// One validation row: a region's predicted and measured counts.
#[derive(Debug, Clone, Serialize)]
pub struct ComparisonRow {
    pub region: String,
    pub predicted: crate::category::Counts,
    pub measured: crate::category::Counts,
    pub error_percent: f64,
    /// Why the prediction could not be evaluated.
    pub unevaluated: Option<String>,
    /// Categories above 1% of the measured total.
    pub categories: Vec<CategoryRow>,
}

#[derive(Debug, Clone, Serialize)]
pub struct CategoryRow {
    pub category: String,
    pub predicted: f64,
    pub measured: f64,
    pub error_percent: f64,
}

impl From<&Comparison> for ComparisonRow {
    fn from(c: &Comparison) -> ComparisonRow {
        ComparisonRow {
            region: c.region.clone(),
            predicted: c.predicted.clone(),
            measured: c.measured.clone(),
            error_percent: c.total_error_percent(),
            unevaluated: c.unevaluated.clone(),
            categories: c
                .categories(0.01)
                .into_iter()
                .map(
                    |(category, predicted, measured, error_percent)| CategoryRow {
                        category,
                        predicted,
                        measured,
                        error_percent,
                    },
                )
                .collect(),
        }
    }
}

/// The whole run's hardware count next to callgrind's (`validate --perf`).
#[derive(Debug, Clone, Serialize)]
pub struct PerfReport {
    pub instructions_user: Option<f64>,
    /// Why there is no hardware count.
    pub unavailable: Option<String>,
    pub callgrind_total: Option<u64>,
    pub difference_percent: Option<f64>,
}

impl From<&PerfCheck> for PerfReport {
    fn from(p: &PerfCheck) -> PerfReport {
        PerfReport {
            instructions_user: p.instructions_user.as_ref().ok().copied(),
            unavailable: p.instructions_user.as_ref().err().cloned(),
            callgrind_total: p.callgrind_total,
            difference_percent: p.difference_percent(),
        }
    }
}

/// `validate --json`: the rows alone (as before `--perf` existed), or rows and the perf check.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum ValidationReport {
    Rows(Vec<ComparisonRow>),
    WithPerf {
        rows: Vec<ComparisonRow>,
        perf: PerfReport,
    },
}

impl ValidationReport {
    pub fn new(comparisons: &[Comparison], perf: Option<&PerfCheck>) -> ValidationReport {
        let rows = comparisons.iter().map(ComparisonRow::from).collect();
        match perf {
            None => ValidationReport::Rows(rows),
            Some(p) => ValidationReport::WithPerf {
                rows,
                perf: PerfReport::from(p),
            },
        }
    }
}
