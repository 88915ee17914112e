//! `metron static`: parametric instruction-count models from a binary plus its source (004),
//! and `metron static validate`: the model against callgrind's counts.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use metron_static::analysis::{analyse, Analysis, SourceOptions};
use metron_static::category::Architecture;
use metron_static::validate::{compare_program, perf_check, run_callgrind, Comparison};
use metron_static::StaticError;
use metron_symbolic::Binding;

use crate::error::{CliError, CliResult};
use crate::GlobalOpts;

#[derive(Args, Debug, Clone)]
#[command(args_conflicts_with_subcommands = true)]
pub struct StaticArgs {
    #[command(subcommand)]
    pub command: Option<StaticCommand>,
    #[command(flatten)]
    pub model: ModelArgs,
}

#[derive(Subcommand, Debug, Clone)]
pub enum StaticCommand {
    /// Run BIN under callgrind and compare the model's counts per function, loop and category.
    Validate(Box<ValidateArgs>),
}

#[derive(Args, Debug, Clone)]
pub struct SourceArgs {
    /// C/C++ source file (default: found through the binary's DWARF compilation units).
    #[arg(long)]
    pub source: Option<PathBuf>,
    /// Flags for clang (defines, include paths), e.g. --cflags '-DN=100 -Iinclude'.
    #[arg(long, allow_hyphen_values = true)]
    pub cflags: Option<String>,
    /// Take the flags from this compile_commands.json.
    #[arg(long)]
    pub compile_commands: Option<PathBuf>,
    /// Parameter value, NAME=VALUE (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub params: Vec<String>,
    /// Architecture description TOML (default: the bundled x86-64 one).
    #[arg(long)]
    pub arch: Option<PathBuf>,
    /// Probabilities of data-dependent branches recorded by `validate --record-branch-profile`
    /// (one run at one size; used where no `br_prob` annotation is given).
    #[arg(long, value_name = "FILE")]
    pub branch_profile: Option<PathBuf>,
    /// Reproduce Mira's approximations (every loop block N times, no vector factor, every
    /// callee parameter renamed per call site as in 004 Fig. 5).
    #[arg(long)]
    pub mira_compat: bool,
}

#[derive(Args, Debug, Clone)]
pub struct ModelArgs {
    /// The compiled program (x86-64 ELF built with -g).
    pub binary: Option<PathBuf>,
    #[command(flatten)]
    pub source: SourceArgs,
    /// Only this function.
    #[arg(long)]
    pub function: Option<String>,
    /// Write the model as Python (004 Fig. 5) to FILE.
    #[arg(long, value_name = "FILE")]
    pub emit_python: Option<PathBuf>,
}

#[derive(Args, Debug, Clone)]
pub struct ValidateArgs {
    /// The compiled program (x86-64 ELF built with -g), run under callgrind with ARGS.
    pub binary: PathBuf,
    #[command(flatten)]
    pub source: SourceArgs,
    /// Also run the program natively once with the hardware instruction counter
    /// (`instructions:u`) and compare the whole run's count with callgrind's.
    #[arg(long)]
    pub perf: bool,
    /// Write the probability of every data-dependent `if` and `?:`, measured in this run, to
    /// FILE (JSON) for `--branch-profile`.
    #[arg(long, value_name = "FILE")]
    pub record_branch_profile: Option<PathBuf>,
    /// Arguments of the program, after `--`.
    #[arg(last = true)]
    pub args: Vec<String>,
}

fn input(e: StaticError) -> CliError {
    CliError::input(e)
}

/// `--param` parsed by the one parser metron memory uses too.
fn binding(params: &[String]) -> Result<Binding, CliError> {
    super::build_opts::parse_params(params)
}

fn architecture(args: &SourceArgs) -> Result<Architecture, CliError> {
    match &args.arch {
        Some(p) => Architecture::load(p).map_err(input),
        None => Ok(Architecture::x86_64()),
    }
}

fn run_analysis(binary: &std::path::Path, args: &SourceArgs) -> Result<Analysis, CliError> {
    let cflags = match &args.cflags {
        Some(c) => c.split_whitespace().map(str::to_string).collect(),
        None => Vec::new(),
    };
    analyse(
        binary,
        &SourceOptions {
            source: args.source.clone(),
            cflags,
            compile_commands: args.compile_commands.clone(),
            mira_compat: args.mira_compat,
            branch_profile: args.branch_profile.clone(),
        },
    )
    .map_err(input)
}

