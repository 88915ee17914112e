//! Calibration from a corpus of programs, end to end (001 §4.3): time every program with
//! metron-measure (warm-up plus repeated runs, no `PYPYLOG`), record its counters in a separate
//! run with `PYPYLOG`, and fit CMW's weights by NNLS ([`crate::calibrate`]). CM0 and CMC are
//! fitted too, each as a single coefficient (seconds per fragment execution, seconds per
//! operation), so that the three models compare on the same programs.
//!
//! Timing and counting are separate runs because counting instruments the machine code: every
//! label and bridge entry increments a counter in memory, which slows tight loops and would
//! make the weights absorb the instrumentation.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use metron_measure::counters::CounterSet;
use metron_measure::experiment::{self, CommandTemplate, Config, Observer, RunRecord, Stopping};
use metron_measure::metric;
use metron_measure::stats::{Bootstrap, Summary};

use crate::calibrate::{calibrate, Calibration, Sample};
use crate::cost::{analyze, CostModel, Weights};
use crate::error::JitError;
use crate::log::parse_file;
use crate::nnls::{self, NnlsError};
use crate::op_class::OpClassTable;
use crate::predict::Observation;
use crate::profile::{ProgramProfile, PREDICT_SECTIONS};
use crate::pypy;

/// Which time stands for a program's or task's time.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Clock {
    /// User + system CPU time: on a shared machine (the development one has 2 cores for 4
    /// agents) waiting for a core inflates wall time by whatever else runs, CPU time hardly.
    Cpu,
    /// Elapsed time, as the paper measured on a dedicated server.
    Wall,
}

impl Clock {
    pub fn name(self) -> &'static str {
        match self {
            Clock::Cpu => "CPU time (user + system)",
            Clock::Wall => "wall time",
        }
    }
}

/// One run's times, seconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RunTime {
    pub wall: f64,
    pub cpu: f64,
}

impl RunTime {
    pub fn on(&self, clock: Clock) -> f64 {
        match clock {
            Clock::Cpu => self.cpu,
            Clock::Wall => self.wall,
        }
    }
}

/// How the corpus is run.
#[derive(Debug, Clone)]
pub struct CorpusOptions {
    pub clock: Clock,
    /// Passed to every program as its first argument (the corpus programs' size factor).
    pub scale: f64,
    pub warmup: u32,
    pub runs: u32,
    /// Where the counter logs go.
    pub workdir: PathBuf,
}

/// The Python programs of a corpus directory, sorted; files starting with `_` are helpers.
pub fn corpus_programs(dir: &Path) -> Result<Vec<PathBuf>, JitError> {
    let entries = std::fs::read_dir(dir).map_err(|source| JitError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut programs: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "py")
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('_'))
        })
        .collect();
    programs.sort();
    if programs.is_empty() {
        return Err(JitError::Spec {
            path: dir.to_path_buf(),
            what: "no Python programs (*.py) in this directory: expected a calibration corpus \
                   such as examples/jit/corpus"
                .into(),
        });
    }
    Ok(programs)
}

struct Progress<'a>(&'a mut dyn FnMut());

impl Observer for Progress<'_> {
    fn run_finished(&mut self, _b: usize, _r: &RunRecord) -> metron_measure::Result<()> {
        (self.0)();
        Ok(())
    }
}

/// Wall and CPU times of the counted runs of `argv`, timed by metron-measure after `warmup`
/// runs; `on_run` is called after every run, warm-ups included.
pub fn time_command(
    argv: &[String],
    warmup: u32,
    runs: u32,
    on_run: &mut dyn FnMut(),
) -> Result<Vec<RunTime>, JitError> {
    let config = Config {
        commands: vec![CommandTemplate::new(argv.to_vec())],
        params: Vec::new(),
        warmup,
        stopping: Stopping::Fixed { runs: runs.max(1) },
        primary_metric: metric::WALL_TIME.to_string(),
        bootstrap: Bootstrap::default(),
        show_output: false,
    };
    let measure = |e: metron_measure::MeasureError| JitError::Measure(e.to_string());
    let plan = experiment::Plan::new(config).map_err(measure)?;
    let records =
        experiment::execute(&plan, &CounterSet::none(), &mut Progress(on_run)).map_err(measure)?;
    let mut walls = Vec::new();
    for r in records.iter().flatten().filter(|r| !r.warmup) {
        if !r.outcome.exit.success() {
            return Err(JitError::Failed {
                what: argv.join(" "),
                status: format!("exit status {}", r.outcome.exit.status()),
            });
        }
        walls.push(RunTime {
            wall: r.outcome.wall.as_secs_f64(),
            cpu: (r.outcome.user + r.outcome.sys).as_secs_f64(),
        });
    }
    Ok(walls)
}

