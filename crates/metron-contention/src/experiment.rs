//! The thesis's experiment (003 Ch. 5) on the bank simulator instead of the Kalray MPPA, from
//! recorded access streams: for each matrix size and function (`gen`, `mul`) the accesses of
//! one thread, T = 2, 3, 4 copies of it replayed side by side (each on its own copy of the
//! data, offset in memory) give t_seq and t_par per thread; the models are trained on T = 3
//! and tested on T = 2 and 4 (003 §5.2). Tracing the program is the caller's business
//! (`metron contention experiment` uses metron-memory's trace runtime), so this module
//! needs nothing but the records.

use serde::Serialize;

use crate::model::{evaluate, fit, median, Evaluation, Fitted, ModelKind, Sample, Training};
use crate::sim::{
    simulate_buffered, Access, Arbitration, Cache, Config, Mapping, Sequential, Stream, Timing,
};
use crate::ContentionError;

/// One recorded access of a thread.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    pub address: u64,
    pub write: bool,
    /// IR instructions executed before this access (the thread's clock).
    pub instruction: u64,
}

/// One function's accesses at one matrix size.
#[derive(Clone, Debug)]
pub struct Recorded {
    /// "n x m x p".
    pub size: String,
    pub function: String,
    /// N_k from the static analysis (the caller checks it against the records).
    pub n_k: f64,
    pub records: Vec<Record>,
}

/// Threads' copies of the data are this far apart (not a multiple of the bank stride, so
/// that with interleaved banks the threads do not start on the same bank).
pub const THREAD_OFFSET: u64 = (1 << 24) + 24;

/// A simulated machine.
#[derive(Clone, Debug, Serialize)]
pub struct Setup {
    pub name: String,
    pub config: Config,
    /// How t_seq is taken: alone, or all threads time-sliced on one core (003 §5.1).
    pub sequential: Sequential,
    /// Posted writes per core (0: a write blocks its core like a read).
    pub write_buffer: u32,
    /// IR instructions a core retires per cycle (the MPPA's k1 is a 5-issue VLIW); compute
    /// gaps are recorded instruction counts divided by this, rounded up.
    pub instructions_per_cycle: u32,
}

/// The MPPA-like core side (003 Ch. 1): an 8 KiB private data cache (128 lines of 64 bytes,
/// direct-mapped here), write-through; a bank busy 2 cycles per access and 8 more cycles of
/// round trip; t_seq with the T threads time-sliced on one core every 256 accesses, as the
/// thesis mapped them "to the same core to obtain the sequential ETs".
fn mppa_cached(banks: u32) -> Config {
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
    }
}

/// One bank busy `latency` cycles per access, no round trip, an 8-entry write buffer, the
/// 8 KiB cache, two IR instructions per cycle, t_seq time-sliced on one core as in 003 §5.1:
/// the setup of the T = 2 regime (see [`regime_setups`]).
pub fn posted(latency: u32) -> Setup {
    Setup {
        name: format!("posted writes, one bank, busy {latency}"),
        config: Config {
            banks: 1,
            mapping: Mapping::Interleaved { unit: 8 },
            latency,
            arbitration: Arbitration::RoundRobin,
            timing: Timing {
                extra_latency: 0,
                cache: Some(Cache {
                    lines: 128,
                    line_bytes: 64,
                    hit_cycles: 1,
                }),
            },
        },
        sequential: Sequential::SharedCore { quantum: 256 },
        write_buffer: 8,
        instructions_per_cycle: 2,
    }
}

fn plain(name: &str, banks: u32) -> Setup {
    Setup {
        name: name.into(),
        config: Config {
            banks,
            mapping: Mapping::Interleaved { unit: 8 },
            latency: 1,
            arbitration: Arbitration::RoundRobin,
            timing: Default::default(),
        },
        sequential: Sequential::Alone,
        write_buffer: 0,
        instructions_per_cycle: 1,
    }
}

/// The setups of `metron contention experiment`.
pub fn setups() -> Vec<Setup> {
    let cached = |name: &str, banks| Setup {
        name: name.into(),
        config: mppa_cached(banks),
        sequential: Sequential::SharedCore { quantum: 256 },
        write_buffer: 0,
        instructions_per_cycle: 1,
    };
    vec![
        cached("MPPA-like, one bank (as 003)", 1),
        cached("MPPA-like, 16 banks", 16),
        posted(3),
        plain("one bank, 1-cycle (issue 5)", 1),
        plain("16 banks, word-interleaved", 16),
    ]
}

