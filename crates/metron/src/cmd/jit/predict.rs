//! `metron jit predict` and the model file `calibrate -o model.json` writes (issue 15).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Serialize;

use metron_jit::op_class::OpClassTable;
use metron_jit::predict::{
    FitStatistics, Observation, Prediction, SavedModel, TraceModel, WholeProgramModel,
    MODEL_FORMAT, MODEL_VERSION,
};
use metron_jit::profile::{ProgramProfile, PREDICT_SECTIONS};
use metron_jit::pypy;

use super::experiments::fmt_seconds;
use super::{input, Model};
use crate::error::{CliError, CliResult};
use crate::GlobalOpts;

#[derive(clap::Args, Debug)]
pub struct PredictArgs {
    /// A Python program (run under pypy3 with PYPYLOG, its output passed through, or discarded
    /// with --json) or a PYPYLOG
    /// recorded with PYPYLOG=jit-log-opt,jit-backend-counts,jit-summary,gc-minor,gc-collect:FILE
    pub input: PathBuf,
    /// A model written by `metron jit calibrate --corpus DIR -o model.json`
    #[arg(long, value_name = "FILE")]
    pub model: PathBuf,
    /// Which trace cost model prices the compiled code
    #[arg(long, value_enum, default_value = "cmw")]
    pub trace_model: Model,
    /// Keep the recorded log here (a program only)
    #[arg(long, value_name = "FILE")]
    pub keep_log: Option<PathBuf>,
    /// Operation-class table (must be the one the model was fitted with)
    #[arg(long, value_name = "FILE")]
    pub classes: Option<PathBuf>,
    /// The program's arguments
    #[arg(last = true)]
    pub args: Vec<String>,
}

fn trace_model(m: Model) -> TraceModel {
    match m {
        Model::Cm0 => TraceModel::CM0,
        Model::Cmc => TraceModel::CMC,
        Model::Cmw => TraceModel::CMW,
    }
}

#[derive(Serialize)]
struct PredictReport<'a> {
    input: &'a Path,
    model_file: &'a Path,
    prediction: &'a Prediction,
    profile: &'a ProgramProfile,
    /// The model's cross-validation on its corpus (per-program rows in the model file).
    cross_validation: Stats<'a>,
}

#[derive(Serialize)]
struct Stats<'a> {
    programs: usize,
    loo_median_abs_error: f64,
    loo_spearman: f64,
    kfold_median_abs_error: f64,
    corpus: &'a str,
    machine: &'a str,
    clock: &'a str,
}

pub(super) fn run_predict(args: PredictArgs, global: &GlobalOpts) -> CliResult {
    let saved = SavedModel::from_file(&args.model).map_err(CliError::input)?;
    let which = trace_model(args.trace_model);
    let model = saved.model(which).ok_or_else(|| {
        CliError::input(format!(
            "{}: holds no {} model",
            args.model.display(),
            which.name()
        ))
    })?;
    let classes = match &args.classes {
        Some(p) => OpClassTable::from_file(p).map_err(input)?,
        None => OpClassTable::default_table(),
    };
    let profile = profile_of(&args, &classes, global.json)?;
    let prediction = model.predict(&profile);
    if global.json {
        let s = &model.statistics;
        let report = PredictReport {
            input: &args.input,
            model_file: &args.model,
            prediction: &prediction,
            profile: &profile,
            cross_validation: Stats {
                programs: s.programs,
                loo_median_abs_error: s.loo_median_abs_error,
                loo_spearman: s.loo_spearman,
                kfold_median_abs_error: s.kfold_median_abs_error,
                corpus: &saved.corpus,
                machine: &saved.machine,
                clock: &saved.clock,
            },
        };
        let text = serde_json::to_string_pretty(&report)
            .map_err(|e| CliError::failure(format!("cannot write JSON: {e}")))?;
        println!("{text}");
        return Ok(());
    }
    print!("{}", human(&args, &saved, model, &prediction));
    Ok(())
}

