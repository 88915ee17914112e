//! `metron matlab`: the instruction-tree model, source-to-source passes and their proof on
//! GNU Octave (000 Ch. 4-6).

use std::path::{Path, PathBuf};

use clap::{Args, Subcommand};
use metron_matlab::bench_store::StoreRecorder;
use metron_matlab::classification::Classification;
use metron_matlab::dimensionality::Dim;
use metron_matlab::instruction_tree::{chain_string, model_expression, model_program};
use metron_matlab::octave::{check, CheckError, CheckOptions};
use metron_matlab::passes::{run_passes, Options, PassError};

use crate::error::{CliError, CliResult};
use crate::GlobalOpts;

#[derive(Subcommand, Debug)]
pub enum MatlabCommand {
    /// Print the minimal instruction tree and the instruction chain (000 §4.5).
    Model(ModelArgs),
    /// Rewrite a .m file with passes (dslice, inline, range, reorder, repack, vectorize).
    Transform(TransformArgs),
    /// Run two versions in octave-cli, compare every output and time both.
    Check(CheckArgs),
    /// Profile-guided vectorisation: time loop and vector versions over sizes, find p.
    Profile(ProfileArgs),
    /// Menchi-style experiments (000 App. C): versions from `%! pragma` regions, sizes,
    /// modes measure|warmup|threads|validate; long CSV.
    Bench(BenchArgs),
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Spec file (.json or .toml); file paths in it are relative to it.
    pub spec: PathBuf,
    /// Write the long CSV (App. C Listing C.2) here; default: stdout.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Do not record the results in the experiment store (default: they go to `--store`).
    #[arg(long)]
    pub no_store: bool,
}

#[derive(Args, Debug)]
pub struct ProfileArgs {
    /// A function file whose first function takes the problem size, e.g. triad.m.
    pub input: PathBuf,
    /// Sizes to profile (comma-separated).
    #[arg(
        long,
        value_delimiter = ',',
        default_value = "16,64,256,1024,4096,16384"
    )]
    pub sizes: Vec<u64>,
    #[arg(long, default_value_t = 15)]
    pub repetitions: usize,
    /// Write the versioned program (`if trips >= p`) here.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    #[arg(long)]
    pub assume_orientation: Option<String>,
}

#[derive(Args, Debug)]
pub struct ModelArgs {
    /// A MATLAB expression, or a .m file (every assignment is modelled).
    pub input: String,
    /// Classification table: r2015b, r2018b or octave (no JIT: nothing combines).
    #[arg(long, default_value = "r2018b")]
    pub runtime: String,
    /// User-defined functions in a bare expression (comma-separated), e.g. `compute`.
    #[arg(long, value_delimiter = ',')]
    pub functions: Vec<String>,
}

#[derive(Args, Debug)]
pub struct TransformArgs {
    pub input: PathBuf,
    /// Passes in order, comma-separated: dslice, inline, range, reorder, repack, vectorize.
    #[arg(long, value_delimiter = ',', required = true)]
    pub passes: Vec<String>,
    #[arg(short, long)]
    pub output: Option<PathBuf>,
    /// Say what each pass did or did not do, and why.
    #[arg(long)]
    pub explain: bool,
    #[arg(long, default_value = "r2018b")]
    pub runtime: String,
    /// Repack even where the model predicts no change of the chain.
    #[arg(long)]
    pub force: bool,
    /// Orientation assumed for vectors of unknown shape (parameters): row or column.
    #[arg(long)]
    pub assume_orientation: Option<String>,
    /// Profile-guided versioning: vector code only when the trip count is >= P (000 §5.4).
    #[arg(long)]
    pub version_threshold: Option<u64>,
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    pub original: PathBuf,
    pub transformed: PathBuf,
    /// Call for function files, e.g. 'f(1000)'; omit for scripts.
    #[arg(long)]
    pub entry: Option<String>,
    #[arg(long, default_value_t = 1e-9)]
    pub rtol: f64,
    #[arg(long, default_value_t = 1e-12)]
    pub atol: f64,
    /// In-process timed calls per version (0: compare only).
    #[arg(long, default_value_t = 20)]
    pub repetitions: usize,
    /// Write the version to keep here: the transformed one when results are equal and it is
    /// not slower beyond noise (speedup CI entirely below 1), else the original.
    #[arg(long)]
    pub keep: Option<PathBuf>,
}

