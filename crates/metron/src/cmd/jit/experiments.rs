//! The experiments of `metron jit` that run programs: the corpus calibration (001 §4.3), the
//! k(τ) sweep with its Table-5 summary (001 §5.2-5.3) and the closed tuning loop (001 §5.1).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use indicatif::{ProgressBar, ProgressStyle};
use serde::Serialize;

use metron_jit::calibration::{
    corpus_programs, fit_models, measure_program, paper_relative_weights, relative_weights,
    startup_seconds, CorpusCalibration, CorpusOptions,
};
use metron_jit::cost::Weights;
use metron_jit::op_class::OpClassTable;
use metron_jit::tau::{
    measure_point, measure_sweep, predict_tau, tune_result, TaskSpec, TauExperiment, TauOptions,
    TauPoint,
};
use metron_measure::environment::Environment;

use super::{input, CalibrateArgs, Model, TauArgs, TimingArgs, TuneArgs};
use crate::error::{CliError, CliResult};
use crate::GlobalOpts;

fn bar(len: u64, quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len);
    if let Ok(style) =
        ProgressStyle::with_template("{bar:30} {pos}/{len} runs ({elapsed}, eta {eta}) {msg}")
    {
        bar.set_style(style);
    }
    bar
}

/// A working directory: the user's (kept) or a temporary one (removed when dropped).
struct Workdir {
    path: PathBuf,
    temporary: bool,
}

impl Workdir {
    fn new(keep: Option<&Path>, what: &str) -> Self {
        match keep {
            Some(p) => Workdir {
                path: p.to_path_buf(),
                temporary: false,
            },
            None => Workdir {
                path: std::env::temp_dir()
                    .join(format!("metron-jit-{what}-{}", std::process::id())),
                temporary: true,
            },
        }
    }
}