pub fn run(args: StaticArgs, global: &GlobalOpts) -> CliResult {
    match args.command {
        Some(StaticCommand::Validate(v)) => validate(*v, global),
        None => model(args.model, global),
    }
}

fn model(args: ModelArgs, global: &GlobalOpts) -> CliResult {
    let binary = args
        .binary
        .ok_or_else(|| CliError::input("metron static: expected BIN (an ELF built with -g)"))?;
    let arch = architecture(&args.source)?;
    let analysis = run_analysis(&binary, &args.source)?;
    let formulas = &analysis.formulas;
    if let Some(path) = &args.emit_python {
        let text = formulas.to_python().map_err(input)?;
        std::fs::write(path, text)
            .map_err(|e| CliError::failure(format!("{}: cannot write: {e}", path.display())))?;
        if !global.quiet {
            eprintln!("wrote {}", path.display());
        }
    }
    let b = binding(&args.source.params)?;
    let evaluated = !args.source.params.is_empty();
    let mut json = formulas
        .to_json(&arch, evaluated.then_some(&b))
        .map_err(input)?;
    if evaluated {
        add_run_totals(&mut json, &analysis, &arch, &b).map_err(input)?;
    }
    if let Some(name) = &args.function {
        // A source name selects the function and the clones and parts the compiler made of it.
        let parts = analysis.binary.parts(name).map_err(input)?;
        if let Some(list) = json["functions"].as_array_mut() {
            list.retain(|e| parts.iter().any(|f| e["symbol"] == f.symbol.as_str()));
        }
    }
    if global.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&json).map_err(CliError::failure)?
        );
        return Ok(());
    }
    let empty = Vec::new();
    for f in json["functions"].as_array().unwrap_or(&empty) {
        println!(
            "{}  ({})  parameters: [{}]",
            f["name"].as_str().unwrap_or("?"),
            f["model_name"].as_str().unwrap_or("?"),
            f["parameters"]
                .as_array()
                .map(|p| p
                    .iter()
                    .filter_map(|x| x.as_str())
                    .collect::<Vec<_>>()
                    .join(", "))
                .unwrap_or_default()
        );
        for l in f["loops"].as_array().unwrap_or(&empty) {
            println!(
                "    loop {} depth {} line {}  iterations {}{}",
                l["header"].as_str().unwrap_or("?"),
                l["depth"],
                l["source_line"],
                indent(l["iterations"].as_str().unwrap_or("?"), 8),
                l["note"]
                    .as_str()
                    .map(|n| format!("  NOTE: {n}"))
                    .unwrap_or_default()
            );
        }
        for c in f["calls"].as_array().unwrap_or(&empty) {
            let bound: Vec<String> = c["arguments"]
                .as_object()
                .map(|a| {
                    a.iter()
                        .map(|(q, v)| format!("{q} = {}", v.as_str().unwrap_or("?")))
                        .collect()
                })
                .unwrap_or_default();
            println!(
                "    call {} (line {})  times {}{}",
                c["callee"].as_str().unwrap_or("?"),
                c["line"],
                indent(c["times"].as_str().unwrap_or("?"), 8),
                if bound.is_empty() {
                    String::new()
                } else {
                    format!("  with {}", bound.join(", "))
                }
            );
        }
        for e in f["external_calls"].as_array().unwrap_or(&empty) {
            let times = match &e["times"] {
                serde_json::Value::String(t) => t.clone(),
                other => other.to_string(),
            };
            println!(
                "    external call {} (line {})  times {}  {}",
                e["callee"].as_str().unwrap_or("?"),
                e["line"],
                times,
                match e["cost_per_call"].as_u64() {
                    Some(c) => format!("cost {c} per call (call_cost annotation)"),
                    None => "NOT ANALYSED: callee cost not counted".to_string(),
                }
            );
        }
        if evaluated {
            if let Some(run) = f.get("run") {
                println!(
                    "    in one run: {:.0} calls, {:.0} instructions of its own",
                    run["calls"].as_f64().unwrap_or(0.0),
                    run["total"].as_f64().unwrap_or(0.0)
                );
            }
            if let Some(u) = f["unbound"].as_array() {
                let names: Vec<&str> = u.iter().filter_map(|x| x.as_str()).collect();
                println!(
                    "    per call: needs {} (bound at its call sites; counted in its callers)",
                    names.join(", ")
                );
                continue;
            }
            println!(
                "    per call, callees included: {:.0}",
                f["total"].as_f64().unwrap_or(0.0)
            );
            if let Some(cats) = f["categories"].as_object() {
                let mut cats: Vec<_> = cats.iter().collect();
                cats.sort_by(|a, b| {
                    b.1.as_f64()
                        .partial_cmp(&a.1.as_f64())
                        .unwrap_or(std::cmp::Ordering::Equal)
                });
                for (c, v) in cats {
                    println!("      {:<48} {:>14.0}", c, v.as_f64().unwrap_or(0.0));
                }
            }
            if let Some(r) = f["rollups"].as_object() {
                let line: Vec<String> = r
                    .iter()
                    .map(|(k, v)| format!("{k} {:.0}", v.as_f64().unwrap_or(0.0)))
                    .collect();
                println!("    roll-ups: {}", line.join(", "));
            }
            if let Some(d) = f["derived"].as_object().filter(|d| !d.is_empty()) {
                let line: Vec<String> = d
                    .iter()
                    .map(|(k, v)| format!("{k} {:.3}", v.as_f64().unwrap_or(0.0)))
                    .collect();
                println!("    derived: {}", line.join(", "));
            }
        } else if let Some(counts) = f["counts"].as_object() {
            for (m, v) in counts {
                println!("      {:<16} {}", m, indent(v.as_str().unwrap_or(""), 23));
            }
        }
    }
    Ok(())
}