pub fn run(cmd: MatlabCommand, global: &GlobalOpts) -> CliResult {
    match cmd {
        MatlabCommand::Model(a) => model(a, global),
        MatlabCommand::Transform(a) => transform(a, global),
        MatlabCommand::Check(a) => check_cmd(a, global),
        MatlabCommand::Profile(a) => profile_cmd(a, global),
        MatlabCommand::Bench(a) => bench_cmd(a, global),
    }
}

fn json_out(v: &impl serde::Serialize) -> CliResult {
    let text = serde_json::to_string_pretty(v).map_err(CliError::failure)?;
    println!("{text}");
    Ok(())
}

fn model(a: ModelArgs, global: &GlobalOpts) -> CliResult {
    let classification = Classification::builtin(&a.runtime).map_err(CliError::input)?;
    // A path that exists, or a name ending in `.m`, is a file (a missing one is an error,
    // not an expression named `nope.m`).
    let is_file = a.input.ends_with(".m") || Path::new(&a.input).is_file();
    if is_file {
        let path = Path::new(&a.input);
        let src = read_source(path)?.text;
        let program = metron_matlab::parse(&src, path).map_err(CliError::input)?;
        let models = model_program(&program, &classification);
        if global.json {
            return json_out(&models);
        }
        for m in models {
            println!("{}:{}: {}", path.display(), m.line, m.statement);
            print!("{}", m.tree);
            println!("chain: {}\n", m.chain_text);
        }
        return Ok(());
    }
    let (tree, chain) =
        model_expression(&a.input, &classification, &a.functions).map_err(CliError::input)?;
    if global.json {
        return json_out(&serde_json::json!({
            "expression": a.input,
            "runtime": a.runtime,
            "tree": tree,
            "chain": chain,
            "chain_text": chain_string(&chain),
        }));
    }
    print!("{}", tree.ascii());
    println!("chain: {}", chain_string(&chain));
    Ok(())
}

fn read_source(path: &Path) -> Result<metron_matlab::SourceFile, CliError> {
    metron_matlab::SourceFile::read(path)
        .map_err(|e| CliError::input(format!("{}: {e}", path.display())))
}

fn orientation(flag: Option<&str>) -> Result<Option<Dim>, CliError> {
    match flag {
        None => Ok(None),
        Some("row") => Ok(Some(Dim::Row)),
        Some("column") => Ok(Some(Dim::Column)),
        Some(other) => Err(CliError::input(format!(
            "--assume-orientation: expected `row` or `column`, got `{other}`"
        ))),
    }
}

fn bench_cmd(a: BenchArgs, global: &GlobalOpts) -> CliResult {
    let text = std::fs::read_to_string(&a.spec)
        .map_err(|e| CliError::input(format!("{}: {e}", a.spec.display())))?;
    let is_toml = a.spec.extension().is_some_and(|e| e == "toml");
    let spec: metron_matlab::bench::Spec = if is_toml {
        toml_spec(&text).map_err(|e| CliError::input(format!("{}: {e}", a.spec.display())))?
    } else {
        serde_json::from_str(&text).map_err(|e| {
            CliError::input(format!(
                "{}:{}:{}: {e}",
                a.spec.display(),
                e.line(),
                e.column()
            ))
        })?
    };
    let base = a.spec.parent().unwrap_or(Path::new("."));
    let bar = crate::progress::bar(0, global.quiet);
    let mut progress = |step: &str| bar.set_message(step.to_string());
    let mut stored = None;
    let result = if a.no_store {
        metron_matlab::bench::run(&spec, base, progress)
    } else {
        let mut store = super::open_store(&global.store_path())?;
        let argv: Vec<String> = std::env::args().collect();
        let mut recorder = StoreRecorder::begin(&mut store, &spec, &a.spec, &argv, &mut progress)
            .map_err(CliError::input)?;
        let result = metron_matlab::bench::run_observed(&spec, base, &mut recorder);
        let agreed = result
            .as_ref()
            .is_ok_and(|r| r.validations.iter().all(|v| v.equal));
        stored = Some(recorder.finish(agreed).map_err(CliError::input)?);
        result
    };
    bar.finish_and_clear();
    let result = result.map_err(|e| match e {
        metron_matlab::bench::BenchError::Check(_)
        | metron_matlab::bench::BenchError::Measure(_) => CliError::failure(e),
        _ => CliError::input(e),
    })?;
    let mut csv = String::from(metron_matlab::bench::CSV_HEADER);
    csv.push('\n');
    for r in &result.rows {
        csv.push_str(&r.csv());
        csv.push('\n');
    }
    match &a.csv {
        Some(p) => {
            std::fs::write(p, &csv).map_err(|e| CliError::input(format!("{}: {e}", p.display())))?
        }
        None if !global.json => print!("{csv}"),
        None => {}
    }
    if global.json {
        json_out(&result)?;
    } else if !global.quiet {
        if let Some(id) = stored {
            eprintln!(
                "Stored as experiment {} in {} (metron show {})",
                id.0,
                global.store_path().display(),
                id.0
            );
        }
        for v in &result.validations {
            eprintln!(
                "validate {} {} vs {} N={}: {} (max rel. error {:.2e})",
                v.benchmark,
                v.version,
                v.reference,
                v.n,
                if v.equal { "equal" } else { "DIFFERENT" },
                v.max_rel_error
            );
        }
    }
    if result.validations.iter().all(|v| v.equal) {
        Ok(())
    } else {
        Err(CliError::failure(
            "some versions disagree (see validate lines)",
        ))
    }
}

