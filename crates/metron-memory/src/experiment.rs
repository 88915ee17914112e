//! The thesis's experiment (003 Ch. 5) on the bank simulator instead of the Kalray MPPA:
//! each of T threads generates two matrices (`gen`) and multiplies them (`mul`). For every
//! matrix size the accesses of one thread are recorded by the trace runtime; T threads are
//! replayed side by side (each on its own copy of the data, offset in memory) to get t_seq
//! (alone) and t_par (co-running) per function, N_k comes from the static analysis, and the
//! models are trained on T = 3 and tested on T = 2 and 4 (003 §5.2).

use std::path::Path;

use metron_contention::model::{evaluate, fit, Evaluation, Fitted, ModelKind, Sample, Training};
use metron_contention::sim::{
    recorded_stream, simulate_with, Arbitration, Cache, Config, Mapping, Sequential, Stream, Timing,
};
use serde::Serialize;

use crate::trace::{build_traced, read_stream, run_built, SiteTable};
use crate::{Analysis, BranchPolicy, MemoryError};

/// Cycles per IR instruction between two accesses: the recorded instruction index is the
/// thread's clock (one instruction per cycle, the access itself takes the bank latency).
pub const CYCLES_PER_INSTRUCTION: u32 = 1;
/// Threads' copies of the data are this far apart (not a multiple of the bank stride, so
/// that with interleaved banks the threads do not start on the same bank).
pub const THREAD_OFFSET: u64 = (1 << 24) + 24;

/// The recorded accesses with the recorded instruction gaps as compute cycles.
fn timed_stream(records: &[&crate::trace::StreamRecord], offset: u64) -> Stream {
    let mut prev = records.first().map(|r| r.instruction).unwrap_or(0);
    let mut s = recorded_stream(records.iter().map(|r| (r.address + offset, r.write)), 0);
    for (a, r) in s.accesses.iter_mut().zip(records) {
        let gap = r.instruction.saturating_sub(prev).min(u32::MAX as u64) as u32;
        a.gap = gap.saturating_mul(CYCLES_PER_INSTRUCTION);
        prev = r.instruction;
    }
    s
}

