//! Whole-program run-time prediction (issue 15). 001 Eq. 4's Γ prices compiled code only and
//! is "not a predictive cost model" (001 §4.2); a program's time also holds pypy3's start-up,
//! the JIT's warm-up, time outside compiled code and the collector's. The model here is
//! 001 Eq. 6 with those terms added, one linear feature each:
//!
//! t(P) = startup + compiled(CM0 | CMC | CMW) + warm-up + interpreter + GC
//!
//! fitted by NNLS on a corpus. A feature is named `TERM.NAME` (`compiled.numeric`,
//! `warmup.jit_seconds`); a term's prediction is the sum of its features' weight × value.
//! Rows are divided by the measured time before fitting, so the fit minimises *relative*
//! errors: a 0.2 s program counts as much as a 2 s one, as in the median |error| it is judged by.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::calibrate::DEFAULT_FEATURES;
use crate::error::JitError;
use crate::nnls::{self, NnlsError};
use crate::profile::ProgramProfile;

/// The `format` of a saved model file.
pub const MODEL_FORMAT: &str = "metron-jit-model";
/// Bumped when a field changes meaning; readers refuse other versions.
pub const MODEL_VERSION: u32 = 1;

/// The terms of a whole-program prediction, in the order they are reported.
pub const TERMS: [&str; 5] = ["startup", "compiled", "warmup", "interpreter", "gc"];

/// Which trace cost model prices the compiled code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum TraceModel {
    /// 001 Eq. 1: one coefficient per fragment execution.
    CM0,
    /// 001 Eq. 2: one coefficient per executed operation.
    CMC,
    /// 001 Eq. 3: one weight per operation class.
    CMW,
}

impl TraceModel {
    pub const ALL: [TraceModel; 3] = [TraceModel::CMW, TraceModel::CMC, TraceModel::CM0];

    pub fn name(self) -> &'static str {
        match self {
            TraceModel::CM0 => "CM0",
            TraceModel::CMC => "CMC",
            TraceModel::CMW => "CMW",
        }
    }
}

/// The feature names of the whole-program model under `model`.
pub fn feature_names(model: TraceModel, classes: &[&str]) -> Vec<String> {
    let mut names = vec!["startup.constant".to_string()];
    match model {
        TraceModel::CMW => names.extend(classes.iter().map(|c| format!("compiled.{c}"))),
        TraceModel::CMC => names.push("compiled.operations".into()),
        TraceModel::CM0 => names.push("compiled.fragment_executions".into()),
    }
    names.extend(
        [
            "warmup.jit_seconds",
            "warmup.traces",
            "interpreter.residual_calls",
            "gc.seconds",
            "gc.minor_collections",
        ]
        .map(String::from),
    );
    names
}

/// The value of feature `name` for a program; unknown names are 0 (a class the log lacks).
pub fn feature_value(p: &ProgramProfile, name: &str) -> f64 {
    match name {
        "startup.constant" => 1.0,
        "compiled.operations" => p.gamma_cmc,
        "compiled.fragment_executions" => p.gamma_cm0,
        "warmup.jit_seconds" => p.tracing_seconds + p.backend_seconds,
        "warmup.traces" => p.traces_compiled as f64,
        "interpreter.residual_calls" => p.residual_calls as f64,
        "gc.seconds" => p.gc.seconds,
        // each minor collection stands for a nursery's worth of allocation (and of zeroing)
        "gc.minor_collections" => p.gc.minor_collections as f64,
        _ => name
            .strip_prefix("compiled.")
            .and_then(|c| p.executed_ops.get(c))
            .map_or(0.0, |n| *n as f64),
    }
}

/// The term a feature belongs to: the part of its name before the dot.
pub fn term_of(feature: &str) -> &str {
    feature.split('.').next().unwrap_or(feature)
}

/// A program of the corpus: its profile and its measured time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    pub program: String,
    /// Measured time of the whole program (median over the timed runs), seconds.
    pub seconds: f64,
    pub profile: ProgramProfile,
}

/// A held-out prediction of one program.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HeldOut {
    pub program: String,
    pub measured: f64,
    /// Prediction of the model fitted on all programs.
    pub fitted: f64,
    /// Prediction of the model fitted without this program (leave-one-out).
    pub predicted: f64,
    /// (predicted − measured) / measured
    pub relative_error: f64,
}

