//! `metron contention`: the access-conflict models of 003 (Eqs. 4.1-4.3, and model 4), the
//! cycle-level bank simulator, and the thesis's experiment (003 Ch. 5) on the simulator.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use metron_contention::data::parse_samples;
use metron_contention::experiment::{self, FunctionResult, Record, Recorded};
use metron_contention::model::{evaluate, fit, ModelKind, Training};
use metron_contention::sim::{
    bernoulli_stream, phased_stream, recorded_stream, simulate_buffered, AddressPattern,
    Arbitration, Cache, Config, Mapping, Sequential, Stream, Timing,
};

use crate::error::{CliError, CliResult};
use crate::GlobalOpts;

#[derive(Args, Debug)]
pub struct ContentionArgs {
    #[command(subcommand)]
    pub command: ContentionCommand,
}

#[derive(Subcommand, Debug)]
pub enum ContentionCommand {
    /// Run C cores against B banks; print t_seq, t_par, conflicts and stalls per core.
    #[command(after_help = "Examples:\n  \
        metron contention simulate --cores 4 --banks 1 --p 0.05\n  \
        metron contention simulate --cores 2 --traffic phased --banks 16 --mapping line\n  \
        metron contention simulate --stream a.bin --stream b.bin   (from metron memory trace --stream)")]
    Simulate(SimulateArgs),
    /// Train a model on T = --train threads, test on the others (003 §5.2).
    #[command(
        after_help = "DATA is CSV with columns group,t_seq,t_par,n [,threads,banks,function];\n\
        rows with the same group ran together."
    )]
    Fit(FitArgs),
    /// The thesis's experiment (003 Ch. 5) on the simulator: matrix generation and
    /// multiplication, 2-4 threads, 729 sizes, one bank and 16 banks.
    Experiment(ExperimentArgs),
}

#[derive(Args, Debug)]
pub struct SimArch {
    /// Memory banks.
    #[arg(long, default_value_t = 1)]
    pub banks: u32,
    /// Address-to-bank mapping: word (8-byte interleave), line (64-byte interleave), blocked.
    #[arg(long, default_value = "word")]
    pub mapping: String,
    /// Cycles a bank is busy per access.
    #[arg(long, default_value_t = 1)]
    pub latency: u32,
    /// round-robin, fixed-priority or fifo.
    #[arg(long, default_value = "round-robin")]
    pub arbitration: String,
    /// Cycles a core waits after its access is served (round trip; the bank is free).
    #[arg(long, default_value_t = 0)]
    pub extra_latency: u32,
    /// A private direct-mapped cache per core with this many lines (0: none).
    #[arg(long, default_value_t = 0)]
    pub cache_lines: u32,
    /// Bytes per cache line.
    #[arg(long, default_value_t = 64)]
    pub line_bytes: u32,
    /// Cycles of a cache hit.
    #[arg(long, default_value_t = 1)]
    pub hit_cycles: u32,
}

impl SimArch {
    fn config(&self) -> CliResult<Config> {
        let mapping = match self.mapping.as_str() {
            "word" => Mapping::Interleaved { unit: 8 },
            "line" => Mapping::Interleaved { unit: 64 },
            "blocked" => Mapping::Blocked { size: 1 << 20 },
            o => {
                return Err(CliError::input(format!(
                    "--mapping: expected word, line or blocked, found `{o}`"
                )))
            }
        };
        let c = Config {
            banks: self.banks,
            mapping,
            latency: self.latency,
            arbitration: self
                .arbitration
                .parse::<Arbitration>()
                .map_err(|e| CliError::input(format!("--arbitration: {e}")))?,
            timing: Timing {
                extra_latency: self.extra_latency,
                cache: (self.cache_lines > 0).then_some(Cache {
                    lines: self.cache_lines,
                    line_bytes: self.line_bytes,
                    hit_cycles: self.hit_cycles,
                }),
            },
        };
        c.validate().map_err(CliError::input)?;
        Ok(c)
    }
}

