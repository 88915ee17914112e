//! 001 §5.2.2's different-chunks experiment on chunked SumEuler (scripts/jit-chunks), at small
//! chunk sizes, checked against the task's own structure rather than against metron.
//!
//! The oracle counts, by brute force, the iterations of the task's two loops: the generator's
//! `for k in range(1, n + 1)` and gcd's `while b` (Euclid's steps), summed over the numbers of
//! the chunk. Every fragment the JIT compiles for the task lies on one of these loops, so
//! wherever they run compiled (numbers past the warm-up's) the task's Γ is proportional to that
//! count, and the paper's statements follow from it (001 §5.3): chunks at the lower end of the
//! interval give smaller tasks than chunks at the upper end; the irregularity falls as the
//! chunk grows; and parMapChunk's cost derivative 1 (001 §5.1) holds where the work per number
//! is about constant, not for the first chunk, whose numbers grow with it.
//!
//! Timings are never asserted; the costs come from two-run differencing of real pypy3 logs.
//! This file holds one test: it sets SUMEULER_CHUNK for the pypy3 runs it starts, and the
//! environment is per process.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use metron_jit::calibration::Clock;
use metron_jit::cost::Weights;
use metron_jit::op_class::OpClassTable;
use metron_jit::pypy;
use metron_jit::tau::{measure_costs, TaskSpec, TauOptions};

/// `N` of examples/jit/tasks/sumeuler_chunked.py: the interval is [1, N] (001 Table 4).
const N: u64 = 14_000;
const CHUNKS: [&str; 3] = ["first", "middle", "last"];
const TAUS: [u64; 3] = [1, 8, 64];
const MODELS: [&str; 3] = ["CM0", "CMC", "CMW"];

fn task() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/jit/tasks/sumeuler_chunked.py")
}

/// The first number of a chunk of τ numbers, as the task's docstring defines the chunks.
fn first_number(chunk: &str, tau: u64) -> u64 {
    match chunk {
        "first" => 1,
        "middle" => N / 2 - tau / 2,
        "last" => N - tau + 1,
        _ => unreachable!(),
    }
}

/// gcd(a, b) by the task's own loop, and how many times that loop ran.
fn euclid(mut a: u64, mut b: u64) -> (u64, u64) {
    let mut steps = 0;
    while b != 0 {
        (a, b) = (b, a % b);
        steps += 1;
    }
    (a, steps)
}

/// Brute force over the chunk: the iterations of the generator's loop and of gcd's, and the
/// task's result Σ φ(n).
fn oracle(chunk: &str, tau: u64) -> Oracle {
    let first = first_number(chunk, tau);
    let mut o = Oracle::default();
    for n in first..first + tau {
        for k in 1..=n {
            let (d, steps) = euclid(n, k);
            o.iterations += 1 + steps;
            o.totients += u64::from(d == 1);
        }
    }
    o
}

#[derive(Default, Clone, Copy)]
struct Oracle {
    iterations: u64,
    totients: u64,
}

/// The task's printed result, to tie the oracle's chunk to the script's.
fn task_result(tau: u64) -> u64 {
    let out = metron_measure::tool::testing::command("pypy3")
        .arg(task())
        .args(["--tau", &tau.to_string()])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    text.trim()
        .parse()
        .unwrap_or_else(|_| panic!("task printed `{text}`"))
}

type Gammas = BTreeMap<(&'static str, u64), BTreeMap<String, f64>>;

fn measure(opts: &TauOptions) -> Gammas {
    let spec = TaskSpec::from_file(&task()).unwrap();
    let mut gammas = Gammas::new();
    for chunk in CHUNKS {
        std::env::set_var("SUMEULER_CHUNK", chunk);
        assert_eq!(
            task_result(8),
            oracle(chunk, 8).totients,
            "chunk {chunk}: Σφ of τ = 8"
        );
        for tau in TAUS {
            let (gamma, warnings) = measure_costs(&spec, tau, opts, &mut |_| {}).unwrap();
            let lost: Vec<_> = warnings
                .iter()
                .filter(|w| w.contains("counted as 0"))
                .collect();
            assert!(lost.is_empty(), "{chunk} τ={tau}: {lost:?}");
            gammas.insert((chunk, tau), gamma);
        }
    }
    std::env::remove_var("SUMEULER_CHUNK");
    gammas
}

#[test]
fn sumeuler_chunks_follow_the_programs_loop_structure() {
    if metron_measure::tool::testing::require(&pypy::PYPY3).is_none() {
        return;
    }
    let work = tempfile::tempdir().unwrap();
    let opts = TauOptions {
        clock: Clock::Cpu,
        repeat: 1,
        processes: 1,
        budget_seconds: 1.0,
        classes: OpClassTable::default_table(),
        weights: Weights::paper_eq7(),
        workdir: work.path().to_path_buf(),
    };
    let gammas = measure(&opts);
    let g = |chunk, tau, model: &str| gammas[&(chunk, tau)][model];
    let loops: BTreeMap<(&str, u64), f64> = CHUNKS
        .iter()
        .flat_map(|&c| TAUS.map(|t| ((c, t), oracle(c, t).iterations as f64)))
        .collect();
    let w = |chunk, tau| loops[&(chunk, tau)];
    for model in MODELS {
        let mut last_share = 0.0;
        for tau in TAUS {
            // 001 §5.3: chunks at the lower end of the interval give smaller tasks
            let (lo, mid, hi) = (
                g("first", tau, model),
                g("middle", tau, model),
                g("last", tau, model),
            );
            assert!(
                0.0 < lo && lo < mid && mid < hi,
                "{model} τ={tau}: {lo} {mid} {hi}"
            );
            // the middle and last chunks run compiled loops only: Γ in proportion to the work
            let (want, got) = (w("last", tau) / w("middle", tau), hi / mid);
            assert!(
                (got / want - 1.0).abs() < 0.05,
                "{model} τ={tau}: Γ last/middle {got:.4}, loops {want:.4}"
            );
            // 001 §5.3: the irregularity falls as the chunk grows
            let share = lo / hi;
            assert!(
                share > last_share,
                "{model} τ={tau}: Γ first/last {share} after {last_share}"
            );
            last_share = share;
        }
        // 001 §5.1, parMapChunk's cost derivative 1: Γ ∝ τ where the work per number is
        // about constant (the loops' own count says how far from exact), far from it for
        // the first chunk, whose numbers grow with τ
        for chunk in ["middle", "last"] {
            let (want, got) = (
                w(chunk, 64) / w(chunk, 8),
                g(chunk, 64, model) / g(chunk, 8, model),
            );
            assert!(
                (got / want - 1.0).abs() < 0.05,
                "{model} {chunk}: Γ(64)/Γ(8) {got:.3}, loops {want:.3}"
            );
            assert!(
                (got / 8.0 - 1.0).abs() < 0.05,
                "{model} {chunk}: Γ(64)/Γ(8) {got:.3}"
            );
        }
        let first = g("first", 64, model) / g("first", 8, model);
        assert!(
            first > 4.0 * 8.0,
            "{model} first: Γ(64)/Γ(8) = {first:.1}, want ≫ 8"
        );
    }
}