/// Per function, what one run from `main` executes (004 §III.C.5 contexts summed): its calls
/// and its own instructions over all of them, the numbers `validate` compares with callgrind.
fn add_run_totals(
    json: &mut serde_json::Value,
    analysis: &metron_static::analysis::Analysis,
    arch: &metron_static::category::Architecture,
    binding: &Binding,
) -> Result<(), StaticError> {
    let program = &analysis.program;
    if program.main(&analysis.binary).is_none() {
        return Ok(());
    }
    let blocks = program.block_executions(&analysis.binary, binding)?;
    let calls = program.calls_in(&analysis.binary, &blocks);
    let Some(list) = json["functions"].as_array_mut() else {
        return Ok(());
    };
    let position: std::collections::HashMap<String, usize> = list
        .iter()
        .enumerate()
        .filter_map(|(n, e)| Some((e["symbol"].as_str()?.to_string(), n)))
        .collect();
    for (((i, model), blocks), calls) in program.functions.iter().zip(&blocks).zip(calls) {
        let function = &analysis.binary.functions[*i];
        let run = model.counts(function, arch, blocks, None);
        if let Some(entry) = position
            .get(&function.symbol)
            .and_then(|&n| list.get_mut(n))
        {
            entry["run"] = serde_json::json!({
                "calls": calls,
                "total": run.total,
                "categories": run.by_category,
            });
        }
    }
    Ok(())
}

/// A formula's later pieces (one per line) aligned under its first.
fn indent(text: &str, by: usize) -> String {
    text.replace('\n', &format!("\n{}", " ".repeat(by)))
}