/// Records the program (or reads the log) and profiles it.
/// With `--json` the program's own output is discarded: stdout must hold only the JSON.
fn profile_of(
    args: &PredictArgs,
    classes: &OpClassTable,
    json: bool,
) -> Result<ProgramProfile, CliError> {
    let is_program = args.input.extension().is_some_and(|e| e == "py");
    if !is_program {
        if !args.args.is_empty() {
            return Err(CliError::input(format!(
                "{}: arguments after `--` apply to a program (*.py), not to a log",
                args.input.display()
            )));
        }
        return ProgramProfile::from_log(&args.input, classes).map_err(input);
    }
    if !args.input.is_file() {
        return Err(CliError::input(format!(
            "{}: no such file: expected a Python program or a PYPYLOG",
            args.input.display()
        )));
    }
    let dir = tempfile::tempdir()
        .map_err(|e| CliError::failure(format!("cannot create a temporary directory: {e}")))?;
    let log = args
        .keep_log
        .clone()
        .unwrap_or_else(|| dir.path().join("pypylog.txt"));
    let options = pypy::RecordOptions {
        sections: PREDICT_SECTIONS.to_string(),
        jit: None,
        output: if json {
            metron_measure::runner::OutputPolicy::Discard
        } else {
            metron_measure::runner::OutputPolicy::Inherit
        },
    };
    pypy::record_with(&args.input, &args.args, &log, &options).map_err(input)?;
    ProgramProfile::from_log(&log, classes).map_err(input)
}

fn human(
    args: &PredictArgs,
    saved: &SavedModel,
    model: &WholeProgramModel,
    p: &Prediction,
) -> String {
    let mut o = String::new();
    let s = &model.statistics;
    let _ = writeln!(
        o,
        "{}: predicted {} ({} of pypy3, {} whole-program model)",
        args.input.display(),
        fmt_seconds(p.seconds),
        if saved.clock == "cpu" {
            "CPU time"
        } else {
            "wall time"
        },
        p.trace_model.name()
    );
    let _ = writeln!(
        o,
        "model: {} (machine: {}); cross-validated on {} programs: median |error| {:.0} %, Spearman {:.2}",
        args.model.display(),
        saved.machine,
        s.programs,
        s.loo_median_abs_error * 100.0,
        s.loo_spearman
    );
    let _ = writeln!(
        o,
        "\n  {:<12} {:>11} {:>7}  features (value → seconds)",
        "term", "seconds", "share"
    );
    for t in &p.terms {
        let share = if p.seconds > 0.0 {
            100.0 * t.seconds / p.seconds
        } else {
            0.0
        };
        let features: Vec<String> = t
            .features
            .iter()
            .filter(|(_, (v, _))| *v != 0.0)
            .map(|(name, (v, secs))| {
                let short = name.split_once('.').map_or(name.as_str(), |(_, n)| n);
                format!("{short} {} → {}", super::fmt_cost(*v), fmt_seconds(*secs))
            })
            .collect();
        let _ = writeln!(
            o,
            "  {:<12} {:>11} {:>6.1}%  {}",
            t.term,
            fmt_seconds(t.seconds),
            share,
            features.join(", ")
        );
    }
    let _ = writeln!(o, "  {:<12} {:>11}", "total", fmt_seconds(p.seconds));
    o
}

/// The saved model for `calibrate -o FILE.json`: all three whole-program fits.
pub(super) fn saved_model(
    observations: Vec<Observation>,
    classes: &[&str],
    folds: usize,
    meta: ModelMeta,
) -> Result<SavedModel, CliError> {
    let models = SavedModel::fit_all(&observations, classes, folds, &meta.without)
        .map_err(|e| CliError::input(format!("whole-program fit: {e}")))?;
    Ok(SavedModel {
        format: MODEL_FORMAT.to_string(),
        version: MODEL_VERSION,
        machine: meta.machine,
        clock: meta.clock,
        corpus: meta.corpus,
        startup_measured: meta.startup_measured,
        classes: classes.iter().map(|c| c.to_string()).collect(),
        models,
        observations,
    })
}

/// Where a saved model's data came from.
pub(super) struct ModelMeta {
    pub machine: String,
    pub clock: String,
    pub corpus: String,
    pub startup_measured: Option<f64>,
    /// Features or terms left out of the whole-program model (`--without`).
    pub without: Vec<String>,
}