/// How well a model predicts programs it has not seen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FitStatistics {
    /// Distinct programs (`name@scale` runs of one program count once) and runs fitted.
    pub programs: usize,
    pub observations: usize,
    /// R² of the in-sample fit (centred) and through the origin.
    pub r_squared: f64,
    pub r_squared_uncentered: f64,
    /// Median of |leave-one-out relative error|; "one" is one program with all its sizes.
    pub loo_median_abs_error: f64,
    /// Spearman rank correlation of leave-one-out predictions with measured times.
    pub loo_spearman: f64,
    /// The same leave-one-out median |error| for a model without features: each held-out
    /// program predicted as the median time of the others. The model must beat it.
    pub baseline_median_abs_error: f64,
    /// Median |relative error| of k-fold cross-validation (folds by program, sizes together).
    pub kfold_median_abs_error: f64,
    pub k_folds: usize,
    pub held_out: Vec<HeldOut>,
}

/// A fitted whole-program model for one trace cost model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WholeProgramModel {
    pub trace_model: TraceModel,
    /// Weight per feature (seconds per unit of the feature).
    pub weights: BTreeMap<String, f64>,
    pub statistics: FitStatistics,
}

/// One term of a prediction.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TermPrediction {
    pub term: String,
    pub seconds: f64,
    /// Per feature: (value, weight × value).
    pub features: BTreeMap<String, (f64, f64)>,
}

/// A predicted run time with its breakdown; the terms sum to `seconds`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Prediction {
    pub trace_model: TraceModel,
    pub seconds: f64,
    pub terms: Vec<TermPrediction>,
}

impl WholeProgramModel {
    /// Predicts `p`'s time, term by term.
    pub fn predict(&self, p: &ProgramProfile) -> Prediction {
        let mut terms: Vec<TermPrediction> = TERMS
            .iter()
            .map(|t| TermPrediction {
                term: t.to_string(),
                seconds: 0.0,
                features: BTreeMap::new(),
            })
            .collect();
        for (name, w) in &self.weights {
            let value = feature_value(p, name);
            let term = term_of(name);
            let at = match terms.iter().position(|t| t.term == term) {
                Some(i) => i,
                None => {
                    terms.push(TermPrediction {
                        term: term.to_string(),
                        seconds: 0.0,
                        features: BTreeMap::new(),
                    });
                    terms.len() - 1
                }
            };
            terms[at].seconds += w * value;
            terms[at].features.insert(name.clone(), (value, w * value));
        }
        Prediction {
            trace_model: self.trace_model,
            seconds: terms.iter().map(|t| t.seconds).sum(),
            terms,
        }
    }
}

/// Rows scaled by 1/measured time: NNLS then minimises relative errors.
fn relative_rows(obs: &[Observation], features: &[String]) -> (Vec<Vec<f64>>, Vec<f64>) {
    let a = obs
        .iter()
        .map(|o| {
            features
                .iter()
                .map(|f| feature_value(&o.profile, f) / o.seconds)
                .collect()
        })
        .collect();
    (a, vec![1.0; obs.len()])
}

/// The program an observation belongs to: `name@scale` runs of one program form one group,
/// so cross-validation never predicts a program from its own other sizes.
pub fn group_of(program: &str) -> &str {
    program.split('@').next().unwrap_or(program)
}

/// Fold of each observation: groups in order of first appearance, group index mod `k`.
fn folds(obs: &[Observation], k: usize) -> Vec<usize> {
    let mut groups: Vec<&str> = Vec::new();
    obs.iter()
        .map(|o| {
            let g = group_of(&o.program);
            let i = groups.iter().position(|x| *x == g).unwrap_or_else(|| {
                groups.push(g);
                groups.len() - 1
            });
            i % k
        })
        .collect()
}

fn group_count(obs: &[Observation]) -> usize {
    let mut g: Vec<&str> = obs.iter().map(|o| group_of(&o.program)).collect();
    g.sort_unstable();
    g.dedup();
    g.len()
}