/// One corpus program: its times and what its counters say it executed.
#[derive(Debug, Clone, Serialize)]
pub struct ProgramMeasurement {
    pub program: String,
    /// Times of the counted runs, seconds, start-up included.
    pub runs: Vec<RunTime>,
    /// Summary of the runs on the chosen clock.
    pub time: Summary,
    /// Mean time minus pypy3's start-up: the time the counts have to explain.
    pub seconds: f64,
    /// Executed operations per class (001 Eq. 6's features).
    pub executed_ops: BTreeMap<String, u64>,
    /// Γ under CM0: fragment executions.
    pub gamma_cm0: f64,
    /// Γ under CMC: executed non-debug operations.
    pub gamma_cmc: f64,
    /// Warm-up, interpreter and GC features of the logged run (whole-program prediction).
    pub profile: ProgramProfile,
    pub warnings: Vec<String>,
}

impl ProgramMeasurement {
    /// The program as an observation of the whole-program model: its median time, start-up
    /// included (the model has a start-up term of its own).
    pub fn observation(&self) -> Observation {
        Observation {
            program: self.program.clone(),
            seconds: self.time.median,
            profile: self.profile.clone(),
        }
    }
}

/// The start-up every run pays and no trace explains: `pypy3 -c pass`, timed like a program.
pub fn startup_seconds(
    opts: &CorpusOptions,
    on_run: &mut dyn FnMut(),
) -> Result<Summary, JitError> {
    let pypy = pypy::locate()?;
    let argv = vec![pypy.display().to_string(), "-c".into(), "pass".into()];
    let runs = time_command(&argv, opts.warmup, opts.runs, on_run)?;
    let times: Vec<f64> = runs.iter().map(|r| r.on(opts.clock)).collect();
    Summary::of(&times, &Bootstrap::default())
        .ok_or_else(|| JitError::Measure("no start-up runs".into()))
}

/// Times `program` (no PYPYLOG), then records and analyses its counters in a separate run.
pub fn measure_program(
    program: &Path,
    opts: &CorpusOptions,
    startup: f64,
    classes: &OpClassTable,
    on_run: &mut dyn FnMut(),
) -> Result<ProgramMeasurement, JitError> {
    let pypy = pypy::locate()?;
    let name = program
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let scale = opts.scale.to_string();
    let argv = vec![
        pypy.display().to_string(),
        program.display().to_string(),
        scale.clone(),
    ];
    let runs = time_command(&argv, opts.warmup, opts.runs, on_run)?;
    let times: Vec<f64> = runs.iter().map(|r| r.on(opts.clock)).collect();
    let time = Summary::of(&times, &Bootstrap::default())
        .ok_or_else(|| JitError::Measure(format!("{}: no timed runs", program.display())))?;
    std::fs::create_dir_all(&opts.workdir).map_err(|source| JitError::Io {
        path: opts.workdir.clone(),
        source,
    })?;
    let log_path = opts.workdir.join(format!("{name}.log"));
    pypy::record(program, &[scale], &log_path, PREDICT_SECTIONS)?;
    on_run();
    let log = parse_file(&log_path)?;
    let cmc = analyze(&log, classes, &CostModel::Cmc);
    if !cmc.has_counters {
        return Err(JitError::Spec {
            path: log_path,
            what: "no jit-backend-counts section: the program's counters were not written".into(),
        });
    }
    let profile = ProgramProfile::from_log(&log_path, classes)?;
    let mut warnings = cmc.warnings.clone();
    let mut seconds = time.mean - startup;
    if seconds <= 0.0 {
        warnings.push(format!(
            "{name}: mean time {:.4} s is not above pypy3's start-up {:.4} s; counted as 0",
            time.mean, startup
        ));
        seconds = 0.0;
    }
    Ok(ProgramMeasurement {
        program: name,
        runs,
        time,
        seconds,
        executed_ops: cmc.executed_ops.clone(),
        gamma_cm0: profile.gamma_cm0,
        gamma_cmc: cmc.gamma.unwrap_or(0.0),
        profile,
        warnings,
    })
}

