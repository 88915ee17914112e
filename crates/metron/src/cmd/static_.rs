//! `metron static`: parametric instruction-count models from a binary plus its source (004),
//! and `metron static validate`: the model against callgrind's counts.

use std::path::PathBuf;

use clap::{Args, Subcommand};
use metron_static::analysis::{analyse, Analysis, SourceOptions};
use metron_static::category::Architecture;
use metron_static::report::{CountsReport, FunctionReport, ModelReport, ValidationReport};
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
    /// Without a branch profile, leave counts that follow data at even odds instead of the
    /// odds of `main` interpreted at the `--param` sizes.
    #[arg(long)]
    pub no_interpreted_profile: bool,
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
    let analysis = analyse(
        binary,
        &SourceOptions {
            source: args.source.clone(),
            cflags,
            compile_commands: args.compile_commands.clone(),
            mira_compat: args.mira_compat,
            branch_profile: args.branch_profile.clone(),
            sizes: binding(&args.params)?,
            no_interpreted_profile: args.no_interpreted_profile,
        },
    )
    .map_err(input)?;
    // Said even with -q: counts that follow data rest on a run the user did not ask for.
    if let Some(p) = &analysis.interpreted_profile {
        let sizes: Vec<String> = p.sizes.iter().map(|(k, v)| format!("{k}={v}")).collect();
        eprintln!(
            "note: counts that follow data take the odds of `main` interpreted at {} \
             ({} branches, {} loop bounds, {} blocks; --branch-profile or \
             --no-interpreted-profile chooses otherwise)",
            if sizes.is_empty() {
                "its own sizes".to_string()
            } else {
                sizes.join(", ")
            },
            p.branches,
            p.loop_bounds,
            p.shares
        );
    }
    // Said even with -q: the model rests on headers the user did not name.
    for dir in &analysis.include_dirs_found {
        eprintln!(
            "note: a header the source includes was found in {} (added -I; --cflags chooses otherwise)",
            dir.display()
        );
    }
    // Said even with -q: the counts rest on sizes the binary was not built with.
    for m in &analysis.size_mismatches {
        eprintln!(
            "warning: {}:{}: `{}` is {} bytes in the binary but {} in the source as parsed: \
             the binary was built with other sizes (-D); pass its flags with --cflags",
            m.file.display(),
            m.line,
            m.array,
            m.binary_bytes,
            m.source_bytes
        );
    }
    Ok(analysis)
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
    let mut report = ModelReport::build(formulas, &arch, evaluated.then_some(&b)).map_err(input)?;
    report.interpreted_profile = analysis.interpreted_profile.clone();
    if evaluated {
        report
            .add_run(&analysis.binary, &analysis.program, &arch, &b)
            .map_err(input)?;
    }
    if let Some(name) = &args.function {
        // A source name selects the function and the clones and parts the compiler made of it.
        let parts = analysis.binary.parts(name).map_err(input)?;
        let symbols: Vec<&str> = parts.iter().map(|f| f.symbol.as_str()).collect();
        report.retain_symbols(&symbols);
    }
    if global.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&report).map_err(CliError::failure)?
        );
        return Ok(());
    }
    for f in &report.functions {
        print_function(f);
    }
    Ok(())
}