/// Held-out predictions (seconds) of every observation by fits without its fold, for the
/// model (`features`) and for the baseline that predicts the training programs' median time.
fn cross_predict(
    obs: &[Observation],
    features: &[String],
    k: usize,
) -> Result<(Vec<f64>, Vec<f64>), NnlsError> {
    let (a, b) = relative_rows(obs, features);
    let fold = folds(obs, k);
    let mut predicted = vec![0.0; obs.len()];
    let mut baseline = vec![0.0; obs.len()];
    for f in 0..k {
        let train: Vec<usize> = (0..obs.len()).filter(|&i| fold[i] != f).collect();
        if train.len() == obs.len() {
            continue;
        }
        let ta: Vec<Vec<f64>> = train.iter().map(|&i| a[i].clone()).collect();
        let tb: Vec<f64> = train.iter().map(|&i| b[i]).collect();
        let x = nnls::nnls(&ta, &tb)?.x;
        let mut times: Vec<f64> = train.iter().map(|&i| obs[i].seconds).collect();
        let typical = median(&mut times);
        for i in (0..obs.len()).filter(|&i| fold[i] == f) {
            // a row's relative prediction times its measured time is the prediction in seconds
            predicted[i] = a[i].iter().zip(&x).map(|(v, w)| v * w).sum::<f64>() * obs[i].seconds;
            baseline[i] = typical;
        }
    }
    Ok((predicted, baseline))
}

/// Whether `feature` is left out by `without`: a whole term (`gc`) or one feature
/// (`gc.seconds`).
pub fn is_left_out(feature: &str, without: &[String]) -> bool {
    without
        .iter()
        .any(|w| w == feature || w.as_str() == term_of(feature))
}

/// Fits the whole-program model under `model` with leave-one-out and k-fold statistics.
pub fn fit(
    obs: &[Observation],
    model: TraceModel,
    classes: &[&str],
    k_folds: usize,
) -> Result<WholeProgramModel, NnlsError> {
    fit_without(obs, model, classes, k_folds, &[])
}

/// As [`fit`], leaving out the features or terms named in `without` (an ablation).
pub fn fit_without(
    obs: &[Observation],
    model: TraceModel,
    classes: &[&str],
    k_folds: usize,
    without: &[String],
) -> Result<WholeProgramModel, NnlsError> {
    let mut features = feature_names(model, classes);
    features.retain(|f| !is_left_out(f, without));
    let (a, b) = relative_rows(obs, &features);
    let solution = nnls::nnls(&a, &b)?;
    let weights: BTreeMap<String, f64> = features.iter().cloned().zip(solution.x).collect();
    let whole = WholeProgramModel {
        trace_model: model,
        weights,
        statistics: FitStatistics::empty(),
    };
    let fitted: Vec<f64> = obs
        .iter()
        .map(|o| whole.predict(&o.profile).seconds)
        .collect();
    let groups = group_count(obs);
    let (loo, baseline) = cross_predict(obs, &features, groups)?;
    let k = k_folds.clamp(2, groups.max(2));
    let (kfold, _) = cross_predict(obs, &features, k)?;
    let measured: Vec<f64> = obs.iter().map(|o| o.seconds).collect();
    let held_out: Vec<HeldOut> = obs
        .iter()
        .zip(fitted.iter().zip(&loo))
        .map(|(o, (f, p))| HeldOut {
            program: o.program.clone(),
            measured: o.seconds,
            fitted: *f,
            predicted: *p,
            relative_error: (p - o.seconds) / o.seconds,
        })
        .collect();
    let statistics = FitStatistics {
        programs: groups,
        observations: obs.len(),
        r_squared: nnls::r_squared(&measured, &fitted),
        r_squared_uncentered: nnls::uncentered_r_squared(&measured, &fitted),
        loo_median_abs_error: median_abs_relative_error(&measured, &loo),
        loo_spearman: spearman(&measured, &loo),
        baseline_median_abs_error: median_abs_relative_error(&measured, &baseline),
        kfold_median_abs_error: median_abs_relative_error(&measured, &kfold),
        k_folds: k,
        held_out,
    };
    Ok(WholeProgramModel {
        statistics,
        ..whole
    })
}

impl FitStatistics {
    fn empty() -> Self {
        FitStatistics {
            programs: 0,
            observations: 0,
            r_squared: f64::NAN,
            r_squared_uncentered: f64::NAN,
            loo_median_abs_error: f64::NAN,
            loo_spearman: f64::NAN,
            baseline_median_abs_error: f64::NAN,
            kfold_median_abs_error: f64::NAN,
            k_folds: 0,
            held_out: Vec::new(),
        }
    }
}

