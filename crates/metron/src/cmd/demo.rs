//! `metron demo`: what metron can do, on small bundled examples. Each capability adds a step.

use std::path::{Path, PathBuf};

use clap::Args;
use metron_measure::tool;

use super::measure::{self, MeasureArgs};
use crate::error::{CliError, CliResult};
use crate::GlobalOpts;

/// The demo's C programs, bundled so that the demo runs from any directory.
const TRIAD_C: &str = include_str!("../../../../examples/measure/triad.c");
const JACOBI_C: &str = include_str!("../../../../examples/c/jacobi.c");
const PROBE_H: &str = include_str!("../../../../include/metron_probe.h");
const MANDEL_PY: &str = include_str!("../../../../examples/jit/corpus/06_float_mandel.py");
const MATMUL_TASK_PY: &str = include_str!("../../../../examples/jit/tasks/matmul_chunked.py");
const TASKCLI_PY: &str = include_str!("../../../../examples/jit/tasks/_taskcli.py");
const JIT_WEIGHTS: &str =
    include_str!("../../../../examples/jit/calibration/weights-amd-epyc-2cpu.txt");
const STREAM_C: &str = include_str!("../../../../examples/static/stream.c");
const KERNELS_C: &str = include_str!("../../../../examples/memory/kernels.c");
const TRIAD_M: &str = include_str!("../../../../examples/matlab/triad.m");
const THREE_PHASE_C: &str = include_str!("../../../../examples/pep/three_phase.c");
const POISSON_C: &str = include_str!("../../../../examples/tune/poisson.c");
const POISSON_TOML: &str = include_str!("../../../../examples/tune/poisson.toml");
const POISSON_MAKEFILE: &str = include_str!("../../../../examples/tune/Makefile");

#[derive(Args, Debug, Clone)]
pub struct DemoArgs {
    /// Where the demo writes its builds, store and exports.
    #[arg(long, default_value = "metron-demo")]
    pub out: PathBuf,
    /// Fewer runs, for a quick look.
    #[arg(long)]
    pub quick: bool,
}