/// Perfectly periodic identical threads never collide once out of phase (or always do);
/// real cores are not that regular. Each gap is varied deterministically by up to ±gap/2
/// (mean unchanged), differently per thread.
fn jitter(s: &mut Stream, thread: u64) {
    let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ (thread + 1).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    for a in &mut s.accesses {
        // splitmix64
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let g = a.gap as u64;
        a.gap = (g - g / 2 + z % (2 * (g / 2) + 1)) as u32;
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Setup {
    pub name: String,
    pub config: Config,
    /// How t_seq is taken: alone, or all threads time-sliced on one core (003 §5).
    pub sequential: Sequential,
}

/// The MPPA-like core side (003 Ch. 1): an 8 KiB private data cache (128 lines of 64 bytes,
/// direct-mapped here), write-through; a bank busy 2 cycles per access and 8 more cycles of
/// round trip; t_seq with the T threads time-sliced on one core every 256 accesses, as the
/// thesis mapped them "to the same core to obtain the sequential ETs".
fn mppa_like(banks: u32) -> (Config, Sequential) {
    (
        Config {
            banks,
            mapping: Mapping::Interleaved { unit: 8 },
            latency: 2,
            arbitration: Arbitration::RoundRobin,
            timing: Timing {
                extra_latency: 8,
                cache: Some(Cache {
                    lines: 128,
                    line_bytes: 64,
                    hit_cycles: 1,
                }),
            },
        },
        Sequential::SharedCore { quantum: 256 },
    )
}

pub fn setups() -> Vec<Setup> {
    let (one, seq) = mppa_like(1);
    let (sixteen, _) = mppa_like(16);
    vec![
        Setup {
            name: "MPPA-like, one bank (as 003)".into(),
            config: one,
            sequential: seq,
        },
        Setup {
            name: "MPPA-like, 16 banks".into(),
            config: sixteen,
            sequential: seq,
        },
        Setup {
            name: "one bank, 1-cycle (issue 5)".into(),
            config: Config {
                banks: 1,
                mapping: Mapping::Interleaved { unit: 8 },
                latency: 1,
                arbitration: Arbitration::RoundRobin,
                timing: Default::default(),
            },
            sequential: Sequential::Alone,
        },
        Setup {
            name: "16 banks, word-interleaved".into(),
            config: Config {
                banks: 16,
                mapping: Mapping::Interleaved { unit: 8 },
                latency: 1,
                arbitration: Arbitration::RoundRobin,
                timing: Default::default(),
            },
            sequential: Sequential::Alone,
        },
    ]
}

#[derive(Clone, Debug, Serialize)]
pub struct ModelResult {
    pub fitted: Fitted,
    pub tests: Vec<Evaluation>,
}

#[derive(Clone, Debug, Serialize)]
pub struct FunctionResult {
    pub setup: String,
    pub function: String,
    pub models: Vec<ModelResult>,
    /// Median relative increase Δt/t_seq per thread count.
    pub relative_increase: Vec<(usize, f64)>,
    /// Per thread count: (T, samples with t_par < t_seq, samples) — 003 Fig. 5.2's
    /// "faster in parallel".
    pub faster_in_parallel: Vec<(usize, usize, usize)>,
}

#[derive(Clone, Debug, Serialize)]
pub struct ExperimentResult {
    pub configurations: usize,
    pub results: Vec<FunctionResult>,
    /// (setup, function, T, size label, sample) rows, for CSV export.
    #[serde(skip)]
    pub samples: Vec<(String, String, String, Sample)>,
}

/// Matrix sizes (n, m, p): every combination of `dims`.
pub fn sizes(dims: &[i64]) -> Vec<(i64, i64, i64)> {
    let mut v = Vec::new();
    for &n in dims {
        for &m in dims {
            for &p in dims {
                v.push((n, m, p));
            }
        }
    }
    v
}

/// Runs the experiment on `source` (examples/memory/matrix.c) for the given sizes.
/// `progress` is called after each size.
pub fn run(
    source: &Path,
    sizes: &[(i64, i64, i64)],
    mut progress: impl FnMut(usize),
) -> Result<ExperimentResult, MemoryError> {
    let analysis = Analysis::load(source, crate::frontend::DEFAULT_PIPELINE)?;
    let dir = tempfile::tempdir().map_err(|e| MemoryError::Io {
        file: "temporary directory".into(),
        message: e.to_string(),
    })?;
    let exe = build_traced(&analysis.prepared.ir, &analysis.module, "work", dir.path())?;
    let table = SiteTable::new(&analysis.module);
    let site_fn: Vec<&str> = table.sites.iter().map(|(f, _, _)| f.as_str()).collect();
    let setups = setups();
    let mut samples = Vec::new();
    for (i, &(n, m, p)) in sizes.iter().enumerate() {
        let b = metron_symbolic::binding([("n", n), ("m", m), ("p", p)]);
        let d = run_built(
            &exe,
            &[n.to_string(), m.to_string(), p.to_string()],
            dir.path(),
            true,
        )?;
        let path = d
            .stream
            .as_ref()
            .ok_or_else(|| MemoryError::Run("no access stream".into()))?;
        let recs = read_stream(path)?;
        for function in ["gen", "mul"] {
            let n_k = analysis
                .count(function, &BranchPolicy::Max, &b)?
                .n_k
                .evaluate_integer(&b)?
                .to_string()
                .parse::<f64>()
                .unwrap_or(f64::NAN);
            let mine: Vec<&crate::trace::StreamRecord> = recs
                .iter()
                .filter(|r| site_fn.get(r.site as usize) == Some(&function))
                .collect();
            if mine.len() as f64 != n_k {
                return Err(MemoryError::Run(format!(
                    "{function} {n}x{m}x{p}: the static count {n_k} differs from the {} traced accesses",
                    mine.len()
                )));
            }
            for setup in &setups {
                for threads in [2usize, 3, 4] {
                    let streams: Vec<Stream> = (0..threads as u64)
                        .map(|t| {
                            let mut s = timed_stream(&mine, t * THREAD_OFFSET);
                            jitter(&mut s, t);
                            s
                        })
                        .collect();
                    let r = simulate_with(&setup.config, &streams, setup.sequential)
                        .map_err(|e| MemoryError::Run(e.to_string()))?;
                    for k in 0..threads {
                        samples.push((
                            setup.name.clone(),
                            function.to_string(),
                            format!("{n}x{m}x{p}"),
                            Sample {
                                threads,
                                t_seq: r[k].t_seq as f64,
                                t_par: r[k].t_par as f64,
                                n: n_k,
                                others: (0..threads)
                                    .filter(|&j| j != k)
                                    .map(|j| (n_k, r[j].t_seq as f64))
                                    .collect(),
                                banks: setup.config.banks as f64,
                                label: function.to_string(),
                            },
                        ));
                    }
                }
            }
        }
        progress(i + 1);
    }
    let mut results = Vec::new();
    for setup in &setups {
        for function in ["gen", "mul"] {
            let of = |t: usize| -> Vec<Sample> {
                samples
                    .iter()
                    .filter(|(s, f, _, x)| s == &setup.name && f == function && x.threads == t)
                    .map(|(_, _, _, x)| x.clone())
                    .collect()
            };
            let train = of(3);
            let mut models = Vec::new();
            for kind in ModelKind::all() {
                for training in [Training::Median, Training::LeastSquares] {
                    if kind == ModelKind::Four && training == Training::Median {
                        continue;
                    }
                    let Ok(f) = fit(kind, training, &train) else {
                        continue;
                    };
                    let tests = [2, 4]
                        .iter()
                        .map(|&t| evaluate(kind, &f, &of(t), t))
                        .collect();
                    models.push(ModelResult { fitted: f, tests });
                }
            }
            let relative_increase = [2usize, 3, 4]
                .iter()
                .map(|&t| {
                    let mut r: Vec<f64> = of(t).iter().map(Sample::relative_increase).collect();
                    (
                        t,
                        metron_contention::model::median(&mut r).unwrap_or(f64::NAN),
                    )
                })
                .collect();
            let faster_in_parallel = [2usize, 3, 4]
                .iter()
                .map(|&t| {
                    let set = of(t);
                    (
                        t,
                        set.iter().filter(|x| x.t_par < x.t_seq).count(),
                        set.len(),
                    )
                })
                .collect();
            results.push(FunctionResult {
                setup: setup.name.clone(),
                function: function.into(),
                models,
                relative_increase,
                faster_in_parallel,
            });
        }
    }
    Ok(ExperimentResult {
        configurations: sizes.len(),
        results,
        samples,
    })
}

/// Samples as CSV in the format of `metron contention fit` (one group per setup, function,
/// size and thread count), with each sample's error Δt − Δt^j under models 1-4 as trained on
/// T = 3 (median training; model 4 least squares): the thesis plots samples, not medians.
pub fn samples_csv(r: &ExperimentResult) -> String {
    let mut out =
        String::from("group,setup,function,threads,banks,t_seq,t_par,n,err1,err2,err3,err4\n");
    for (setup, function, size, s) in &r.samples {
        let fr = r
            .results
            .iter()
            .find(|f| &f.setup == setup && &f.function == function);
        let errors: Vec<String> = ModelKind::all()
            .iter()
            .map(|&kind| {
                fr.and_then(|fr| {
                    fr.models.iter().find(|m| {
                        m.fitted.model == kind.number()
                            && (kind == ModelKind::Four || m.fitted.training == Training::Median)
                    })
                })
                .map(|m| format!("{}", s.delta() - m.fitted.predict(kind, s)))
                .unwrap_or_default()
            })
            .collect();
        out.push_str(&format!(
            "{function}-{size}-T{}-B{},{},{function},{},{},{},{},{},{}\n",
            s.threads,
            s.banks,
            setup.replace(',', ";"),
            s.threads,
            s.banks,
            s.t_seq,
            s.t_par,
            s.n,
            errors.join(",")
        ));
    }
    out
}