/// Median of |predicted − measured| / measured.
pub fn median_abs_relative_error(measured: &[f64], predicted: &[f64]) -> f64 {
    let mut e: Vec<f64> = measured
        .iter()
        .zip(predicted)
        .map(|(m, p)| ((p - m) / m).abs())
        .collect();
    median(&mut e)
}

fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    match xs.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => xs[n / 2],
        n => (xs[n / 2 - 1] + xs[n / 2]) / 2.0,
    }
}

/// Ranks from 1, ties given their average rank.
fn ranks(xs: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..xs.len()).collect();
    order.sort_by(|&i, &j| xs[i].total_cmp(&xs[j]));
    let mut r = vec![0.0; xs.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i;
        while j + 1 < order.len() && xs[order[j + 1]] == xs[order[i]] {
            j += 1;
        }
        let rank = (i + j) as f64 / 2.0 + 1.0;
        for &o in &order[i..=j] {
            r[o] = rank;
        }
        i = j + 1;
    }
    r
}

/// Spearman's rank correlation: Pearson's r of the ranks (ties averaged).
pub fn spearman(x: &[f64], y: &[f64]) -> f64 {
    let (rx, ry) = (ranks(x), ranks(y));
    let n = rx.len() as f64;
    let (mx, my) = (rx.iter().sum::<f64>() / n, ry.iter().sum::<f64>() / n);
    let cov: f64 = rx.iter().zip(&ry).map(|(a, b)| (a - mx) * (b - my)).sum();
    let vx: f64 = rx.iter().map(|a| (a - mx).powi(2)).sum();
    let vy: f64 = ry.iter().map(|b| (b - my).powi(2)).sum();
    cov / (vx * vy).sqrt()
}

/// The saved model: every trace cost model's whole-program fit, with its statistics and the
/// corpus it came from. Written by `metron jit calibrate -o FILE.json`, read by `predict`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SavedModel {
    pub format: String,
    pub version: u32,
    /// The machine the times were measured on.
    pub machine: String,
    /// "cpu" (user + system) or "wall".
    pub clock: String,
    pub corpus: String,
    /// pypy3's start-up measured alone (`pypy3 -c pass`), for comparison with the fitted
    /// `startup.constant`; `None` when not measured.
    pub startup_measured: Option<f64>,
    /// Operation classes of CMW's features.
    pub classes: Vec<String>,
    /// CMW, CMC and CM0, in that order.
    pub models: Vec<WholeProgramModel>,
    /// The observations the models were fitted on, so a fit can be repeated or inspected.
    pub observations: Vec<Observation>,
}

impl SavedModel {
    /// Fits all three models on `obs`.
    pub fn fit_all(
        obs: &[Observation],
        classes: &[&str],
        k_folds: usize,
        without: &[String],
    ) -> Result<Vec<WholeProgramModel>, NnlsError> {
        TraceModel::ALL
            .iter()
            .map(|m| fit_without(obs, *m, classes, k_folds, without))
            .collect()
    }

    pub fn model(&self, m: TraceModel) -> Option<&WholeProgramModel> {
        self.models.iter().find(|w| w.trace_model == m)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }

    /// Reads a model file, checking its format and version.
    pub fn from_file(path: &Path) -> Result<Self, JitError> {
        let text = crate::error::read_text(path)?;
        Self::parse(&text, path)
    }

    pub fn parse(text: &str, path: &Path) -> Result<Self, JitError> {
        let spec = |what: String| JitError::Spec {
            path: path.to_path_buf(),
            what,
        };
        let head: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            spec(format!(
                "line {}: not JSON ({e}): expected a model written by `metron jit calibrate -o model.json`",
                e.line()
            ))
        })?;
        if head.get("format").and_then(|f| f.as_str()) != Some(MODEL_FORMAT) {
            return Err(spec(format!(
                "not a metron JIT model: expected \"format\": \"{MODEL_FORMAT}\" \
                 (write one with `metron jit calibrate --corpus DIR -o model.json`)"
            )));
        }
        let version = head.get("version").and_then(|v| v.as_u64());
        if version != Some(u64::from(MODEL_VERSION)) {
            return Err(spec(format!(
                "model version {version:?}: this metron reads version {MODEL_VERSION}; refit it"
            )));
        }
        let model: SavedModel =
            serde_json::from_value(head).map_err(|e| spec(format!("malformed model: {e}")))?;
        if model.models.is_empty() {
            return Err(spec("the model file holds no fitted model".into()));
        }
        Ok(model)
    }
}