/// The cross-validation table of the whole-program models (Markdown), as the docs show it.
pub(super) fn prediction_markdown(models: &[WholeProgramModel]) -> String {
    let mut o = String::new();
    let k = models.first().map_or(0, |m| m.statistics.k_folds);
    let _ = writeln!(
        o,
        "| whole-program model | programs (runs) | median \\|error\\| (leave-one-program-out) | Spearman ρ (leave-one-program-out) | median \\|error\\| ({k}-fold) | R² (in sample) | baseline: median time of the others |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|");
    for m in models {
        let s: &FitStatistics = &m.statistics;
        let _ = writeln!(
            o,
            "| {} | {} ({}) | {:.1} % | {:.3} | {:.1} % | {:.3} | {:.1} % |",
            terms_label(m),
            s.programs,
            s.observations,
            s.loo_median_abs_error * 100.0,
            s.loo_spearman,
            s.kfold_median_abs_error * 100.0,
            s.r_squared,
            s.baseline_median_abs_error * 100.0
        );
    }
    for m in models.iter().take(1) {
        let _ = writeln!(o, "\n{} weights:\n", m.trace_model.name());
        let _ = writeln!(o, "| feature | weight |");
        let _ = writeln!(o, "|---|---|");
        for (f, w) in &m.weights {
            let _ = writeln!(o, "| {f} | {w:.4e} |");
        }
        let _ = writeln!(
            o,
            "\nPer program ({}; seconds, leave-one-out):\n",
            m.trace_model.name()
        );
        let _ = writeln!(o, "| program | measured | predicted (held out) | error |");
        let _ = writeln!(o, "|---|---|---|---|");
        for h in &m.statistics.held_out {
            let _ = writeln!(
                o,
                "| {} | {:.3} | {:.3} | {:+.1} % |",
                h.program,
                h.measured,
                h.predicted,
                h.relative_error * 100.0
            );
        }
    }
    o
}

/// `calibrate LOGDIR --times CSV -o model.json`: the whole-program models from recorded logs
/// (PREDICT_SECTIONS) and whole-program times measured without PYPYLOG.
pub(super) fn fit_logs_to_model(
    logs: &Path,
    times: &[(String, f64)],
    classes: &OpClassTable,
    features: &[&str],
    args: &super::CalibrateArgs,
    out: &Path,
    global: &GlobalOpts,
) -> CliResult {
    let mut observations = Vec::new();
    for (program, seconds) in times {
        let path = logs.join(format!("{program}.log"));
        let profile = ProgramProfile::from_log(&path, classes).map_err(input)?;
        observations.push(Observation {
            program: program.clone(),
            seconds: *seconds,
            profile,
        });
    }
    let env = metron_measure::environment::Environment::capture(Path::new("."));
    let meta = ModelMeta {
        machine: super::experiments::machine(&env),
        clock: clock_name(args.clock),
        corpus: logs.display().to_string(),
        startup_measured: None,
        without: args.without.clone(),
    };
    let saved = saved_model(observations, features, args.folds, meta)?;
    write_model(out, &saved)?;
    if global.json {
        println!("{}", saved.to_json());
    } else {
        print!("{}", prediction_markdown(&saved.models));
    }
    Ok(())
}

pub(super) fn clock_name(c: super::ClockArg) -> String {
    match c {
        super::ClockArg::Cpu => "cpu".into(),
        super::ClockArg::Wall => "wall".into(),
    }
}

pub(super) fn write_model(out: &Path, saved: &SavedModel) -> CliResult {
    std::fs::write(out, saved.to_json() + "\n")
        .map_err(|e| CliError::failure(format!("{}: cannot write: {e}", out.display())))
}

/// "CMW + startup + warmup + ...": the terms a fitted model has features in.
fn terms_label(m: &WholeProgramModel) -> String {
    let mut terms: Vec<&str> = Vec::new();
    for t in m.weights.keys().map(|f| metron_jit::predict::term_of(f)) {
        if t != "compiled" && !terms.contains(&t) {
            terms.push(t);
        }
    }
    terms.sort_by_key(|t| metron_jit::predict::TERMS.iter().position(|x| x == t));
    format!("{} + {}", m.trace_model.name(), terms.join(" + "))
}