impl Drop for Workdir {
    fn drop(&mut self) {
        if self.temporary {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

fn json<T: Serialize>(value: &T) -> CliResult {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| CliError::failure(format!("cannot write JSON: {e}")))?;
    println!("{text}");
    Ok(())
}

fn write_file(path: &Path, text: &str) -> CliResult {
    std::fs::write(path, text)
        .map_err(|e| CliError::failure(format!("{}: cannot write: {e}", path.display())))
}

/// Seconds in the unit that reads best.
pub(crate) fn fmt_seconds(s: f64) -> String {
    if s.abs() >= 1.0 {
        format!("{s:.3} s")
    } else if s.abs() >= 1e-3 {
        format!("{:.2} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

pub(super) fn machine(env: &Environment) -> String {
    format!(
        "{} ({} logical CPUs), Linux {}, {}",
        env.cpu_model.as_deref().unwrap_or("unknown CPU"),
        env.cores,
        env.kernel,
        env.os.as_deref().unwrap_or("unknown OS")
    )
}

pub(super) fn run_corpus_calibration(
    args: &CalibrateArgs,
    corpus: &Path,
    classes: &OpClassTable,
    global: &GlobalOpts,
) -> CliResult {
    if let Some(bad) = args.scale.iter().find(|s| !(**s > 0.0 && s.is_finite())) {
        return Err(CliError::input(format!(
            "--scale {bad}: expected positive size factors such as 0.25 or 0.5,1,2"
        )));
    }
    let scales = args
        .scale
        .iter()
        .map(f64::to_string)
        .collect::<Vec<_>>()
        .join(",");
    let mut programs = corpus_programs(corpus).map_err(input)?;
    let stem = |p: &PathBuf| {
        p.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    for name in &args.exclude {
        if !programs.iter().any(|p| &stem(p) == name) {
            return Err(CliError::input(format!(
                "--exclude {name}: no program {name}.py in {}",
                corpus.display()
            )));
        }
    }
    programs.retain(|p| !args.exclude.contains(&stem(p)));
    if programs.len() < 2 {
        return Err(CliError::input(format!(
            "{}: one program cannot calibrate anything: expected at least 2",
            corpus.display()
        )));
    }
    let workdir = Workdir::new(args.keep_logs.as_deref(), "calibrate");
    let opts = CorpusOptions {
        clock: args.clock.clock(),
        scale: args.scale.first().copied().unwrap_or(0.25),
        warmup: args.warmup,
        runs: args.runs.max(1),
        workdir: workdir.path.clone(),
    };
    let per_timing = u64::from(opts.warmup + opts.runs);
    let runs = (programs.len() * args.scale.len()) as u64;
    let pb = bar(runs * per_timing + per_timing + runs, global.quiet);
    pb.set_message("pypy3 start-up");
    let mut tick = || pb.inc(1);
    let startup = startup_seconds(&opts, &mut tick).map_err(input)?;
    let mut measured = Vec::new();
    for &scale in &args.scale {
        let several = args.scale.len() > 1;
        let opts = CorpusOptions {
            scale,
            workdir: if several {
                opts.workdir.join(format!("scale-{scale}"))
            } else {
                opts.workdir.clone()
            },
            ..opts.clone()
        };
        for p in &programs {
            pb.set_message(format!("{} {scale}", stem(p)));
            let mut tick = || pb.inc(1);
            let mut m =
                measure_program(p, &opts, startup.mean, classes, &mut tick).map_err(input)?;
            if several {
                m.program = format!("{}@{scale}", m.program);
            }
            measured.push(m);
        }
    }
    pb.finish_and_clear();
    let features: Vec<&str> = args.features.iter().map(String::as_str).collect();
    let cal = fit_models(&measured, &features, args.folds, startup.mean)
        .map_err(|e| CliError::input(format!("calibration: {e}")))?;
    let env = Environment::capture(Path::new("."));
    let whole = match args.output.as_deref().filter(|o| super::is_json(o)) {
        Some(out) => {
            let meta = super::predict::ModelMeta {
                machine: machine(&env),
                clock: super::predict::clock_name(args.clock),
                corpus: format!("{} (scale {scales})", corpus.display()),
                startup_measured: Some(startup.median),
                without: args.without.clone(),
            };
            let obs = measured.iter().map(|m| m.observation()).collect();
            let saved = super::predict::saved_model(obs, &features, args.folds, meta)?;
            super::predict::write_model(out, &saved)?;
            Some(saved)
        }
        None => None,
    };
    if let (Some(out), Some(cmw), None) = (&args.output, cal.cmw(), &whole) {
        let header = format!(
            "CMW weights fitted by `metron jit calibrate --corpus {}` ({} programs, scale {}, {} runs)\non {}",
            corpus.display(),
            measured.len(),
            scales,
            opts.runs,
            machine(&env)
        );
        write_file(out, &cmw.fit.weights_file(&header))?;
    }
    if !args.no_store {
        let mut store = crate::cmd::open_store(&global.store_path())?;
        let id = metron_jit::calibration::record_in_store(&cal, &env, corpus, &mut store)
            .map_err(CliError::input)?;
        if !global.quiet {
            eprintln!(
                "stored as experiment {} in {} (metron show {})",
                id.0,
                store.path().display(),
                id.0
            );
        }
    }
    let mut text = corpus_markdown(&cal, &args.exclude, corpus, &opts, &scales, &env);
    if let Some(saved) = &whole {
        text.push_str(&format!(
            "\nWhole-program prediction (times with start-up, median of {} runs; model {}):\n\n",
            opts.runs,
            args.output
                .as_deref()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        ));
        text.push_str(&super::predict::prediction_markdown(&saved.models));
    }
    if let Some(report) = &args.report {
        write_file(report, &text)?;
    }
    if !global.quiet {
        for w in measured.iter().flat_map(|m| &m.warnings) {
            eprintln!("metron: warning: {w}");
        }
    }
    if global.json {
        return json(&cal);
    }
    print!("{text}");
    Ok(())
}

/// The corpus calibration as Markdown: what `--report` writes and the terminal shows.
fn corpus_markdown(
    cal: &CorpusCalibration,
    excluded: &[String],
    corpus: &Path,
    opts: &CorpusOptions,
    scales: &str,
    env: &Environment,
) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "Machine: {}", machine(env));
    let _ = writeln!(
        o,
        "Corpus: {} ({} programs × sizes{}, scale {}), {} warm-up + {} timed runs each without PYPYLOG \
         ({}), counters from one separate run with PYPYLOG; pypy3 start-up {} subtracted.\n",
        corpus.display(),
        cal.programs.len(),
        if excluded.is_empty() {
            String::new()
        } else {
            format!("; left out: {}", excluded.join(", "))
        },
        scales,
        opts.warmup,
        opts.runs,
        opts.clock.name(),
        fmt_seconds(cal.startup_seconds)
    );
    let _ = writeln!(
        o,
        "| model | coefficient | R² (centred) | R² (through origin) | leave-one-out RMSE | \
         median leave-one-out error | {}-fold RMSE |",
        cal.fits.first().map_or(0, |f| f.k_folds)
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|");
    for f in &cal.fits {
        let coef = if f.model == "CMW" {
            "per class (below)".to_string()
        } else {
            let unit = if f.model == "CM0" {
                "s per fragment execution"
            } else {
                "s per operation"
            };
            format!(
                "{:.3e} {unit}",
                f.fit.weights.values().next().copied().unwrap_or(0.0)
            )
        };
        let _ = writeln!(
            o,
            "| {} | {} | {:.3} | {:.3} | {} | {:.0} % | {} |",
            f.model,
            coef,
            f.fit.r_squared,
            f.r_squared_uncentered,
            fmt_seconds(f.fit.loo_rmse),
            f.loo_median_relative_error * 100.0,
            fmt_seconds(f.kfold_rmse)
        );
    }
    if let Some(cmw) = cal.cmw() {
        let rel = relative_weights(&cmw.fit.weights, "guard");
        let paper = paper_relative_weights();
        let _ = writeln!(o, "\nCMW weights (NNLS, no intercept, 001 Eq. 6), and relative to the guard weight beside 001 Eq. 7's:\n");
        let _ = writeln!(
            o,
            "| class | seconds per operation | relative (guard = 1) | 001 Eq. 7 relative |"
        );
        let _ = writeln!(o, "|---|---|---|---|");
        for (c, w) in &cmw.fit.weights {
            let r = rel.get(c).map_or("–".to_string(), |r| format!("{r:.3}"));
            let p = paper
                .get(c)
                .map_or("0 (or not fitted)".to_string(), |p| format!("{p:.3}"));
            let _ = writeln!(o, "| {c} | {w:.3e} | {r} | {p} |");
        }
        let _ = writeln!(o, "\nPer program (seconds after start-up; CMW fit):\n");
        let _ = writeln!(
            o,
            "| program | measured | fitted | residual | leave-one-out error |"
        );
        let _ = writeln!(o, "|---|---|---|---|---|");
        for p in &cmw.fit.programs {
            let _ = writeln!(
                o,
                "| {} | {:.4} | {:.4} | {:+.4} | {:+.4} |",
                p.program, p.seconds, p.predicted, p.residual, p.loo_error
            );
        }
    }
    o
}

fn tau_options(
    timing: &TimingArgs,
    weights: Option<&Path>,
    classes: Option<&Path>,
    workdir: &Workdir,
) -> Result<TauOptions, CliError> {
    let weights = match weights {
        Some(w) => Weights::from_file(w).map_err(input)?,
        None => Weights::paper_eq7(),
    };
    let classes = match classes {
        Some(p) => OpClassTable::from_file(p).map_err(input)?,
        None => OpClassTable::default_table(),
    };
    if timing.budget.is_nan() || timing.budget <= 0.0 {
        return Err(CliError::input(format!(
            "--budget {}: expected a positive number of seconds",
            timing.budget
        )));
    }
    Ok(TauOptions {
        clock: timing.clock.clock(),
        repeat: timing.repeat.max(1),
        processes: timing.processes.max(1),
        budget_seconds: timing.budget,
        classes,
        weights,
        workdir: workdir.path.clone(),
    })
}

fn task_spec(path: &Path) -> Result<TaskSpec, CliError> {
    if !path.is_file() {
        return Err(CliError::input(format!(
            "{}: no such file: expected a task function such as examples/jit/tasks/matmul_chunked.py",
            path.display()
        )));
    }
    TaskSpec::from_file(path).map_err(input)
}

fn point(
    spec: &TaskSpec,
    tau: u64,
    opts: &TauOptions,
    pb: &ProgressBar,
) -> Result<TauPoint, CliError> {
    let p = measure_point(spec, tau, opts, |step| {
        pb.set_message(format!("{}: {step}", spec.name));
        pb.inc(1);
    })
    .map_err(input)?;
    Ok(p)
}

pub(super) fn run_tau(args: TauArgs, global: &GlobalOpts) -> CliResult {
    let spec = task_spec(&args.task)?;
    let taus = if args.tau.is_empty() {
        spec.taus.clone()
    } else {
        args.tau.clone()
    };
    if taus.contains(&0) {
        return Err(CliError::input(
            "--tau: expected positive integers such as 1,2,4",
        ));
    }
    let workdir = Workdir::new(args.timing.keep_logs.as_deref(), "tau");
    let opts = tau_options(
        &args.timing,
        args.weights.as_deref(),
        args.classes.as_deref(),
        &workdir,
    )?;
    let pb = bar(
        taus.len() as u64 * (2 + u64::from(opts.processes)),
        global.quiet,
    );
    let points = measure_sweep(&spec, &taus, &opts, |step| {
        pb.set_message(format!("{}: {step}", spec.name));
        pb.inc(1);
    })
    .map_err(input)?;
    pb.finish_and_clear();
    let exp = TauExperiment::new(&spec, points, args.tolerance);
    if let Some(csv) = &args.csv {
        write_file(csv, &exp.csv())?;
    }
    if !global.quiet {
        for w in exp.points.iter().flat_map(|p| &p.warnings) {
            eprintln!("metron: warning: {w}");
        }
    }
    if global.json {
        return json(&exp);
    }
    print!("{}", tau_text(&exp, &opts.weights));
    Ok(())
}

fn tau_text(exp: &TauExperiment, weights: &Weights) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{} ({}, cost derivative {}); task time: {}; CMW weights: {}",
        exp.benchmark,
        exp.skeleton,
        exp.derivative.as_str(),
        exp.points.first().map_or("", |p| p.clock.name()),
        weights.origin
    );
    let _ = writeln!(
        o,
        "\n| τ | task time (median) | runs | Γ CM0 | Γ CMC | Γ CMW | k CM0 | k CMC | k CMW |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|---|---|---|---|");
    for p in &exp.points {
        let g = |m: &str| p.gamma.get(m).map_or("–".into(), |g| format!("{g:.4e}"));
        let k = |m: &str| p.k.get(m).map_or("–".into(), |k| format!("{k:.4e}"));
        let _ = writeln!(
            o,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            p.tau,
            fmt_seconds(p.time.median),
            p.times.len(),
            g("CM0"),
            g("CMC"),
            g("CMW"),
            k("CM0"),
            k("CMC"),
            k("CMW")
        );
    }
    let _ = writeln!(
        o,
        "\n001 Table 5 (stable: within {:.0} % of the coarsest tasks' k)\n",
        exp.tolerance * 100.0
    );
    let _ = writeln!(
        o,
        "| benchmark | model | stable k | range of k | min. task granularity for stable k |"
    );
    let _ = writeln!(o, "|---|---|---|---|---|");
    for r in &exp.table5 {
        let g = if r.below_smallest {
            format!("≤ {}", fmt_seconds(r.min_granularity_seconds))
        } else {
            fmt_seconds(r.min_granularity_seconds)
        };
        let _ = writeln!(
            o,
            "| {} | {} | {:.4e} | {:.4e} | {} |",
            exp.benchmark, r.model, r.stable_k, r.range, g
        );
    }
    for r in exp.table5.iter().filter(|r| !r.coarse_outliers.is_empty()) {
        let taus: Vec<String> = r.coarse_outliers.iter().map(u64::to_string).collect();
        let _ = writeln!(
            o,
            "note: {}: k at the coarse τ {} is off the reference; skipped before the plateau",
            r.model,
            taus.join(", ")
        );
    }
    o
}

fn model_name(m: Model) -> &'static str {
    match m {
        Model::Cm0 => "CM0",
        Model::Cmc => "CMC",
        Model::Cmw => "CMW",
    }
}

pub(super) fn run_tune(args: TuneArgs, global: &GlobalOpts) -> CliResult {
    let spec = task_spec(&args.task)?;
    if args.tau0 == 0 || !(args.target > 0.0 && args.target.is_finite()) {
        return Err(CliError::input(
            "expected --tau0 a positive integer and --target a positive time in seconds (e.g. 0.02)",
        ));
    }
    let workdir = Workdir::new(args.timing.keep_logs.as_deref(), "tune");
    let opts = tau_options(
        &args.timing,
        args.weights.as_deref(),
        args.classes.as_deref(),
        &workdir,
    )?;
    let pb = bar(2 * (2 + u64::from(opts.processes)), global.quiet);
    let model = model_name(args.model);
    let before = point(&spec, args.tau0, &opts, &pb)?;
    let gamma0 = before.gamma.get(model).copied().unwrap_or(0.0);
    if gamma0 <= 0.0 {
        pb.finish_and_clear();
        return Err(CliError::failure(format!(
            "{}: τ0 = {} has Γ = 0 under {model}: the task ran no compiled code; pick a larger τ0",
            spec.path.display(),
            args.tau0
        )));
    }
    let prediction = predict_tau(
        spec.derivative,
        args.tau0,
        before.time.median,
        gamma0,
        args.target,
    );
    let after = point(&spec, prediction.tau1, &opts, &pb)?;
    pb.finish_and_clear();
    let result = tune_result(&spec, model, prediction, before, after);
    if global.json {
        return json(&result);
    }
    let p = &result.prediction;
    println!(
        "{} ({}, cost derivative {}), model {model}",
        spec.name,
        spec.skeleton,
        spec.derivative.as_str()
    );
    println!(
        "observed: τ0 = {}, t0 = {}, γ0 = {:.4e}, k = t0/γ0 = {:.4e}",
        p.tau0,
        fmt_seconds(p.t0),
        p.gamma0,
        p.k
    );
    println!(
        "target:   t1 = {}, γ1 = t1/k = {:.4e}, τ1 = {:.2} -> {}",
        fmt_seconds(p.t1),
        p.gamma1,
        p.tau1_exact,
        p.tau1
    );
    println!(
        "measured: t(τ1) = {}, error vs target {:+.1} %, vs the rounded τ1's prediction ({}) {:+.1} %",
        fmt_seconds(result.after.time.median),
        result.error_vs_target * 100.0,
        fmt_seconds(p.t1_at_tau1),
        result.error_vs_rounded * 100.0
    );
    let ratios: Vec<String> = result
        .gamma_ratio
        .iter()
        .map(|(m, r)| format!("{m} {r:.3}"))
        .collect();
    println!(
        "Γ(τ1)/Γ(τ0): {} (derivative says {:.3}; time ratio {:.3})",
        ratios.join(", "),
        result.derivative_ratio,
        result.time_ratio
    );
    Ok(())
}