/// CMW's default features, as the saved model lists them.
pub fn default_classes() -> Vec<&'static str> {
    DEFAULT_FEATURES.to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(
        numeric: u64,
        guard: u64,
        jit: f64,
        calls: u64,
        gc: f64,
        traces: u64,
    ) -> ProgramProfile {
        let mut p = ProgramProfile {
            executed_ops: [
                ("numeric".to_string(), numeric),
                ("guard".to_string(), guard),
            ]
            .into(),
            gamma_cmc: (numeric + guard) as f64,
            gamma_cm0: (guard / 2) as f64,
            residual_calls: calls,
            tracing_seconds: jit * 0.75,
            backend_seconds: jit * 0.25,
            traces_compiled: traces,
            ..ProgramProfile::default()
        };
        p.gc.seconds = gc;
        p
    }

    /// t = 0.04 + 1e-9·numeric + 3e-9·guard + 1.0·jit + 2e-7·calls + 1.0·gc, by hand.
    fn oracle(p: &ProgramProfile) -> f64 {
        0.04 + 1e-9 * p.executed_ops["numeric"] as f64
            + 3e-9 * p.executed_ops["guard"] as f64
            + (p.tracing_seconds + p.backend_seconds)
            + 2e-7 * p.residual_calls as f64
            + p.gc.seconds
    }

    fn corpus() -> Vec<Observation> {
        (0..12u64)
            .map(|i| {
                let p = profile(
                    100_000_000 * (i + 1),
                    30_000_000 * ((i * 7) % 11 + 1),
                    0.01 * ((i * 5) % 7 + 1) as f64,
                    100_000 * ((i * 3) % 5),
                    0.002 * (i % 4) as f64,
                    3 + (i * i) % 13,
                );
                Observation {
                    program: format!("p{i}"),
                    seconds: oracle(&p),
                    profile: p,
                }
            })
            .collect()
    }

    #[test]
    fn cross_validation_recovers_a_known_linear_relation() {
        let obs = corpus();
        let m = fit(&obs, TraceModel::CMW, &["numeric", "guard"], 4).unwrap();
        let w = |f: &str| m.weights[f];
        for (f, want) in [
            ("startup.constant", 0.04),
            ("compiled.numeric", 1e-9),
            ("compiled.guard", 3e-9),
            ("warmup.jit_seconds", 1.0),
            ("interpreter.residual_calls", 2e-7),
            ("gc.seconds", 1.0),
        ] {
            assert!(
                (w(f) - want).abs() <= 1e-6 * want,
                "{f}: {} vs {want}",
                w(f)
            );
        }
        assert!(w("warmup.traces").abs() < 1e-12);
        let s = &m.statistics;
        assert!(s.loo_median_abs_error < 1e-9 && s.kfold_median_abs_error < 1e-9);
        assert!((s.loo_spearman - 1.0).abs() < 1e-12);
        assert_eq!(s.held_out.len(), 12);
        // the breakdown sums to the total and the terms match the oracle's parts
        let p = &obs[5].profile;
        let pred = m.predict(p);
        let sum: f64 = pred.terms.iter().map(|t| t.seconds).sum();
        assert!((sum - pred.seconds).abs() < 1e-12);
        assert!((pred.seconds - oracle(p)).abs() < 1e-9);
        let term = |t: &str| pred.terms.iter().find(|x| x.term == t).unwrap().seconds;
        assert!((term("startup") - 0.04).abs() < 1e-9);
        assert!((term("gc") - p.gc.seconds).abs() < 1e-9);
    }

    #[test]
    fn every_size_of_a_program_is_held_out_together() {
        let obs: Vec<Observation> = [("p@1", 1.0), ("p@2", 2.0), ("q@1", 4.0), ("r", 8.0)]
            .iter()
            .map(|(name, t)| Observation {
                program: name.to_string(),
                seconds: *t,
                profile: profile(1, 1, 0.1, 0, 0.0, 1),
            })
            .collect();
        assert_eq!(folds(&obs, 3), [0, 0, 1, 2]);
        assert_eq!(group_count(&obs), 3);
        // baseline, leave one program out: p's runs from median(4, 8) = 6, q's from
        // median(1, 2, 8) = 2, r's from median(1, 2, 4) = 2 -> |errors| 5, 2, 0.5, 0.75
        let (_, baseline) = cross_predict(&obs, &["startup.constant".to_string()], 3).unwrap();
        assert_eq!(baseline, [6.0, 6.0, 2.0, 2.0]);
        let m = fit(&obs, TraceModel::CMC, &[], 2).unwrap();
        assert_eq!((m.statistics.programs, m.statistics.observations), (3, 4));
        // median of 0.5, 0.75, 2, 5
        assert!((m.statistics.baseline_median_abs_error - 1.375).abs() < 1e-12);
    }

    #[test]
    fn a_term_or_one_feature_can_be_left_out() {
        let without = vec!["gc".to_string(), "warmup.traces".to_string()];
        assert!(
            is_left_out("gc.seconds", &without) && is_left_out("gc.minor_collections", &without)
        );
        assert!(
            is_left_out("warmup.traces", &without) && !is_left_out("warmup.jit_seconds", &without)
        );
        let m = fit_without(&corpus(), TraceModel::CMC, &[], 3, &without).unwrap();
        assert!(m
            .weights
            .keys()
            .all(|f| !f.starts_with("gc.") && f != "warmup.traces"));
        assert!(m.weights.contains_key("warmup.jit_seconds"));
    }

    #[test]
    fn spearman_and_median_error_by_hand() {
        // ranks of x: 1 2 3 4; of y: 1 3 2 4 -> d² = 0+1+1+0 = 2, ρ = 1 − 6·2/(4·15) = 0.8
        assert!((spearman(&[1.0, 2.0, 3.0, 4.0], &[10.0, 30.0, 20.0, 40.0]) - 0.8).abs() < 1e-12);
        // ties: y = 5 5 6 -> ranks 1.5 1.5 3; Pearson with 1 2 3 is 0.866...
        let r = spearman(&[1.0, 2.0, 3.0], &[5.0, 5.0, 6.0]);
        assert!((r - 3f64.sqrt() / 2.0).abs() < 1e-12, "{r}");
        // errors 10 %, 50 %, 20 %: median 20 %
        let e = median_abs_relative_error(&[1.0, 2.0, 5.0], &[1.1, 1.0, 6.0]);
        assert!((e - 0.2).abs() < 1e-12);
    }

    #[test]
    fn a_model_file_round_trips_and_bad_files_are_named() {
        let obs = corpus();
        let saved = SavedModel {
            format: MODEL_FORMAT.into(),
            version: MODEL_VERSION,
            machine: "test".into(),
            clock: "cpu".into(),
            corpus: "synthetic".into(),
            startup_measured: Some(0.04),
            classes: vec!["numeric".into(), "guard".into()],
            models: SavedModel::fit_all(&obs, &["numeric", "guard"], 3, &[]).unwrap(),
            observations: obs,
        };
        let back = SavedModel::parse(&saved.to_json(), Path::new("m.json")).unwrap();
        assert_eq!(back, saved);
        assert_eq!(
            back.models
                .iter()
                .map(|m| m.trace_model)
                .collect::<Vec<_>>(),
            TraceModel::ALL
        );
        let p = &back.observations[0].profile;
        let a = saved.model(TraceModel::CMC).unwrap().predict(p).seconds;
        assert_eq!(back.model(TraceModel::CMC).unwrap().predict(p).seconds, a);
        let bad = |text: &str| {
            SavedModel::parse(text, Path::new("m.json"))
                .unwrap_err()
                .to_string()
        };
        assert!(
            bad("{").contains("m.json: line 1: not JSON"),
            "{}",
            bad("{")
        );
        assert!(bad("{\"format\": \"x\"}").contains("not a metron JIT model"));
        let v2 = saved.to_json().replace("\"version\": 1", "\"version\": 2");
        assert!(bad(&v2).contains("model version Some(2)"), "{}", bad(&v2));
    }
}
