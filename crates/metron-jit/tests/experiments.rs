//! The experiments that run pypy3: a corpus calibration on a tiny subset of the corpus, and a
//! k(τ) point of a task function. Timings are never asserted (shared noisy machine); the checks
//! are structure, differencing against the task's known loop bounds, and the arithmetic of k.
//! Skips, saying why, when pypy3 is not installed.

use std::path::{Path, PathBuf};

use metron_jit::calibration::{
    corpus_programs, fit_models, measure_program, startup_seconds, Clock, CorpusOptions,
};
use metron_jit::cost::{analyze, CostModel, Weights};
use metron_jit::difference::task_cost;
use metron_jit::log::parse_file;
use metron_jit::op_class::OpClassTable;
use metron_jit::pypy;
use metron_jit::tau::{measure_point, TaskSpec, TauExperiment, TauOptions};

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/jit")
}

/// pypy3, or a visible skip (a failure under CI: metron_measure::tool::testing).
fn have_pypy() -> bool {
    metron_measure::tool::testing::require(&pypy::PYPY3).is_some()
}

#[test]
fn corpus_calibration_on_three_programs() {
    if !have_pypy() {
        return;
    }
    let corpus = tempfile::tempdir().unwrap();
    for name in ["01_int_sum.py", "14_alloc_tuples.py", "07_object_attrs.py"] {
        std::fs::copy(
            examples().join("corpus").join(name),
            corpus.path().join(name),
        )
        .unwrap();
    }
    // a helper module is not a program
    std::fs::write(corpus.path().join("_helper.py"), "X = 1\n").unwrap();
    let work = tempfile::tempdir().unwrap();
    let opts = CorpusOptions {
        clock: Clock::Cpu,
        scale: 0.01,
        warmup: 0,
        runs: 2,
        workdir: work.path().to_path_buf(),
    };
    let programs = corpus_programs(corpus.path()).unwrap();
    assert_eq!(programs.len(), 3);
    let mut runs = 0;
    let startup = startup_seconds(&opts, &mut || runs += 1).unwrap();
    assert_eq!(runs, 2);
    assert_eq!(startup.n, 2);
    let classes = OpClassTable::default_table();
    let mut measured = Vec::new();
    for p in &programs {
        let mut runs = 0;
        let m = measure_program(p, &opts, startup.mean, &classes, &mut || runs += 1).unwrap();
        // two timed runs, then one counting run
        assert_eq!((runs, m.runs.len()), (3, 2));
        assert_eq!(m.time.n, 2);
        assert!(m.seconds >= 0.0);
        assert!(work.path().join(format!("{}.log", m.program)).is_file());
        // CMC's Γ is the executed operations outside debug and control, counted independently
        let ops: u64 = m
            .executed_ops
            .iter()
            .filter(|(c, _)| c.as_str() != "debug" && c.as_str() != "control")
            .map(|(_, n)| *n)
            .sum();
        assert_eq!(m.gamma_cmc, ops as f64, "{}", m.program);
        assert!(m.gamma_cm0 > 0.0 && m.gamma_cm0 < m.gamma_cmc);
        measured.push(m);
    }
    assert_eq!(measured[0].program, "01_int_sum");
    let cal = fit_models(
        &measured,
        &["numeric", "guard", "alloc", "object"],
        3,
        startup.mean,
    )
    .unwrap();
    assert_eq!(cal.fits.len(), 3);
    for f in &cal.fits {
        assert_eq!(f.fit.programs.len(), 3);
        assert!(
            f.fit.weights.values().all(|w| *w >= 0.0),
            "{}: NNLS",
            f.model
        );
        // the fitted values are the weights applied to the features, by hand
        for (p, m) in f.fit.programs.iter().zip(&measured) {
            let by_hand: f64 = if f.model == "CMW" {
                f.fit
                    .weights
                    .iter()
                    .map(|(c, w)| w * *m.executed_ops.get(c).unwrap_or(&0) as f64)
                    .sum()
            } else {
                let g = if f.model == "CMC" {
                    m.gamma_cmc
                } else {
                    m.gamma_cm0
                };
                f.fit.weights["gamma"] * g.round()
            };
            assert!((p.predicted - by_hand).abs() <= 1e-9 * by_hand.abs().max(1e-9));
            assert!((p.residual - (m.seconds - p.predicted)).abs() < 1e-12);
        }
    }

    // Stored per machine (001 §4.3): one benchmark per program with its timed runs, and the
    // fitted weights in the experiment's config, read back through the store alone.
    let dir = tempfile::tempdir().unwrap();
    let mut store = metron_store::Store::open(&dir.path().join("m.db")).unwrap();
    let env = metron_measure::environment::Environment::capture(dir.path());
    let id = metron_jit::calibration::record_in_store(&cal, &env, &examples(), &mut store).unwrap();
    let row = store.experiment(id).unwrap();
    assert_eq!(row.kind, metron_jit::calibration::STORE_KIND);
    assert_eq!(row.status, "complete");
    let benches = store.benchmarks(id).unwrap();
    assert_eq!(benches.len(), measured.len());
    let runs = store.runs(id).unwrap();
    assert_eq!(
        runs.len(),
        measured.iter().map(|m| m.runs.len()).sum::<usize>()
    );
    let first_wall = runs[0]
        .samples
        .iter()
        .find(|s| s.metric == "wall-time")
        .unwrap();
    assert_eq!(first_wall.value, measured[0].runs[0].wall);
    let stored_cmw = row.config["fits"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["model"] == "CMW")
        .unwrap();
    for (class, w) in &cal.cmw().unwrap().fit.weights {
        assert_eq!(stored_cmw["fit"]["weights"][class].as_f64().unwrap(), *w);
    }
}