#[derive(Args, Debug)]
pub struct SimulateArgs {
    #[command(flatten)]
    pub arch: SimArch,
    /// Cores (ignored with --stream: one core per stream).
    #[arg(long, default_value_t = 2)]
    pub cores: usize,
    /// bernoulli or phased.
    #[arg(long, default_value = "bernoulli")]
    pub traffic: String,
    /// Access probability per compute cycle (phased: in the busy phase).
    #[arg(long, default_value_t = 0.05)]
    pub p: f64,
    /// Accesses per core.
    #[arg(long, default_value_t = 100_000)]
    pub accesses: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Access streams recorded by `metron memory trace --stream`, one core each.
    #[arg(long, value_name = "FILE")]
    pub stream: Vec<PathBuf>,
    /// With --stream: compute cycles before each recorded access.
    #[arg(long, default_value_t = 2)]
    pub gap: u32,
    /// t_seq: each thread alone, or all threads time-sliced on one core every N accesses
    /// (003 §5.1's sequential runs): `alone` or `shared-core:N`.
    #[arg(long, default_value = "alone")]
    pub sequential: String,
    /// Writes posted to a buffer of this many entries per core (0: a write blocks the core).
    #[arg(long, default_value_t = 0)]
    pub write_buffer: u32,
}

#[derive(Args, Debug)]
pub struct FitArgs {
    pub data: PathBuf,
    /// 1, 2, 3 (003 Eqs. 4.1-4.3) or 4; repeatable, default all.
    #[arg(long, short = 'm')]
    pub model: Vec<String>,
    /// median (003 §5.2.1) or lsq (least squares through the origin).
    #[arg(long, default_value = "median")]
    pub training: String,
    /// Thread count of the training set.
    #[arg(long, default_value_t = 3)]
    pub train: usize,
    /// Only rows of this function (the `function` column).
    #[arg(long)]
    pub function: Option<String>,
    /// Only rows with this bank count (the `banks` column).
    #[arg(long)]
    pub banks: Option<f64>,
}

#[derive(Args, Debug)]
pub struct ExperimentArgs {
    /// Write all samples as CSV (the `fit` format) here.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Fewer sizes (64), for a quick look.
    #[arg(long)]
    pub small: bool,
    /// The program to trace [default: the bundled examples/memory/matrix.c].
    #[arg(long)]
    pub source: Option<PathBuf>,
    /// Also sweep the bank busy time with posted writes (where the T = 2 regime appears).
    #[arg(long)]
    pub regime: bool,
}

pub fn run(args: ContentionArgs, global: &GlobalOpts) -> CliResult {
    match args.command {
        ContentionCommand::Simulate(a) => run_simulate(a, global),
        ContentionCommand::Fit(a) => run_fit(a, global),
        ContentionCommand::Experiment(a) => run_experiment(a, global),
    }
}