pub fn run(args: DemoArgs, global: &GlobalOpts) -> CliResult {
    std::fs::create_dir_all(&args.out)
        .map_err(|e| CliError::input(format!("{}: {e}", args.out.display())))?;
    let out = args
        .out
        .canonicalize()
        .map_err(|e| CliError::input(format!("{}: {e}", args.out.display())))?;
    let mut produced: Vec<(String, PathBuf)> = Vec::new();
    let mut steps = 0;

    step(
        &mut steps,
        global,
        "metron measure: the triad kernel at -O0 against -O2, over three sizes",
    );
    let (o0, o2) = build_triad(&out)?;
    let csv = out.join("measure.csv");
    let json = out.join("measure.json");
    let store = out.join("metron.db");
    let measure_args = MeasureArgs {
        runs: Some(if args.quick { 3 } else { 10 }),
        warmup: 1,
        target_ci: None,
        min_runs: None,
        max_runs: None,
        compare: vec![format!("{} {{N}} 50", o2.display())],
        param: vec!["N=100000,400000,1600000".into()],
        metric: metron_measure::metric::WALL_TIME.into(),
        export_csv: None,
        export_json: None,
        no_store: false,
        no_counters: false,
        show_output: false,
        seed: metron_measure::stats::Bootstrap::default().seed,
        resamples: 3000,
        hyperfine: Default::default(),
        command: vec![o0.display().to_string(), "{N}".into(), "50".into()],
    };
    let demo_global = GlobalOpts {
        store: Some(store.clone()),
        ..global.clone()
    };
    let report = measure::measure(&measure_args, &demo_global)?;
    metron_measure::export::write_csv(&report, &csv).map_err(CliError::input)?;
    metron_measure::export::write_json(&report, &json).map_err(CliError::input)?;
    measure::print_report(&report, &demo_global)?;
    produced.push(("store (metron history --store ...)".into(), store));
    produced.push(("long-format CSV".into(), csv));
    produced.push(("JSON report".into(), json));

    step(
        &mut steps,
        global,
        "metron-probe: a C solver with region timers, run as four ranks",
    );
    let dir = probe_step(&out, global)?;
    produced.push(("probe profiles (metron profile show)".into(), dir));

    step(
        &mut steps,
        global,
        "metron jit: a PyPy JIT log of a Mandelbrot loop, costed per fragment and source line",
    );
    let log = jit_step(&out, global)?;
    produced.push(("PyPy JIT log (metron jit analyze)".into(), log));
    if !args.quick {
        jit_tau_step(&out, global)?;
    }

    step(
        &mut steps,
        global,
        "metron static: an instruction-count model from binary and source, checked against callgrind",
    );
    let dir = static_step(&out, global)?;
    produced.push((
        "static model (Python, 004 Fig. 5)".into(),
        dir.join("stream_model.py"),
    ));

    step(
        &mut steps,
        global,
        "metron memory: static access counts on LLVM IR, checked against a traced run",
    );
    let dir = memory_step(&out, global)?;
    produced.push(("memory analysis inputs".into(), dir));

    step(
        &mut steps,
        global,
        "metron contention: simulated bank contention and the models that predict it",
    );
    let simulate = [
        "contention",
        "simulate",
        "--cores",
        "4",
        "--banks",
        "1",
        "--p",
        "0.05",
    ];
    invoke(&simulate, global)?;
    save_json(&simulate, &out.join("contention").join("simulate.json"))?;
    if !args.quick {
        let experiment = ["contention", "experiment", "--small"];
        invoke(&experiment, global)?;
        save_json(&experiment, &out.join("contention").join("experiment.json"))?;
    }

    step(
        &mut steps,
        global,
        "metron matlab: the execution model, a vectorising transformation, proven on Octave",
    );
    let dir = matlab_step(&out, args.quick, global)?;
    produced.push(("MATLAB original and transformed".into(), dir));

    step(
        &mut steps,
        global,
        "metron pep: a sampled counter profile of a three-phase program, and its regions",
    );
    produced.push((
        "performance event trace (metron pep show)".into(),
        pep_step(&out, global)?,
    ));

    step(
        &mut steps,
        global,
        "metron tune: a small GA campaign over an MPI+OpenMP multigrid solver (002 Ch. 4)",
    );
    let dir = tune_step(&out, args.quick, global)?;
    produced.push(("tune campaign (library, out/*.cnv)".into(), dir));

    step(
        &mut steps,
        global,
        "metron report: everything above in one self-contained HTML page",
    );
    produced.push((
        "interactive report (open in a browser)".into(),
        report_step(&out, global)?,
    ));

    if !global.json {
        println!("\nThe demo's outputs:");
        for (what, path) in &produced {
            println!("  {:<36} {}", what, path.display());
        }
    }
    Ok(())
}

/// Prints a numbered step heading.
fn step(count: &mut usize, global: &GlobalOpts, title: &str) {
    *count += 1;
    if !global.quiet && !global.json {
        println!("== {count}. {title}\n");
    }
}

fn build_triad(out: &Path) -> CliResult<(PathBuf, PathBuf)> {
    let src = out.join("triad.c");
    std::fs::write(&src, TRIAD_C)
        .map_err(|e| CliError::input(format!("{}: {e}", src.display())))?;
    let build = |opt: &str| -> CliResult<PathBuf> {
        let bin = out.join(format!("triad{opt}"));
        tool::CC
            .run(
                [
                    opt,
                    "-o",
                    &bin.display().to_string(),
                    &src.display().to_string(),
                ],
                None,
            )
            .map_err(CliError::input)?;
        Ok(bin)
    };
    Ok((build("-O0")?, build("-O2")?))
}