#[test]
fn tau_points_difference_the_task_and_divide_time_by_cost() {
    if !have_pypy() {
        return;
    }
    let spec = TaskSpec::from_file(&examples().join("tasks/matmul_chunked.py")).unwrap();
    let work = tempfile::tempdir().unwrap();
    let opts = TauOptions {
        clock: Clock::Cpu,
        repeat: 2,
        processes: 1,
        budget_seconds: 1.0,
        classes: OpClassTable::default_table(),
        weights: Weights::paper_eq7(),
        workdir: work.path().to_path_buf(),
    };
    let mut points = Vec::new();
    for tau in [1u64, 3] {
        let mut steps = Vec::new();
        let p = measure_point(&spec, tau, &opts, |s| steps.push(s.to_string())).unwrap();
        assert_eq!(steps.len(), 3, "{steps:?}");
        assert_eq!(p.times.len(), 2);
        assert_eq!(p.times[0], p.runs[0].cpu);
        assert_eq!(p.time.n, 2);
        assert_eq!(
            p.gamma.keys().map(String::as_str).collect::<Vec<_>>(),
            ["CM0", "CMC", "CMW"]
        );
        for (m, g) in &p.gamma {
            assert!(*g > 0.0, "{m}");
            assert_eq!(p.k[m], p.time.median / g);
        }
        // differencing against the script's loop bounds: a task of τ rows runs the innermost
        // loop τ·N·N times (N = 300); the warm-up compiled it, so nearly all are counted
        let classes = OpClassTable::default_table();
        let warm = parse_file(
            &work
                .path()
                .join(format!("matmul_chunked-tau{tau}-warmup.log")),
        )
        .unwrap();
        let full = parse_file(
            &work
                .path()
                .join(format!("matmul_chunked-tau{tau}-full.log")),
        )
        .unwrap();
        let task = task_cost(
            &analyze(&warm, &classes, &CostModel::Cmc),
            &analyze(&full, &classes, &CostModel::Cmc),
        );
        assert_eq!(task.gamma, p.gamma["CMC"]);
        let body = task.shapes[0].task_frequency as f64;
        let want = (tau * 300 * 300) as f64;
        assert!(
            body <= want && body >= 0.95 * want,
            "τ={tau}: {body} vs {want}"
        );
        points.push(p);
    }
    // the chunked cost derivative: three rows cost about three times one row, under every model
    for m in ["CM0", "CMC", "CMW"] {
        let r = points[1].gamma[m] / points[0].gamma[m];
        assert!((2.8..=3.2).contains(&r), "{m}: {r}");
    }
    let exp = TauExperiment::new(&spec, points, 0.25);
    assert_eq!(exp.table5.len(), 3);
    let csv = exp.csv();
    assert_eq!(csv.lines().count(), 1 + 2 * 3);
    assert!(csv
        .lines()
        .nth(1)
        .unwrap()
        .starts_with("matmul_chunked,parMapChunk,1,CM0,"));
}