fn run_simulate(a: SimulateArgs, global: &GlobalOpts) -> CliResult {
    let config = a.arch.config()?;
    if a.stream.is_empty() && a.cores == 0 {
        return Err(CliError::input(
            "--cores 0: at least one core is needed (the thesis's cluster has 16)",
        ));
    }
    if a.stream.is_empty() && a.accesses == 0 {
        return Err(CliError::input(
            "--accesses 0: each core needs at least one access to simulate",
        ));
    }
    if !(0.0..=1.0).contains(&a.p) || a.p == 0.0 {
        return Err(CliError::input(format!(
            "--p must be in (0, 1], found {}",
            a.p
        )));
    }
    let pattern = AddressPattern::Uniform {
        base: 0,
        bytes: 1 << 20,
    };
    let streams: Vec<Stream> = if !a.stream.is_empty() {
        let mut v = Vec::new();
        for path in &a.stream {
            let recs = metron_memory::trace::read_stream(path).map_err(CliError::input)?;
            v.push(recorded_stream(
                recs.iter().map(|r| (r.address, r.write)),
                a.gap,
            ));
        }
        v
    } else {
        (0..a.cores as u64)
            .map(|k| match a.traffic.as_str() {
                "phased" => Ok(phased_stream(
                    a.accesses,
                    a.p,
                    a.p / 10.0,
                    1000,
                    pattern,
                    a.seed * 1000 + k,
                )),
                "bernoulli" => Ok(bernoulli_stream(
                    a.accesses,
                    a.p,
                    pattern,
                    a.seed * 1000 + k,
                )),
                o => Err(CliError::input(format!(
                    "--traffic: expected bernoulli or phased, found `{o}`"
                ))),
            })
            .collect::<CliResult<_>>()?
    };
    let sequential = match a.sequential.as_str() {
        "alone" => Sequential::Alone,
        o => match o
            .strip_prefix("shared-core:")
            .and_then(|q| q.parse::<u32>().ok())
        {
            Some(quantum) if quantum > 0 => Sequential::SharedCore { quantum },
            _ => {
                return Err(CliError::input(format!(
                    "--sequential: expected alone or shared-core:N (N > 0 accesses), found `{o}`"
                )))
            }
        },
    };
    let r = simulate_buffered(&config, a.write_buffer, &streams, sequential)
        .map_err(CliError::input)?;
    // Model 3's prediction with c3 = the measured stall per conflict of this run.
    if global.json {
        let v = serde_json::json!({"config": config, "cores": r});
        println!(
            "{}",
            serde_json::to_string_pretty(&v).map_err(CliError::failure)?
        );
        return Ok(());
    }
    println!(
        "{} cores, {} bank(s), mapping {}, latency {}, {}",
        streams.len(),
        config.banks,
        a.arch.mapping,
        config.latency,
        a.arch.arbitration
    );
    println!(
        "{:>4} {:>10} {:>12} {:>12} {:>10} {:>10} {:>12} {:>9}",
        "core", "accesses", "t_seq", "t_par", "increase", "conflicts", "stall", "stall/c"
    );
    for (k, c) in r.iter().enumerate() {
        println!(
            "{:>4} {:>10} {:>12} {:>12} {:>9.2}% {:>10} {:>12} {:>9.3}",
            k,
            c.accesses,
            c.t_seq,
            c.t_par,
            100.0 * (c.t_par as f64 - c.t_seq as f64) / c.t_seq.max(1) as f64,
            c.conflicts,
            c.stall_cycles,
            c.stall_cycles as f64 / c.conflicts.max(1) as f64
        );
    }
    Ok(())
}