/// One function of the model as a table: loops, calls, then its counts.
fn print_function(f: &FunctionReport) {
    let parameters: Vec<&str> = f.parameters.iter().map(String::as_str).collect();
    println!(
        "{}  ({})  parameters: [{}]",
        f.name,
        f.model_name,
        parameters.join(", ")
    );
    if !f.fixed.is_empty() {
        let fixed: Vec<String> = f.fixed.iter().map(|(p, v)| format!("{p} = {v}")).collect();
        println!(
            "    fixed by the compiler (DWARF constants): {}; counted at these sizes",
            fixed.join(", ")
        );
    }
    for l in &f.loops {
        println!(
            "    loop {} depth {} line {}  iterations {}{}",
            l.header,
            l.depth,
            l.source_line.map_or("null".to_string(), |x| x.to_string()),
            indent(&l.iterations, 8),
            l.note
                .as_ref()
                .map(|n| format!("  NOTE: {n}"))
                .unwrap_or_default()
        );
        if let Some(c) = &l.counted_from {
            println!("        copy counted from {c}");
        }
    }
    for c in &f.calls {
        let bound: Vec<String> = c
            .arguments
            .iter()
            .map(|(q, v)| format!("{q} = {v}"))
            .collect();
        println!(
            "    call {} (line {})  times {}{}",
            c.callee,
            line(c.line),
            indent(&c.times, 8),
            if bound.is_empty() {
                String::new()
            } else {
                format!("  with {}", bound.join(", "))
            }
        );
    }
    for e in &f.external_calls {
        println!(
            "    external call {} (line {})  times {}  {}",
            e.callee,
            line(e.line),
            e.times.as_deref().unwrap_or("null"),
            match e.cost_per_call {
                Some(c) => format!("cost {c} per call (call_cost annotation)"),
                None => "NOT ANALYSED: callee cost not counted".to_string(),
            }
        );
    }
    if let Some(c) = &f.calibration {
        let unfitted = match (c.unfitted.len(), c.approximated.len()) {
            (0, _) => String::new(),
            (n, 0) => format!(", {n} disagree with the runs and fit no combination (left as modelled)"),
            (n, k) => format!(
                ", {n} disagree with the runs and fit no combination ({k} approximated by the combination closest to the runs, the others left as modelled)"
            ),
        };
        let data = match c.data_dependent.len() {
            0 => String::new(),
            n => format!(", {n} follow the data (left as modelled)"),
        };
        let arrays = match (c.address_dependent.len(), c.array_order.is_empty()) {
            (0, _) => String::new(),
            (n, true) => format!(", {n} follow where the arrays are (alias tests: counted for the order they are allocated in)"),
            (n, false) => format!(
                ", {n} follow where the arrays are (alias tests: counted for {} at ascending addresses, the order the caller allocates them in)",
                c.array_order.join(" < ")
            ),
        };
        println!(
            "    checked against {} runs of the machine code: {} block counts refitted{unfitted}{data}{arrays}",
            c.samples,
            c.refitted.len(),
        );
    }
    if let Some(why) = &f.not_checked {
        println!("    not checked against runs of the machine code: {why}");
    }
    // A macro's conditions (`CLAMP`: two `?:`) share a line and a message: printed once,
    // with how many (`--json` keeps them apart).
    let mut said: Vec<(&metron_static::assumption::Assumption, usize)> = Vec::new();
    for a in &f.assumptions {
        let same = |b: &metron_static::assumption::Assumption| {
            (&b.file, b.line, b.kind, &b.reason, &b.counted_as)
                == (&a.file, a.line, a.kind, &a.reason, &a.counted_as)
        };
        match said.iter_mut().find(|(b, _)| same(b)) {
            Some((_, n)) => *n += 1,
            None => said.push((a, 1)),
        }
    }
    for (a, n) in said {
        let many = if n > 1 {
            format!(", {n} on the line")
        } else {
            String::new()
        };
        println!(
            "    DATA-DEPENDENT {}:{} ({}{many}): {}; counted as {}; give the probability with {}",
            a.file,
            a.line,
            a.kind.profile_name(),
            a.reason,
            a.counted_as,
            a.remedy
        );
    }
    print_counts(f);
}

fn line(l: Option<u32>) -> String {
    l.map_or("null".to_string(), |x| x.to_string())
}