/// The bank busy time swept to show where the T = 2 regime appears (posted writes).
pub fn regime_setups() -> Vec<Setup> {
    (1..=6).map(posted).collect()
}

/// The recorded accesses with the recorded instruction gaps as compute cycles.
fn timed_stream(records: &[Record], offset: u64, per_cycle: u32) -> Stream {
    let mut prev = records.first().map(|r| r.instruction).unwrap_or(0);
    let per_cycle = per_cycle.max(1) as u64;
    let accesses = records
        .iter()
        .map(|r| {
            let gap = r.instruction.saturating_sub(prev).div_ceil(per_cycle);
            prev = r.instruction;
            Access {
                gap: gap.min(u32::MAX as u64) as u32,
                addr: r.address + offset,
                write: r.write,
            }
        })
        .collect();
    Stream { accesses, tail: 0 }
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

/// One simulated thread.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub setup: String,
    pub function: String,
    pub size: String,
    pub sample: Sample,
}

/// The samples of `recorded` on `setup` with `threads` threads (one per thread).
pub fn simulate_recorded(
    recorded: &Recorded,
    setup: &Setup,
    threads: usize,
) -> Result<Vec<Row>, ContentionError> {
    let streams: Vec<Stream> = (0..threads as u64)
        .map(|t| {
            let mut s = timed_stream(
                &recorded.records,
                t * THREAD_OFFSET,
                setup.instructions_per_cycle,
            );
            jitter(&mut s, t);
            s
        })
        .collect();
    let r = simulate_buffered(
        &setup.config,
        setup.write_buffer,
        &streams,
        setup.sequential,
    )?;
    Ok((0..threads)
        .map(|k| Row {
            setup: setup.name.clone(),
            function: recorded.function.clone(),
            size: recorded.size.clone(),
            sample: Sample {
                threads,
                t_seq: r[k].t_seq as f64,
                t_par: r[k].t_par as f64,
                n: recorded.n_k,
                others: (0..threads)
                    .filter(|&j| j != k)
                    .map(|j| (recorded.n_k, r[j].t_seq as f64))
                    .collect(),
                banks: setup.config.banks as f64,
                label: recorded.function.clone(),
            },
        })
        .collect())
}