fn run_fit(a: FitArgs, global: &GlobalOpts) -> CliResult {
    let text = std::fs::read_to_string(&a.data)
        .map_err(|e| CliError::input(format!("{}: {e}", a.data.display())))?;
    let mut samples =
        parse_samples(&text, &a.data.display().to_string()).map_err(CliError::input)?;
    samples.retain(|s| {
        a.function.as_ref().is_none_or(|f| &s.label == f) && a.banks.is_none_or(|b| s.banks == b)
    });
    let training = match a.training.as_str() {
        "median" => Training::Median,
        "lsq" => Training::LeastSquares,
        o => {
            return Err(CliError::input(format!(
                "--training: expected median or lsq, found `{o}`"
            )))
        }
    };
    let kinds: Vec<ModelKind> = if a.model.is_empty() {
        ModelKind::all().to_vec()
    } else {
        a.model
            .iter()
            .map(|m| ModelKind::parse(m))
            .collect::<Result<_, _>>()
            .map_err(CliError::input)?
    };
    let train: Vec<_> = samples
        .iter()
        .filter(|s| s.threads == a.train)
        .cloned()
        .collect();
    if train.is_empty() {
        return Err(CliError::input(format!(
            "{}: no rows with {} threads to train on",
            a.data.display(),
            a.train
        )));
    }
    let mut tests: Vec<usize> = samples
        .iter()
        .map(|s| s.threads)
        .filter(|&t| t != a.train && t > 1)
        .collect();
    tests.sort();
    tests.dedup();
    let mut out = Vec::new();
    for k in kinds {
        let f = fit(k, training, &train).map_err(CliError::failure)?;
        let evals: Vec<_> = tests
            .iter()
            .map(|&t| {
                let set: Vec<_> = samples.iter().filter(|s| s.threads == t).cloned().collect();
                evaluate(k, &f, &set, t)
            })
            .collect();
        let trained = evaluate(k, &f, &train, a.train);
        out.push((f, evals, trained));
    }
    if global.json {
        // The model, its errors on the training thread count and on each test thread count.
        let v: Vec<_> = out
            .iter()
            .map(|(f, tests, train)| serde_json::json!({"fit": f, "train": train, "tests": tests}))
            .collect();
        println!(
            "{}",
            serde_json::to_string_pretty(&v).map_err(CliError::failure)?
        );
        return Ok(());
    }
    println!(
        "trained on T = {} ({} samples), training: {}",
        a.train,
        train.len(),
        a.training
    );
    println!(
        "{:>5} {:>12} {:>10} {:>3} {:>7} {:>14} {:>14} {:>12}",
        "model", "coefficient", "intercept", "T", "n", "med |err|", "med err", "med |err|/t"
    );
    for (f, evals, _) in &out {
        for e in evals {
            println!(
                "{:>5} {:>12.5e} {:>10.3} {:>3} {:>7} {:>14.2} {:>14.2} {:>11.3}%",
                f.model,
                f.coefficient,
                f.intercept,
                e.threads,
                e.samples,
                e.median_abs_error,
                e.median_error,
                100.0 * e.median_abs_error_relative
            );
        }
    }
    Ok(())
}

/// The bundled copy of the experiment's program, used when no --source is given.
const MATRIX_C: &str = include_str!("../../../../examples/memory/matrix.c");

/// Traces `work` of the experiment's program once per size and returns, per size, the
/// recorded accesses of `gen` and `mul` with their static N_k (which must equal the traced
/// count: the experiment stops if it ever does not).
fn trace_sizes(
    source: &std::path::Path,
    sizes: &[(i64, i64, i64)],
    workdir: &std::path::Path,
    mut progress: impl FnMut(usize),
) -> Result<Vec<Recorded>, metron_memory::MemoryError> {
    use metron_memory::trace::{build_traced, read_stream, run_built, SiteTable};
    use metron_memory::{Analysis, BranchPolicy, MemoryError};
    let analysis = Analysis::load(source, metron_memory::frontend::DEFAULT_PIPELINE)?;
    let exe = build_traced(&analysis.prepared.ir, &analysis.module, "work", workdir)?;
    let table = SiteTable::new(&analysis.module);
    let site_fn: Vec<&str> = table.sites.iter().map(|(f, _, _)| f.as_str()).collect();
    let mut out = Vec::new();
    for (i, &(n, m, p)) in sizes.iter().enumerate() {
        let b = metron_symbolic::binding([("n", n), ("m", m), ("p", p)]);
        let args = [n.to_string(), m.to_string(), p.to_string()];
        let d = run_built(&exe, &args, workdir, true)?;
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
            let records: Vec<Record> = recs
                .iter()
                .filter(|r| site_fn.get(r.site as usize) == Some(&function))
                .map(|r| Record {
                    address: r.address,
                    write: r.write,
                    instruction: r.instruction,
                })
                .collect();
            if records.len() as f64 != n_k {
                return Err(MemoryError::Run(format!(
                    "{function} {n}x{m}x{p}: the static count {n_k} differs from the {} traced accesses",
                    records.len()
                )));
            }
            out.push(Recorded {
                size: format!("{n}x{m}x{p}"),
                function: function.into(),
                n_k,
                records,
            });
        }
        progress(i + 1);
    }
    Ok(out)
}

/// The experiment's result: per setup and function, the models' evaluation.
#[derive(serde::Serialize)]
struct ExperimentOutput {
    configurations: usize,
    results: Vec<FunctionResult>,
}