/// Builds `examples/c/jacobi.c` against the static probe library that `make demo` builds next
/// to this binary, runs it as four ranks with different iteration counts (so that the load
/// imbalance column has something to show), and shows the merged profile.
fn probe_step(out: &Path, global: &GlobalOpts) -> CliResult<PathBuf> {
    let exe = std::env::current_exe().map_err(CliError::failure)?;
    // METRON_PROBE_LIB names the library when it was built elsewhere (the tests do that).
    let beside_exe = exe.parent().map(|d| d.join("libmetron_probe.a"));
    let Some(lib) = std::env::var_os("METRON_PROBE_LIB")
        .map(PathBuf::from)
        .or(beside_exe)
        .filter(|l| l.is_file())
    else {
        return Err(CliError::input(format!(
            "demo step `probe` cannot run: libmetron_probe.a is not next to {}; build it with \
             `cargo build --release -p metron-probe` (make demo does), or name it in METRON_PROBE_LIB",
            exe.display()
        )));
    };
    let dir = out.join("probe");
    let profiles = dir.join("profile");
    let _ = std::fs::remove_dir_all(&profiles);
    std::fs::create_dir_all(&profiles)
        .map_err(|e| CliError::input(format!("{}: {e}", profiles.display())))?;
    for (name, text) in [("jacobi.c", JACOBI_C), ("metron_probe.h", PROBE_H)] {
        let p = dir.join(name);
        std::fs::write(&p, text).map_err(|e| CliError::input(format!("{}: {e}", p.display())))?;
    }
    let bin = dir.join("jacobi");
    let path = |p: &Path| p.display().to_string();
    tool::CC
        .run(
            [
                "-O2".to_string(),
                format!("-I{}", path(&dir)),
                path(&dir.join("jacobi.c")),
                path(&lib),
                "-lpthread".into(),
                "-ldl".into(),
                "-lm".into(),
                "-o".into(),
                path(&bin),
            ],
            None,
        )
        .map_err(CliError::input)?;
    let counters = metron_measure::counters::CounterSet::none();
    for rank in 0..4u32 {
        let argv = vec![
            path(&bin),
            "4096".into(),
            (200 + 50 * rank).to_string(),
            "12".into(),
        ];
        let env = [
            ("METRON_RANK".to_string(), rank.to_string()),
            ("METRON_PROFILE_DIR".to_string(), path(&profiles)),
            // Timelines too, for the report's call stacks over time (002 Fig. 2.6).
            ("METRON_TIMELINE".to_string(), "4096".to_string()),
        ];
        let o = metron_measure::runner::run_once_with_env(
            &argv,
            &env,
            metron_measure::runner::OutputPolicy::Discard,
            &counters,
        )
        .map_err(CliError::input)?;
        if !o.exit.success() {
            return Err(CliError::failure(format!(
                "{} (rank {rank}) exited with status {}",
                path(&bin),
                o.exit.status()
            )));
        }
    }
    super::profile::run(
        super::profile::ProfileArgs {
            command: super::profile::ProfileCommand::Show(super::profile::ShowArgs {
                path: profiles.clone(),
                across: super::profile::Across::Max,
                flat: false,
                tree: false,
                max_columns: 8,
            }),
        },
        global,
    )?;
    println!();
    Ok(profiles)
}

/// Records a PYPYLOG of a small float loop and analyses it (001): fragments, frequencies,
/// costs, and the Python lines the cost comes from.
fn jit_step(out: &Path, global: &GlobalOpts) -> CliResult<PathBuf> {
    use super::jit::{AnalyzeArgs, JitArgs, JitCommand, ModelArgs, RecordArgs};
    need("jit", &[tool::PYPY3])?;
    let dir = out.join("jit");
    std::fs::create_dir_all(&dir)
        .map_err(|e| CliError::input(format!("{}: {e}", dir.display())))?;
    let script = dir.join("mandel.py");
    std::fs::write(&script, MANDEL_PY)
        .map_err(|e| CliError::input(format!("{}: {e}", script.display())))?;
    let log = dir.join("mandel.pypylog");
    let record = RecordArgs {
        output: log.clone(),
        sections: metron_jit::pypy::DEFAULT_SECTIONS.to_string(),
        jit: None,
        discard_output: true,
        command: vec![script.display().to_string(), "0.05".into()],
    };
    let quiet = GlobalOpts {
        quiet: true,
        ..global.clone()
    };
    super::jit::run(
        JitArgs {
            command: JitCommand::Record(record),
        },
        &quiet,
    )?;
    let analyze = AnalyzeArgs {
        log: log.clone(),
        model: ModelArgs {
            model: None,
            weights: None,
            classes: None,
        },
        top: 5,
    };
    super::jit::run(
        JitArgs {
            command: JitCommand::Analyze(analyze),
        },
        global,
    )?;
    let log_s = log.display().to_string();
    save_json(&["jit", "analyze", &log_s], &dir.join("analyze.json"))?;
    println!();
    Ok(log)
}