/// A fitted model with its k-fold cross-validation.
#[derive(Debug, Clone, Serialize)]
pub struct ModelFit {
    pub model: String,
    pub fit: Calibration,
    pub k_folds: usize,
    /// Root mean square of the k-fold held-out errors, seconds.
    pub kfold_rmse: f64,
    /// R² through the origin (001 Eq. 5 claims proportionality; see `nnls::uncentered_r_squared`).
    pub r_squared_uncentered: f64,
    /// Median over programs of |leave-one-out error| / measured time.
    pub loo_median_relative_error: f64,
}

/// The result of a corpus calibration.
#[derive(Debug, Clone, Serialize)]
pub struct CorpusCalibration {
    pub startup_seconds: f64,
    pub programs: Vec<ProgramMeasurement>,
    /// CMW, CMC, CM0, in that order.
    pub fits: Vec<ModelFit>,
}

impl CorpusCalibration {
    pub fn cmw(&self) -> Option<&ModelFit> {
        self.fits.iter().find(|f| f.model == "CMW")
    }
}

/// The feature name under which a single-coefficient model's Γ enters the fit.
const GAMMA_FEATURE: &str = "gamma";

/// Fits CMW (per-class weights over `features`) and CM0 and CMC (one coefficient each, on
/// their Γ) by NNLS without intercept (001 Eq. 6), with leave-one-out and k-fold errors.
pub fn fit_models(
    programs: &[ProgramMeasurement],
    features: &[&str],
    k_folds: usize,
    startup_seconds: f64,
) -> Result<CorpusCalibration, NnlsError> {
    let cmw: Vec<Sample> = programs
        .iter()
        .map(|p| Sample {
            program: p.program.clone(),
            seconds: p.seconds,
            executed_ops: p.executed_ops.clone(),
        })
        .collect();
    let single = |gamma: fn(&ProgramMeasurement) -> f64| -> Vec<Sample> {
        programs
            .iter()
            .map(|p| Sample {
                program: p.program.clone(),
                seconds: p.seconds,
                executed_ops: [(GAMMA_FEATURE.to_string(), gamma(p).round() as u64)].into(),
            })
            .collect()
    };
    let k = k_folds.clamp(2, programs.len().max(2));
    let fits = vec![
        model_fit("CMW", &cmw, features, k)?,
        model_fit("CMC", &single(|p| p.gamma_cmc), &[GAMMA_FEATURE], k)?,
        model_fit("CM0", &single(|p| p.gamma_cm0), &[GAMMA_FEATURE], k)?,
    ];
    Ok(CorpusCalibration {
        startup_seconds,
        programs: programs.to_vec(),
        fits,
    })
}

fn model_fit(
    model: &str,
    samples: &[Sample],
    features: &[&str],
    k: usize,
) -> Result<ModelFit, NnlsError> {
    let fit = calibrate(samples, features)?;
    let a: Vec<Vec<f64>> = samples
        .iter()
        .map(|s| {
            features
                .iter()
                .map(|c| s.executed_ops.get(*c).copied().unwrap_or(0) as f64)
                .collect()
        })
        .collect();
    let b: Vec<f64> = samples.iter().map(|s| s.seconds).collect();
    let cv = nnls::k_fold(&a, &b, k)?;
    let predicted: Vec<f64> = fit.programs.iter().map(|p| p.predicted).collect();
    let mut relative: Vec<f64> = fit
        .programs
        .iter()
        .filter(|p| p.seconds > 0.0)
        .map(|p| (p.loo_error / p.seconds).abs())
        .collect();
    relative.sort_by(f64::total_cmp);
    let loo_median_relative_error = match relative.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => relative[n / 2],
        n => (relative[n / 2 - 1] + relative[n / 2]) / 2.0,
    };
    Ok(ModelFit {
        model: model.to_string(),
        r_squared_uncentered: nnls::uncentered_r_squared(&b, &predicted),
        loo_median_relative_error,
        fit,
        k_folds: k,
        kfold_rmse: cv.rmse,
    })
}