#[derive(Clone, Debug, Serialize)]
pub struct ModelResult {
    pub fitted: Fitted,
    /// The model on its own training samples (T = 3): the thesis plots train and test errors.
    pub train: Evaluation,
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

/// Trains every model on T = 3 (median training, and least squares) and tests on T = 2 and
/// 4 (003 §5.2), per setup and function.
pub fn summarize(rows: &[Row], setups: &[Setup]) -> Vec<FunctionResult> {
    let mut results = Vec::new();
    for setup in setups {
        for function in ["gen", "mul"] {
            let of = |t: usize| -> Vec<Sample> {
                rows.iter()
                    .filter(|r| {
                        r.setup == setup.name && r.function == function && r.sample.threads == t
                    })
                    .map(|r| r.sample.clone())
                    .collect()
            };
            if of(3).is_empty() {
                continue;
            }
            results.push(FunctionResult {
                setup: setup.name.clone(),
                function: function.into(),
                models: fit_models(&of(3), &of),
                relative_increase: [2usize, 3, 4]
                    .iter()
                    .map(|&t| {
                        let mut r: Vec<f64> = of(t).iter().map(Sample::relative_increase).collect();
                        (t, median(&mut r).unwrap_or(f64::NAN))
                    })
                    .collect(),
                faster_in_parallel: [2usize, 3, 4]
                    .iter()
                    .map(|&t| {
                        let set = of(t);
                        (
                            t,
                            set.iter().filter(|x| x.t_par < x.t_seq).count(),
                            set.len(),
                        )
                    })
                    .collect(),
            });
        }
    }
    results
}

fn fit_models(train: &[Sample], of: &dyn Fn(usize) -> Vec<Sample>) -> Vec<ModelResult> {
    let mut models = Vec::new();
    for kind in ModelKind::all() {
        for training in [Training::Median, Training::LeastSquares] {
            if kind == ModelKind::Four && training == Training::Median {
                continue;
            }
            let Ok(f) = fit(kind, training, train) else {
                continue;
            };
            let tests = [2, 4]
                .iter()
                .map(|&t| evaluate(kind, &f, &of(t), t))
                .collect();
            let train = evaluate(kind, &f, train, 3);
            models.push(ModelResult {
                fitted: f,
                train,
                tests,
            });
        }
    }
    models
}

/// Samples as CSV in the format of `metron contention fit` (one group per setup, function,
/// size and thread count), with each sample's error Δt − Δt^j under models 1-4 as trained on
/// T = 3 (median training; model 4 least squares): the thesis plots samples, not medians.
pub fn samples_csv(rows: &[Row], results: &[FunctionResult]) -> String {
    let mut out =
        String::from("group,setup,function,threads,banks,t_seq,t_par,n,err1,err2,err3,err4\n");
    for r in rows {
        let s = &r.sample;
        let fr = results
            .iter()
            .find(|f| f.setup == r.setup && f.function == r.function);
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
            "{}-{}-T{}-B{},{},{},{},{},{},{},{},{}\n",
            r.function,
            r.size,
            s.threads,
            s.banks,
            r.setup.replace(',', ";"),
            r.function,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gaps_are_instruction_counts_over_the_issue_width() {
        let rec = |instruction| Record {
            address: 0,
            write: true,
            instruction,
        };
        let s = timed_stream(&[rec(5), rec(12), rec(13), rec(13)], 8, 2);
        let gaps: Vec<u32> = s.accesses.iter().map(|a| a.gap).collect();
        // 0, 7 -> 4 (rounded up), 1 -> 1, 0
        assert_eq!(gaps, [0, 4, 1, 0]);
        assert!(s.accesses.iter().all(|a| a.addr == 8));
    }

    #[test]
    fn jitter_keeps_gaps_within_half() {
        let mut s = Stream {
            accesses: vec![
                Access {
                    gap: 10,
                    addr: 0,
                    write: false
                };
                1000
            ],
            tail: 0,
        };
        jitter(&mut s, 1);
        assert!(s.accesses.iter().all(|a| (5..=15).contains(&a.gap)));
        let mean = s.accesses.iter().map(|a| a.gap as f64).sum::<f64>() / 1000.0;
        assert!((mean - 10.0).abs() < 0.5, "{mean}");
    }
}

#[cfg(test)]
mod regime_tests {
    use super::*;

    /// A `gen`-like thread in the style of examples/memory/matrix.c: one store every 13 or 14
    /// IR instructions (an LCG step and a conversion between stores), to consecutive
    /// doubles.
    fn gen_like(n: u64) -> Recorded {
        Recorded {
            size: format!("{n}"),
            function: "gen".into(),
            n_k: n as f64,
            records: (0..n)
                .map(|i| Record {
                    address: 4096 + 8 * i,
                    write: true,
                    instruction: 13 * i + i / 2,
                })
                .collect(),
        }
    }

    fn increase(setup: &Setup, threads: usize) -> f64 {
        let rows = simulate_recorded(&gen_like(400), setup, threads).unwrap();
        let mut v: Vec<f64> = rows.iter().map(|r| r.sample.relative_increase()).collect();
        median(&mut v).unwrap()
    }

    /// 003 Fig. 5.1's T = 2 regime: with posted writes, a bank busy 3 cycles and stores
    /// every ~6.75 cycles (2 IR instructions per cycle), two threads ask 6 of every 6.75
    /// cycles of the bank: the buffers absorb the collisions. Three ask 9: the bank is
    /// saturated and every thread slows to its share, t_par ≈ T·3·N against t_seq ≈ 6.75 N,
    /// i.e. +33% at T = 3 and +78% at T = 4 (less where the jitter spreads the stores).
    #[test]
    fn posted_writes_give_a_t2_regime() {
        let s = posted(3);
        let (t2, t3, t4) = (increase(&s, 2), increase(&s, 3), increase(&s, 4));
        assert!(t2 < 0.005, "T = 2: {t2}");
        assert!((0.15..0.40).contains(&t3), "T = 3: {t3}");
        assert!((0.45..0.85).contains(&t4), "T = 4: {t4}");
        // Without the write buffer every collision stalls: no regime, the increase per
        // other thread is about the same at T = 2 as at T = 3.
        let blocking = Setup {
            write_buffer: 0,
            ..posted(3)
        };
        let (b2, b3) = (increase(&blocking, 2), increase(&blocking, 3));
        assert!(b2 > 0.01, "blocking T = 2: {b2}");
        assert!(b3 / 2.0 < 3.0 * b2, "blocking: {b2} {b3}");
    }
}