fn toml_spec(text: &str) -> Result<metron_matlab::bench::Spec, String> {
    metron_matlab::bench::Spec::from_toml(text)
}

fn profile_cmd(a: ProfileArgs, global: &GlobalOpts) -> CliResult {
    let src = read_source(&a.input)?.text;
    let program = metron_matlab::parse(&src, &a.input).map_err(CliError::input)?;
    let function = program
        .functions
        .first()
        .map(|f| f.name.clone())
        .ok_or_else(|| {
            CliError::input(format!("{}: expected a function file", a.input.display()))
        })?;
    let mut options = Options {
        assume: orientation(a.assume_orientation.as_deref())?,
        ..Options::default()
    };
    let vectorised = run_passes(&src, &a.input, &["vectorize".to_string()], &options)
        .map_err(CliError::input)?;
    let vector_src = vectorised
        .last()
        .map(|o| o.source.clone())
        .unwrap_or_default();
    if vector_src == src {
        return Err(CliError::failure(format!(
            "{}: no loop could be vectorised (see `metron matlab transform --passes vectorize --explain`)",
            a.input.display()
        )));
    }
    let dir = std::env::temp_dir().join(format!("metron-profile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(CliError::failure)?;
    let vector_path = dir.join(a.input.file_name().unwrap_or_default());
    std::fs::write(&vector_path, &vector_src).map_err(CliError::failure)?;
    let bar = crate::progress::bar(a.sizes.len() as u64, global.quiet);
    let result = metron_matlab::octave::profile(
        &a.input,
        &vector_path,
        &function,
        &a.sizes,
        a.repetitions,
        |size| {
            bar.set_message(format!("size {size}"));
            bar.inc(1);
        },
    );
    bar.finish_and_clear();
    let _ = std::fs::remove_dir_all(&dir);
    let profile = result.map_err(|e| match e {
        CheckError::Input { .. } | CheckError::Tool(_) => CliError::input(e),
        _ => CliError::failure(e),
    })?;
    if let (Some(p), Some(out)) = (profile.threshold, &a.output) {
        options.version_threshold = Some(p);
        let versioned = run_passes(&src, &a.input, &["vectorize".to_string()], &options)
            .map_err(CliError::input)?;
        let text = versioned
            .last()
            .map(|o| o.source.clone())
            .unwrap_or_default();
        std::fs::write(out, text)
            .map_err(|e| CliError::input(format!("{}: {e}", out.display())))?;
    }
    if global.json {
        return json_out(&profile);
    }
    println!(
        "{:>10} {:>12} {:>12} {:>9}  95% CI",
        "size", "loop (s)", "vector (s)", "speedup"
    );
    for p in &profile.points {
        let ci = p
            .speedup_ci
            .map(|c| format!("{:.2} to {:.2}", c.lo, c.hi))
            .unwrap_or_default();
        println!(
            "{:>10} {:>12.3e} {:>12.3e} {:>9.2}  {ci}",
            p.size, p.loop_median_s, p.vector_median_s, p.speedup
        );
    }
    match profile.threshold {
        Some(p) => println!("profitable from size {p} on (p = {p})"),
        None => println!("never profitable beyond noise in the profiled sizes (∅)"),
    }
    Ok(())
}

fn transform(a: TransformArgs, global: &GlobalOpts) -> CliResult {
    let file = read_source(&a.input)?;
    let src = file.text.clone();
    let assume = orientation(a.assume_orientation.as_deref())?;
    let options = Options {
        runtime: a.runtime.clone(),
        force: a.force,
        assume,
        version_threshold: a.version_threshold,
    };
    let outputs = run_passes(&src, &a.input, &a.passes, &options).map_err(|e| match e {
        PassError::Overlap { .. } => CliError::failure(e),
        _ => CliError::input(e),
    })?;
    let result = outputs.last().map(|o| o.source.clone()).unwrap_or(src);
    if global.json {
        return json_out(&serde_json::json!({ "passes": outputs, "source": result }));
    }
    if a.explain && !global.quiet {
        for o in &outputs {
            for n in &o.notes {
                let mark = if n.applied { "applied" } else { "skipped" };
                eprintln!(
                    "{}:{}: [{}] {mark}: {}",
                    a.input.display(),
                    n.line,
                    o.pass,
                    n.message
                );
            }
        }
    }
    match &a.output {
        Some(path) => std::fs::write(path, file.encode(&result))
            .map_err(|e| CliError::input(format!("{}: {e}", path.display())))?,
        None => print!("{result}"),
    }
    Ok(())
}

fn check_cmd(a: CheckArgs, global: &GlobalOpts) -> CliResult {
    let options = CheckOptions {
        entry: a.entry.clone(),
        rtol: a.rtol,
        atol: a.atol,
        repetitions: a.repetitions,
        warmup: 2,
    };
    let report = check(&a.original, &a.transformed, &options).map_err(|e| match e {
        CheckError::ProgramFailed { .. } => CliError::Program(e.to_string()),
        CheckError::Octave { .. } | CheckError::Result(_) | CheckError::Measure(_) => {
            CliError::failure(e)
        }
        _ => CliError::input(e),
    })?;
    if global.json {
        json_out(&report)?;
    } else {
        println!(
            "{:<16} {:>16} {:>16} {:>12} {:>12}  result",
            "variable", "class shape", "(new)", "max |diff|", "rel error"
        );
        for v in &report.variables {
            println!(
                "{:<16} {:>16} {:>16} {:>12.3e} {:>12.3e}  {}",
                v.name,
                format!("{} {}", v.class_original, v.shape_original),
                format!("{} {}", v.class_transformed, v.shape_transformed),
                v.max_abs_error,
                v.max_rel_error,
                if v.equal {
                    "equal".to_string()
                } else {
                    format!("DIFFERENT: {}", v.reason)
                }
            );
        }
        println!(
            "tolerance: |diff| <= {:e} or relative error <= {:e}",
            report.atol, report.rtol
        );
        if let Some(t) = &report.timing {
            let ci = t
                .speedup_ci
                .map(|c| format!(" (95% CI {:.3} to {:.3})", c.lo, c.hi))
                .unwrap_or_default();
            println!(
                "time: original {:.3e} s, transformed {:.3e} s (medians of {} calls); speedup {:.3}{ci}",
                t.original_median_s, t.transformed_median_s, t.repetitions, t.speedup
            );
        }
    }
    if let Some(out) = &a.keep {
        let slower = report
            .timing
            .as_ref()
            .and_then(|t| t.speedup_ci)
            .is_some_and(|ci| ci.hi < 1.0);
        let chosen = if report.equal && !slower {
            &a.transformed
        } else {
            &a.original
        };
        std::fs::copy(chosen, out)
            .map_err(|e| CliError::input(format!("{}: {e}", out.display())))?;
        if !global.quiet {
            eprintln!("kept {} as {}", chosen.display(), out.display());
        }
    }
    if report.equal {
        Ok(())
    } else {
        Err(CliError::failure(format!(
            "{} and {} differ on {}",
            a.original.display(),
            a.transformed.display(),
            report.entry
        )))
    }
}