/// Runs a metron command line exactly as a user would type it, printing it first, so that the
/// demo doubles as a list of commands to copy.
fn invoke(args: &[&str], global: &GlobalOpts) -> CliResult {
    use clap::Parser;
    if !global.quiet && !global.json {
        println!("$ metron {}", shell_quote(args));
    }
    let mut argv = vec!["metron".to_string()];
    if global.quiet {
        argv.push("--quiet".into());
    }
    argv.extend(args.iter().map(|a| a.to_string()));
    let cli =
        crate::Cli::try_parse_from(&argv).map_err(|e| CliError::failure(format!("demo: {e}")))?;
    crate::run(cli)?;
    println!();
    Ok(())
}

fn shell_quote(args: &[&str]) -> String {
    args.iter()
        .map(|a| {
            if a.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_./=:,".contains(c))
            {
                a.to_string()
            } else {
                format!("'{}'", a.replace('\'', "'\\''"))
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Writes a bundled example into the demo's output directory.
fn write_example(dir: &Path, name: &str, text: &str) -> CliResult<PathBuf> {
    std::fs::create_dir_all(dir).map_err(|e| CliError::input(format!("{}: {e}", dir.display())))?;
    let p = dir.join(name);
    std::fs::write(&p, text).map_err(|e| CliError::input(format!("{}: {e}", p.display())))?;
    Ok(p)
}

/// The tools a step needs. A missing one stops the demo with the step's name and the install
/// line: after `scripts/install-deps` nothing may be missing, and a skipped step would hide it.
fn need(step: &str, tools: &[tool::Tool]) -> CliResult<()> {
    for t in tools {
        t.resolve()
            .map_err(|e| CliError::input(format!("demo step `{step}` cannot run: {e}")))?;
    }
    Ok(())
}

fn memory_step(out: &Path, global: &GlobalOpts) -> CliResult<PathBuf> {
    need("memory", &[tool::CLANG, tool::OPT])?;
    let dir = out.join("memory");
    let file = write_example(&dir, "kernels.c", KERNELS_C)?;
    let file = file.display().to_string();
    let analyze = [
        "memory", "analyze", &file, "-f", "matmul", "-f", "calls", "--param", "n=64",
    ];
    invoke(&analyze, global)?;
    save_json(&analyze, &dir.join("analyze.json"))?;
    let validate = [
        "memory",
        "validate",
        &file,
        "-f",
        "triangular",
        "--param",
        "n=40",
        "--",
        "triangular",
        "40",
    ];
    invoke(&validate, global)?;
    save_json(&validate, &dir.join("validate.json"))?;
    Ok(dir)
}

fn matlab_step(out: &Path, quick: bool, global: &GlobalOpts) -> CliResult<PathBuf> {
    invoke(
        &[
            "matlab",
            "model",
            "A(1:N) + compute(B.*C(1:N), cos(D./E))",
            "--functions",
            "compute",
        ],
        global,
    )?;
    need("matlab", &[tool::OCTAVE])?;
    let dir = out.join("matlab");
    let orig = write_example(&dir, "triad.m", TRIAD_M)?
        .display()
        .to_string();
    let new_dir = dir.join("transformed");
    std::fs::create_dir_all(&new_dir)
        .map_err(|e| CliError::input(format!("{}: {e}", new_dir.display())))?;
    let new = new_dir.join("triad.m").display().to_string();
    invoke(
        &[
            "matlab",
            "transform",
            &orig,
            "--passes",
            "vectorize,range",
            "--explain",
            "-o",
            &new,
        ],
        global,
    )?;
    let reps = if quick { "3" } else { "10" };
    invoke(
        &[
            "matlab",
            "check",
            &orig,
            &new,
            "--entry",
            "triad(20000)",
            "--repetitions",
            reps,
        ],
        global,
    )?;
    Ok(dir)
}

/// k(τ) of a chunked matrix multiplication with the bundled calibrated weights (001 §5).
fn jit_tau_step(out: &Path, global: &GlobalOpts) -> CliResult {
    let dir = out.join("jit");
    write_example(&dir, "_taskcli.py", TASKCLI_PY)?;
    let task = write_example(&dir, "matmul_chunked.py", MATMUL_TASK_PY)?;
    let weights = write_example(&dir, "weights.txt", JIT_WEIGHTS)?;
    let (task, weights) = (task.display().to_string(), weights.display().to_string());
    let tau = [
        "jit",
        "tau",
        &task,
        "--tau",
        "1,4,16",
        "--repeat",
        "3",
        "--weights",
        &weights,
    ];
    invoke(&tau, global)?;
    save_json(&tau, &dir.join("tau.json"))
}

/// Builds the STREAM-like example with -g -O2, models it without running it, and checks the
/// model against callgrind's per-instruction counts (004).
fn static_step(out: &Path, global: &GlobalOpts) -> CliResult<PathBuf> {
    need("static", &[tool::CLANG, tool::VALGRIND])?;
    let dir = out.join("static");
    let src = write_example(&dir, "stream.c", STREAM_C)?;
    let bin = dir.join("stream");
    tool::CC
        .run(
            [
                "-g".to_string(),
                "-O2".into(),
                src.display().to_string(),
                "-o".into(),
                bin.display().to_string(),
            ],
            None,
        )
        .map_err(CliError::input)?;
    let bin = bin.display().to_string();
    let model = dir.join("stream_model.py").display().to_string();
    invoke(
        &[
            "static",
            &bin,
            "--param",
            "n=20000",
            "--emit-python",
            &model,
        ],
        global,
    )?;
    save_json(
        &["static", &bin, "--param", "n=20000"],
        &dir.join("model.json"),
    )?;
    let validate = [
        "static", "validate", &bin, "--param", "n=20000", "--", "20000",
    ];
    invoke(&validate, global)?;
    save_json(&validate, &dir.join("validate.json"))?;
    Ok(dir)
}

/// Records the three-phase example on cpu-clock with page-faults and task-clock (software
/// events, so it works without a PMU) and shows its regions two ways.
fn pep_step(out: &Path, global: &GlobalOpts) -> CliResult<PathBuf> {
    let dir = out.join("pep");
    let src = write_example(&dir, "three_phase.c", THREE_PHASE_C)?;
    let bin = dir.join("three_phase");
    let (src, bin_s) = (src.display().to_string(), bin.display().to_string());
    tool::CC
        .run(["-O2", "-o", &bin_s, &src], None)
        .map_err(CliError::input)?;
    let trace = dir.join("three_phase.trace");
    let trace_s = trace.display().to_string();
    invoke(
        &[
            "pep",
            "record",
            "--sample",
            "cpu-clock:1000000",
            "-e",
            "page-faults,task-clock",
            "-o",
            &trace_s,
            "--",
            &bin_s,
        ],
        global,
    )?;
    invoke(
        &[
            "pep",
            "regions",
            &trace_s,
            "--predicate",
            "page-faults == 0",
            "--min-samples",
            "10",
            "--max-gap",
            "2",
        ],
        global,
    )?;
    Ok(trace)
}

/// The store, the probe profiles, the PEP trace and the --json outputs the steps above saved,
/// in one page (issue 19).
fn report_step(out: &Path, global: &GlobalOpts) -> CliResult<PathBuf> {
    let page = out.join("metron-demo-report.html");
    let mut files: Vec<String> = [
        "probe/profile",
        "pep/three_phase.trace",
        "static/model.json",
        "static/validate.json",
        "memory/analyze.json",
        "memory/validate.json",
        "contention/simulate.json",
        "contention/experiment.json",
        "jit/analyze.json",
        "jit/tau.json",
    ]
    .iter()
    .map(|f| out.join(f))
    .filter(|p| p.exists()) // --quick skips some steps
    .map(|p| p.display().to_string())
    .collect();
    let (store, page_s) = (
        out.join("metron.db").display().to_string(),
        page.display().to_string(),
    );
    let mut args = vec!["--store", &store, "report"];
    args.extend(files.iter_mut().map(|f| f.as_str()));
    args.extend(["-o", &page_s]);
    invoke(&args, global)?;
    Ok(page)
}

/// Runs `metron --json ARGS` as a child process and keeps what it prints in `file`, for the
/// report (the step's table was shown by the same command without --json just before).
fn save_json(args: &[&str], file: &Path) -> CliResult {
    let exe = std::env::current_exe().map_err(CliError::failure)?;
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|e| CliError::input(format!("{}: {e}", dir.display())))?;
    }
    let run = std::process::Command::new(exe)
        .args(["--json", "--quiet"])
        .args(args)
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(CliError::failure)?;
    if !run.status.success() {
        return Err(CliError::failure(format!(
            "demo: `metron --json {}` failed: {}",
            shell_quote(args),
            String::from_utf8_lossy(&run.stderr).trim()
        )));
    }
    std::fs::write(file, &run.stdout)
        .map_err(|e| CliError::input(format!("{}: {e}", file.display())))
}

/// examples/tune in the demo directory, linked with the probe library beside metron, tuned
/// by a small GA (time to a fixed residual, slowest rank), then shown by smoothing steps.
fn tune_step(out: &Path, quick: bool, global: &GlobalOpts) -> CliResult<PathBuf> {
    need("tune", &[tool::MPICC, tool::MPIRUN])?;
    let exe = std::env::current_exe().map_err(CliError::failure)?;
    let Some(lib) = probe_lib(&exe) else {
        return Err(CliError::input(format!(
            "demo step `tune` cannot run: libmetron_probe.a is not next to {}; build it with \
             `cargo build --release -p metron-probe`, or name it in METRON_PROBE_LIB",
            exe.display()
        )));
    };
    let dir = out.join("tune");
    write_example(&dir, "poisson.c", POISSON_C)?;
    write_example(&dir, "metron_probe.h", PROBE_H)?;
    write_example(&dir, "Makefile", POISSON_MAKEFILE)?;
    let toml = POISSON_TOML.replace(
        "\"PROJECT={project_dir}\"]",
        &format!(
            "\"PROJECT={{project_dir}}\", \"PROBE_LIB={}\"]",
            lib.display()
        ),
    );
    let project = write_example(&dir, "poisson.toml", &toml)?;
    let store = out.join("metron.db");
    let (store, project) = (store.display().to_string(), project.display().to_string());
    let budget = if quick { "8" } else { "16" };
    invoke(
        &[
            "--store",
            &store,
            "tune",
            "run",
            &project,
            "--max-unique",
            budget,
            "--population",
            "6",
        ],
        global,
    )?;
    invoke(
        &[
            "--store",
            &store,
            "tune",
            "show",
            &project,
            "--x",
            "pre + post",
            "--filter",
            "smoother=rbgs",
        ],
        global,
    )?;
    Ok(dir)
}

/// libmetron_probe.a beside metron, or where METRON_PROBE_LIB says.
fn probe_lib(exe: &Path) -> Option<PathBuf> {
    let beside_exe = exe.parent().map(|d| d.join("libmetron_probe.a"));
    std::env::var_os("METRON_PROBE_LIB")
        .map(PathBuf::from)
        .or(beside_exe)
        .filter(|l| l.is_file())
}