fn validate(args: ValidateArgs, global: &GlobalOpts) -> CliResult {
    let arch = architecture(&args.source)?;
    let analysis = run_analysis(&args.binary, &args.source)?;
    let b = binding(&args.source.params)?;
    let dir = tempfile::tempdir().map_err(CliError::failure)?;
    if !global.quiet {
        eprintln!("running {} under callgrind ...", args.binary.display());
    }
    let profile = run_callgrind(&args.binary, &args.args, dir.path()).map_err(|e| match e {
        StaticError::Tool(t) => CliError::input(t),
        other => CliError::failure(other),
    })?;
    let counts = profile.object(&args.binary).ok_or_else(|| {
        CliError::failure(format!(
            "callgrind's profile has no counts for {}",
            args.binary.display()
        ))
    })?;
    let comparisons = compare_program(&analysis.binary, &analysis.program, &arch, &b, counts)
        .map_err(|e| match e {
            StaticError::Symbolic(s) => CliError::input(format!(
                "{s}; give it with --param NAME=VALUE (see `metron static BIN` for the parameters)"
            )),
            other => CliError::failure(other),
        })?;
    if let Some(path) = &args.record_branch_profile {
        let recorded = metron_static::branch_profile::record(
            &analysis.binary,
            &analysis.source,
            args.source.mira_compat,
            &b,
            counts,
        )
        .map_err(CliError::failure)?;
        metron_static::branch_profile::save(&recorded, path).map_err(CliError::failure)?;
        if !global.quiet {
            eprintln!(
                "wrote {} ({} data-dependent branches)",
                path.display(),
                recorded.branches.len()
            );
        }
    }
    let perf = if args.perf {
        let binary = std::path::absolute(&args.binary).unwrap_or(args.binary.clone());
        Some(perf_check(&binary, &args.args, &profile).map_err(CliError::failure)?)
    } else {
        None
    };
    if global.json {
        let rows: Vec<serde_json::Value> = comparisons.iter().map(comparison_json).collect();
        // Without --perf the rows alone, as before; with it an object holding both.
        let value = match &perf {
            None => serde_json::json!(rows),
            Some(p) => serde_json::json!({
                "rows": rows,
                "perf": {
                    "instructions_user": p.instructions_user.as_ref().ok(),
                    "unavailable": p.instructions_user.as_ref().err(),
                    "callgrind_total": p.callgrind_total,
                    "difference_percent": p.difference_percent(),
                },
            }),
        };
        println!(
            "{}",
            serde_json::to_string_pretty(&value).map_err(CliError::failure)?
        );
        return unevaluated_error(&comparisons);
    }
    println!(
        "{:<56} {:>14} {:>14} {:>9}",
        "region", "predicted", "measured", "error %"
    );
    for c in &comparisons {
        if let Some(why) = &c.unevaluated {
            if !c.region.contains("loop@") {
                println!(
                    "{:<56} {:>14} {:>14.0}   not evaluated: {why}",
                    c.region, "?", c.measured.total
                );
            }
            continue;
        }
        println!(
            "{:<56} {:>14.0} {:>14.0} {:>9.3}",
            c.region,
            c.predicted.total,
            c.measured.total,
            c.total_error_percent()
        );
        if !c.region.contains("loop@") && c.measured.total > 0.0 {
            for (cat, p, m, e) in c.categories(0.01) {
                println!("    {:<52} {:>14.0} {:>14.0} {:>9.3}", cat, p, m, e);
            }
        }
    }
    if let Some(p) = &perf {
        let callgrind = p.callgrind_total.map_or("?".to_string(), |t| t.to_string());
        match (&p.instructions_user, p.difference_percent()) {
            (Ok(v), Some(d)) => println!(
                "whole run: perf instructions:u {v:.0}, callgrind {callgrind} ({d:.3}% apart)"
            ),
            (Ok(v), None) => {
                println!("whole run: perf instructions:u {v:.0}, callgrind {callgrind}")
            }
            (Err(why), _) => println!("whole run: perf comparison skipped: {why}"),
        }
    }
    unevaluated_error(&comparisons)
}

/// The functions compared are shown; those whose counts need a parameter not given make the
/// command fail (exit 2) naming what to give.
fn unevaluated_error(comparisons: &[Comparison]) -> CliResult {
    let missing: std::collections::BTreeSet<&str> = comparisons
        .iter()
        .filter_map(|c| c.unevaluated.as_deref())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(CliError::input(format!(
        "{} (see `metron static BIN` for the parameters)",
        missing.into_iter().collect::<Vec<_>>().join("; ")
    )))
}

fn comparison_json(c: &Comparison) -> serde_json::Value {
    serde_json::json!({
        "region": c.region,
        "predicted": c.predicted,
        "measured": c.measured,
        "error_percent": c.total_error_percent(),
        "unevaluated": c.unevaluated,
        "categories": c.categories(0.01).into_iter().map(|(k, p, m, e)| serde_json::json!({
            "category": k, "predicted": p, "measured": m, "error_percent": e
        })).collect::<Vec<_>>(),
    })
}