fn run_experiment(a: ExperimentArgs, global: &GlobalOpts) -> CliResult {
    let dir = tempfile::tempdir().map_err(CliError::failure)?;
    let source = match &a.source {
        Some(p) => p.clone(),
        None => {
            let p = dir.path().join("matrix.c");
            std::fs::write(&p, MATRIX_C).map_err(CliError::failure)?;
            p
        }
    };
    let dims: Vec<i64> = if a.small {
        vec![2, 6, 10, 14]
    } else {
        (1..=9).map(|i| 2 * i).collect()
    };
    let mut sizes = Vec::new();
    for &n in &dims {
        for &m in &dims {
            sizes.extend(dims.iter().map(|&p| (n, m, p)));
        }
    }
    let mut setups = experiment::setups();
    if a.regime {
        for s in experiment::regime_setups() {
            if setups.iter().all(|o| o.name != s.name) {
                setups.push(s);
            }
        }
    }
    let quiet = global.quiet || global.json;
    let bar = crate::progress::bar(sizes.len() as u64, quiet);
    let recorded = trace_sizes(&source, &sizes, dir.path(), |i| bar.set_position(i as u64))
        .map_err(CliError::input)?;
    bar.finish_and_clear();
    let bar = crate::progress::bar((recorded.len() * setups.len()) as u64, quiet);
    let mut rows = Vec::new();
    for rec in &recorded {
        for setup in &setups {
            for threads in [2, 3, 4] {
                rows.extend(
                    experiment::simulate_recorded(rec, setup, threads).map_err(CliError::input)?,
                );
            }
            bar.inc(1);
        }
    }
    bar.finish_and_clear();
    let results = experiment::summarize(&rows, &setups);
    if let Some(csv) = &a.csv {
        std::fs::write(csv, experiment::samples_csv(&rows, &results))
            .map_err(|e| CliError::failure(format!("{}: {e}", csv.display())))?;
    }
    let r = ExperimentOutput {
        configurations: sizes.len(),
        results,
    };
    if global.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&r).map_err(CliError::failure)?
        );
        return Ok(());
    }
    println!(
        "003 Ch. 5 on the simulator: {} matrix sizes x T = 2, 3, 4 threads; trained on T = 3",
        r.configurations
    );
    for fr in &r.results {
        println!();
        let inc: Vec<String> = fr
            .relative_increase
            .iter()
            .map(|(t, v)| format!("T={t}: {:.2}%", 100.0 * v))
            .collect();
        let faster: Vec<String> = fr
            .faster_in_parallel
            .iter()
            .map(|(t, f, n)| format!("T={t}: {f}/{n}"))
            .collect();
        println!(
            "{} / {}   median relative increase {}; faster in parallel {}",
            fr.setup,
            fr.function,
            inc.join(", "),
            faster.join(", ")
        );
        println!(
            "  {:>5} {:>8} {:>12} {:>10} {:>16} {:>16} {:>16} {:>16}",
            "model",
            "training",
            "coefficient",
            "intercept",
            "T=2 med|err|",
            "T=2 med|err|/t",
            "T=4 med|err|",
            "T=4 med|err|/t"
        );
        for m in &fr.models {
            let t2 = &m.tests[0];
            let t4 = &m.tests[1];
            println!(
                "  {:>5} {:>8} {:>12.4e} {:>10.2} {:>16.1} {:>15.3}% {:>16.1} {:>15.3}%",
                m.fitted.model,
                match m.fitted.training {
                    metron_contention::model::Training::Median => "median",
                    metron_contention::model::Training::LeastSquares => "lsq",
                },
                m.fitted.coefficient,
                m.fitted.intercept,
                t2.median_abs_error,
                100.0 * t2.median_abs_error_relative,
                t4.median_abs_error,
                100.0 * t4.median_abs_error_relative
            );
        }
    }
    Ok(())
}