/// Weights relative to the guard weight, the comparison with 001 Eq. 7 that makes sense:
/// absolute weights depend on the machine and on the paper's arbitrary k = 1.
pub fn relative_weights(weights: &BTreeMap<String, f64>, reference: &str) -> BTreeMap<String, f64> {
    match weights.get(reference) {
        Some(r) if *r > 0.0 => weights.iter().map(|(c, w)| (c.clone(), w / r)).collect(),
        _ => BTreeMap::new(),
    }
}

/// The paper's Eq. 7 as relative weights (guard = 1): numeric 1.056, alloc 10.38, the rest 0.
pub fn paper_relative_weights() -> BTreeMap<String, f64> {
    relative_weights(&Weights::paper_eq7().per_class, "guard")
}

/// The experiment kind a corpus calibration is stored under.
pub const STORE_KIND: &str = "jit-calibration";

/// Records a corpus calibration in the experiment store (001 §4.3, "per machine"): the machine in
/// the environment, the whole fit (weights in seconds per operation, R², cross-validation) in the
/// config, and one benchmark per program whose runs carry its wall and CPU times, so that
/// `metron show` summarises them like any other experiment.
pub fn record_in_store(
    cal: &CorpusCalibration,
    environment: &metron_measure::environment::Environment,
    corpus: &std::path::Path,
    store: &mut metron_store::Store,
) -> Result<metron_store::ExperimentId, metron_store::StoreError> {
    use metron_store::{NewBenchmark, NewExperiment, NewRun, Sample, Status};
    let name = format!("corpus {}", corpus.display());
    let to_json = |v: serde_json::Result<serde_json::Value>| v.unwrap_or(serde_json::Value::Null);
    let exp = store.begin_experiment(&NewExperiment {
        kind: STORE_KIND,
        name: Some(&name),
        metron_version: env!("CARGO_PKG_VERSION"),
        argv: &serde_json::json!(std::env::args().collect::<Vec<_>>()),
        environment: &to_json(serde_json::to_value(environment)),
        config: &to_json(serde_json::to_value(cal)),
        host: Some(&environment.hostname),
    })?;
    for (position, p) in cal.programs.iter().enumerate() {
        let params = vec![("program".to_string(), p.program.clone())];
        let b = store.add_benchmark(
            exp,
            &NewBenchmark {
                position: position as u32,
                label: &p.program,
                command: &format!("pypy3 {}", p.program),
                argv: std::slice::from_ref(&p.program),
                params: &params,
            },
        )?;
        for (i, t) in p.runs.iter().enumerate() {
            let samples = [
                Sample {
                    metric: "wall-time".into(),
                    value: t.wall,
                    unit: "s".into(),
                },
                Sample {
                    metric: metron_measure::metric::CPU_TIME.into(),
                    value: t.cpu,
                    unit: "s".into(),
                },
            ];
            store.record_run(&NewRun {
                benchmark: b,
                index: i as u32 + 1,
                warmup: false,
                exit_code: Some(0),
                signal: None,
                ok: true,
                samples: &samples,
            })?;
        }
    }
    store.finish_experiment(exp, Status::Complete)?;
    Ok(exp)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn program(name: &str, ops: &[(&str, u64)], cm0: f64, seconds: f64) -> ProgramMeasurement {
        let executed_ops: BTreeMap<String, u64> =
            ops.iter().map(|(c, n)| (c.to_string(), *n)).collect();
        let gamma_cmc = executed_ops.values().sum::<u64>() as f64;
        ProgramMeasurement {
            program: name.into(),
            runs: vec![RunTime {
                wall: seconds,
                cpu: seconds,
            }],
            time: Summary::of(&[seconds], &Bootstrap::default()).unwrap(),
            seconds,
            executed_ops,
            gamma_cm0: cm0,
            gamma_cmc,
            profile: ProgramProfile::default(),
            warnings: Vec::new(),
        }
    }

    #[test]
    fn recovers_a_hand_constructed_machine() {
        // times built from known weights: numeric 1 ns, guard 0.5 ns, alloc 10 ns, object 0
        let w = [
            ("numeric", 1e-9),
            ("guard", 0.5e-9),
            ("alloc", 10e-9),
            ("object", 0.0),
        ];
        let ops: [[u64; 4]; 5] = [
            [1_000_000_000, 500_000_000, 1_000_000, 200_000_000],
            [200_000_000, 900_000_000, 30_000_000, 100_000_000],
            [600_000_000, 100_000_000, 5_000_000, 800_000_000],
            [50_000_000, 300_000_000, 60_000_000, 10_000_000],
            [800_000_000, 800_000_000, 0, 400_000_000],
        ];
        let programs: Vec<ProgramMeasurement> = ops
            .iter()
            .enumerate()
            .map(|(i, row)| {
                let t: f64 = row.iter().zip(&w).map(|(n, (_, wc))| *n as f64 * wc).sum();
                let named: Vec<(&str, u64)> =
                    w.iter().map(|(c, _)| *c).zip(row.iter().copied()).collect();
                program(&format!("p{i}"), &named, 1e6 * (i + 1) as f64, t)
            })
            .collect();
        let cal = fit_models(&programs, &["numeric", "guard", "alloc", "object"], 5, 0.04).unwrap();
        assert_eq!(
            cal.fits
                .iter()
                .map(|f| f.model.as_str())
                .collect::<Vec<_>>(),
            ["CMW", "CMC", "CM0"]
        );
        let cmw = cal.cmw().unwrap();
        for (c, want) in w {
            let got = cmw.fit.weights[c];
            assert!((got - want).abs() <= 1e-6 * 1e-9, "{c}: {got} vs {want}");
        }
        assert!((cmw.fit.r_squared - 1.0).abs() < 1e-9);
        assert!(cmw.kfold_rmse < 1e-9 && cmw.fit.loo_rmse < 1e-9);
        // relative to guard: numeric 2, alloc 20, object 0
        let rel = relative_weights(&cmw.fit.weights, "guard");
        assert!((rel["numeric"] - 2.0).abs() < 1e-5 && (rel["alloc"] - 20.0).abs() < 1e-4);
    }

    #[test]
    fn single_coefficient_models_by_hand() {
        // CMC: Γ = 1 and 3 (all ops), times 1 and 2: w = (1·1 + 3·2)/(1 + 9) = 0.7
        // CM0: Γ = 2 and 2, times 1 and 2: w = (2 + 4)/(4 + 4) = 0.75
        let programs = vec![
            program("a", &[("numeric", 1)], 2.0, 1.0),
            program("b", &[("numeric", 1), ("guard", 2)], 2.0, 2.0),
        ];
        let cal = fit_models(&programs, &["numeric", "guard"], 2, 0.0).unwrap();
        let cmc = &cal.fits[1];
        assert!((cmc.fit.weights[GAMMA_FEATURE] - 0.7).abs() < 1e-12);
        assert!((cmc.fit.programs[0].residual - 0.3).abs() < 1e-12);
        let cm0 = &cal.fits[2];
        assert!((cm0.fit.weights[GAMMA_FEATURE] - 0.75).abs() < 1e-12);
        // R² of CM0: predictions 1.5 and 1.5 equal the mean, so R² = 0; through the origin
        // 1 − (0.25 + 0.25)/(1 + 4) = 0.9
        assert!(cm0.fit.r_squared.abs() < 1e-12);
        assert!((cm0.r_squared_uncentered - 0.9).abs() < 1e-12);
        // leave-one-out relative errors |−1|/1 and |1|/2: median 0.75
        assert!((cm0.loo_median_relative_error - 0.75).abs() < 1e-12);
        // 2-fold = leave-one-out here: a from b (w = 1) -> 2, error -1; b from a (w = 0.5) -> 1
        assert!((cm0.kfold_rmse - 1.0).abs() < 1e-12);
    }

    #[test]
    fn paper_relative_weights_are_eq7s() {
        let rel = paper_relative_weights();
        assert!((rel["guard"] - 1.0).abs() < 1e-12);
        assert!((rel["numeric"] - 4.884 / 4.623).abs() < 1e-12);
        assert!((rel["alloc"] - 47.97 / 4.623).abs() < 1e-12);
        assert!(relative_weights(&rel, "missing").is_empty());
    }

    #[test]
    fn corpus_directory_lists_programs_or_says_why_not() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/jit/corpus");
        let programs = corpus_programs(&dir).unwrap();
        assert!(programs.len() >= 25);
        assert!(programs.windows(2).all(|w| w[0] < w[1]));
        let empty = tempfile::tempdir().unwrap();
        let e = corpus_programs(empty.path()).unwrap_err();
        assert!(e.to_string().contains("no Python programs"), "{e}");
    }
}