/// Formulas per mnemonic, or (under `--param`) the run's and one call's numbers.
fn print_counts(f: &FunctionReport) {
    let values = match &f.counts {
        Some(CountsReport::Formulas(counts)) => {
            for (m, v) in counts {
                println!("      {:<16} {}", m, indent(v, 23));
            }
            return;
        }
        Some(CountsReport::Values(_)) => true,
        None => false,
    };
    if let Some(run) = &f.run {
        println!(
            "    in one run: {:.0} calls, {:.0} instructions of its own",
            run.calls, run.total
        );
    }
    if let Some(names) = &f.unbound {
        println!(
            "    per call: needs {} (bound at its call sites; counted in its callers)",
            names.join(", ")
        );
        return;
    }
    if !values {
        return;
    }
    println!(
        "    per call, callees included: {:.0}",
        f.total.unwrap_or(0.0)
    );
    if let Some(cats) = &f.categories {
        let mut cats: Vec<_> = cats.iter().collect();
        cats.sort_by(|a, b| b.1.partial_cmp(a.1).unwrap_or(std::cmp::Ordering::Equal));
        for (c, v) in cats {
            println!("      {:<48} {:>14.0}", c, v);
        }
    }
    if let Some(r) = &f.rollups {
        let line: Vec<String> = r.iter().map(|(k, v)| format!("{k} {v:.0}")).collect();
        println!("    roll-ups: {}", line.join(", "));
    }
    if let Some(d) = f.derived.as_ref().filter(|d| !d.is_empty()) {
        let line: Vec<String> = d.iter().map(|(k, v)| format!("{k} {v:.3}")).collect();
        println!("    derived: {}", line.join(", "));
    }
}

/// A formula's later pieces (one per line) aligned under its first.
fn indent(text: &str, by: usize) -> String {
    text.replace('\n', &format!("\n{}", " ".repeat(by)))
}

fn validate(args: ValidateArgs, global: &GlobalOpts) -> CliResult {
    let arch = architecture(&args.source)?;
    // A profile recorded from callgrind starts from even odds, not the interpreter's.
    let source = SourceArgs {
        no_interpreted_profile: args.source.no_interpreted_profile
            || args.record_branch_profile.is_some(),
        ..args.source.clone()
    };
    let mut analysis = run_analysis(&args.binary, &source)?;
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
    if let Some(path) = &args.record_branch_profile {
        record_profile(&analysis, &args.source, &b, counts, path, global)?;
        // The table then shows the model as `--branch-profile` gives it (a loop bounded by
        // data has no count without its recorded mean): a fit to this run, not a prediction.
        if !global.quiet {
            eprintln!("note: the counts below use the profile just recorded from this run");
        }
        let with = SourceArgs {
            branch_profile: Some(path.clone()),
            ..args.source.clone()
        };
        analysis = run_analysis(&args.binary, &with)?;
    }
    let comparisons = compare_program(&analysis.binary, &analysis.program, &arch, &b, counts)
        .map_err(|e| match e {
            StaticError::Symbolic(s) => CliError::input(format!(
                "{s}; give it with --param NAME=VALUE (see `metron static BIN` for the parameters)"
            )),
            other => CliError::failure(other),
        })?;
    let perf = if args.perf {
        let binary = std::path::absolute(&args.binary).unwrap_or(args.binary.clone());
        Some(perf_check(&binary, &args.args, &profile).map_err(CliError::failure)?)
    } else {
        None
    };
    if global.json {
        let value = ValidationReport::new(&comparisons, perf.as_ref());
        println!(
            "{}",
            serde_json::to_string_pretty(&value).map_err(CliError::failure)?
        );
        return unevaluated_error(&comparisons);
    }
    print_comparisons(&comparisons, perf.as_ref());
    unevaluated_error(&comparisons)
}

/// `validate --record-branch-profile FILE`: the run's probability of every data-dependent
/// branch and libm error path of every source file.
fn record_profile(
    analysis: &Analysis,
    source: &SourceArgs,
    binding: &Binding,
    counts: &metron_static::callgrind::ObjectCounts,
    path: &std::path::Path,
    global: &GlobalOpts,
) -> CliResult {
    let recorded = metron_static::branch_profile::record_all(
        &analysis.binary,
        &analysis.sources,
        source.mira_compat,
        binding,
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
    Ok(())
}

/// The validation table: per region predicted, measured and error, categories under each
/// function, then the whole-run perf check.
fn print_comparisons(
    comparisons: &[Comparison],
    perf: Option<&metron_static::validate::PerfCheck>,
) {
    println!(
        "{:<56} {:>14} {:>14} {:>9}",
        "region", "predicted", "measured", "error %"
    );
    for c in comparisons {
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
    if let Some(p) = perf {
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
