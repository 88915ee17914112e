//! `metron memory`: static memory-access counts on LLVM IR (003 Ch. 4), and their dynamic
//! ground truth (`trace`, `validate`).

use std::path::PathBuf;

use clap::{Args, Subcommand};
use metron_memory::activation::ActivationSum;
use metron_memory::sources::BuildInput;
use metron_memory::trace::{compare_activations, run_traced, SiteTable};
use metron_memory::{frontend, Analysis, BranchPolicy, MemoryError};
use metron_symbolic::Binding;

use super::build_opts::BuildOpts;

use crate::error::{CliError, CliResult};
use crate::GlobalOpts;

#[derive(Args, Debug)]
pub struct MemoryArgs {
    #[command(subcommand)]
    pub command: MemoryCommand,
}

#[derive(Subcommand, Debug)]
pub enum MemoryCommand {
    /// Reads and writes per function and variable, N_k as a formula and a value.
    #[command(after_help = "Examples:\n  \
        metron memory analyze examples/memory/kernels.c --function matmul --param n=100\n  \
        metron memory analyze kernel.ll --branch-policy mean --json")]
    Analyze(AnalyzeArgs),
    /// Run the program instrumented and count the accesses made while --function runs.
    Trace(TraceArgs),
    /// Compare static counts with the traced counts per function and variable (exit 1 if
    /// they differ).
    #[command(after_help = "Example:\n  \
        metron memory validate examples/memory/kernels.c --function matmul --param n=50 -- matmul 50")]
    Validate(TraceArgs),
}

#[derive(Args, Debug, Clone)]
pub struct Common {
    /// C sources (linked into one module), or one LLVM IR file (.ll, .bc); may be left out
    /// with --compile-commands (then every file of the database).
    #[arg(required_unless_present = "compile_commands")]
    pub files: Vec<PathBuf>,
    #[command(flatten)]
    pub build: BuildOpts,
    /// The opt pass pipeline that makes the IR canonical ("none" to take the IR as it is).
    #[arg(long, default_value = frontend::DEFAULT_PIPELINE)]
    pub passes: String,
    /// If-else nodes: max (003's worst case), mean, sum, BLOCK=PROB,... for the arms, or
    /// annotations (`#pragma metron branch(P)` / `// metron: branch(P)` before an `if`).
    #[arg(long, default_value = "max")]
    pub branch_policy: String,
    /// Per-branch probabilities, and trip counts of loops that exit on loaded data, from a
    /// profile written by `metron memory trace --write-branch-profile` (overrides the policy
    /// for the branches it holds).
    #[arg(long, value_name = "FILE")]
    pub branch_profile: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct AnalyzeArgs {
    #[command(flatten)]
    pub common: Common,
    /// Only these functions (repeatable); default: every function defined.
    #[arg(long, short = 'f')]
    pub function: Vec<String>,
    /// Print the access tree too.
    #[arg(long)]
    pub tree: bool,
}

#[derive(Args, Debug)]
pub struct TraceArgs {
    #[command(flatten)]
    pub common: Common,
    /// The function whose accesses are counted (with everything it calls).
    #[arg(long, short = 'f')]
    pub function: String,
    /// Also write the access stream (address, site, read/write) to this file.
    #[arg(long, value_name = "FILE")]
    pub stream: Option<PathBuf>,
    /// Report how the accesses are spread over time (needs the stream; windows of
    /// --window IR instructions).
    #[arg(long)]
    pub bursts: bool,
    #[arg(long, default_value_t = 1000)]
    pub window: u64,
    /// Write the taken/not-taken counts of every conditional branch executed, the iterations
    /// of loops that exit on loaded data and the function's arguments to FILE, for
    /// `analyze --branch-profile FILE`.
    #[arg(long, value_name = "FILE")]
    pub write_branch_profile: Option<PathBuf>,
    /// validate: skip the independent counter (valgrind lackey on the -O0 program).
    #[arg(long)]
    pub no_independent: bool,
    /// Arguments of the program.
    #[arg(last = true)]
    pub args: Vec<String>,
}

fn input(e: MemoryError) -> CliError {
    CliError::input(e)
}

impl Common {
    fn label(&self) -> String {
        if self.files.is_empty() {
            return self
                .build
                .compile_commands
                .as_ref()
                .map(|p| p.display().to_string())
                .unwrap_or_default();
        }
        self.files
            .iter()
            .map(|f| f.display().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Parameters the counts of `functions` know: their arguments and the symbols in N_k.
fn known_parameters(
    reports: &[&metron_memory::FunctionCounts],
) -> std::collections::BTreeSet<String> {
    let mut known = std::collections::BTreeSet::new();
    for c in reports {
        known.extend(c.params.iter().cloned());
        known.extend(c.n_k.parameters());
    }
    known
}

fn load(c: &Common, global: &GlobalOpts) -> CliResult<(Analysis, BranchPolicy, Binding)> {
    let annotated = c.branch_policy == "annotations";
    let mut policy: BranchPolicy = if annotated {
        BranchPolicy::Probabilities(Default::default())
    } else {
        c.branch_policy.parse().map_err(CliError::input)?
    };
    let binding = c.build.binding()?;
    if !global.quiet && !global.json {
        eprintln!("compiling {} (passes: {}) ...", c.label(), c.passes);
    }
    let build = BuildInput {
        files: c.files.clone(),
        cflags: c.build.cflags()?,
        compile_commands: c.build.compile_commands.clone(),
    };
    let mut a = Analysis::load_build(&build, &c.passes).map_err(input)?;
    let mut probabilities = std::collections::BTreeMap::new();
    if annotated {
        let (p, notes) = a.annotation_probabilities().map_err(input)?;
        if p.is_empty() {
            return Err(CliError::input(format!(
                "{}: --branch-policy annotations, but no `#pragma metron branch(P)` or `// metron: branch(P)` before an `if` was found",
                c.label()
            )));
        }
        if !global.quiet {
            notes.iter().for_each(|n| eprintln!("note: {n}"));
        }
        probabilities.extend(p);
    }
    if let Some(file) = &c.branch_profile {
        let text = std::fs::read_to_string(file)
            .map_err(|e| CliError::input(format!("{}: {e}", file.display())))?;
        let name = file.display().to_string();
        probabilities.extend(metron_memory::branch::read_profile(&text, &name).map_err(input)?);
        let notes = a.use_profile(&text, &name).map_err(input)?;
        if !global.quiet {
            notes.iter().for_each(|n| eprintln!("note: {n}"));
        }
    }
    if !probabilities.is_empty() {
        policy = match policy {
            BranchPolicy::Probabilities(mut p) => {
                p.extend(probabilities);
                BranchPolicy::Probabilities(p)
            }
            _ => BranchPolicy::Probabilities(probabilities),
        };
    }
    Ok((a, policy, binding))
}

pub fn run(args: MemoryArgs, global: &GlobalOpts) -> CliResult {
    match args.command {
        MemoryCommand::Analyze(a) => analyze(a, global),
        MemoryCommand::Trace(a) => trace(a, global, false),
        MemoryCommand::Validate(a) => trace(a, global, true),
    }
}

fn show(value: &Option<String>, formula: &metron_symbolic::Piecewise) -> String {
    match value {
        Some(v) => v.clone(),
        None => formula.to_string().replace('\n', "; "),
    }
}

fn analyze(a: AnalyzeArgs, global: &GlobalOpts) -> CliResult {
    let (analysis, policy, binding) = load(&a.common, global)?;
    let functions = if a.function.is_empty() {
        analysis.functions()
    } else {
        a.function.clone()
    };
    let mut reports = Vec::new();
    for f in &functions {
        reports.push(analysis.report(f, &policy, &binding).map_err(input)?);
    }
    a.common.build.check_known(
        &binding,
        &known_parameters(&reports.iter().map(|r| &r.counts).collect::<Vec<_>>()),
    )?;
    if global.json {
        let v = serde_json::json!({
            "files": analysis.prepared.sources,
            "pipeline": analysis.prepared.pipeline,
            "clang_flags": analysis.prepared.clang_flags,
            "branch_policy": policy,
            "params": binding,
            "functions": reports,
        });
        println!(
            "{}",
            serde_json::to_string_pretty(&v).map_err(CliError::failure)?
        );
        return Ok(());
    }
    println!(
        "{}  (passes: {}, branch policy: {})",
        a.common.label(),
        analysis.prepared.pipeline,
        match &a.common.branch_profile {
            Some(f) => format!("{} + profile {}", a.common.branch_policy, f.display()),
            None => a.common.branch_policy.clone(),
        }
    );
    for r in &reports {
        let c = &r.counts;
        println!();
        println!("function {}({})", c.function, c.params.join(", "));
        println!("  N_k = {}", c.n_k.to_string().replace('\n', "; "));
        if let Some(v) = &c.n_k_value {
            println!("      = {v}");
        }
        if r.recursive {
            println!("  recursive (its recursive calls are not counted)");
        }
        for l in &r.loops {
            println!(
                "  loop %{} (depth {}): trip count {}  [{}]",
                l.header,
                l.depth,
                l.backedge_taken
                    .map(|a| a.add(&metron_memory::scev::Affine::constant(1))),
                l.source
            );
            // Derived parameters: a parametric step's q, a tile loop's sum s over the tiles.
            let defs = (l.derived.iter().map(|d| (&d.name, &d.definition)))
                .chain(l.tile.iter().map(|t| (&t.name, &t.definition)));
            for (name, definition) in defs {
                let v = c
                    .derived
                    .get(name)
                    .map_or(String::new(), |v| format!(" = {v}"));
                println!("    {name} = {definition}{v}");
            }
        }
        println!(
            "  {:<12} {:<20} {:<10} {:>14} {:>14}",
            "function", "variable", "class", "reads", "writes"
        );
        for v in &c.variables {
            let class = format!("{:?}", v.variable.class).to_lowercase();
            println!(
                "  {:<12} {:<20} {:<10} {:>14} {:>14}{}",
                v.function,
                v.variable.name,
                class,
                show(&v.reads_value, &v.reads),
                show(&v.writes_value, &v.writes),
                if v.intrinsic {
                    "  (memcpy/memset/memmove bytes)"
                } else {
                    ""
                }
            );
        }
        if a.tree {
            println!(
                "  tree: {}",
                serde_json::to_string(&r.tree).map_err(CliError::failure)?
            );
        }
        if !global.quiet {
            for n in &c.notes {
                println!("  note: {n}");
            }
        }
    }
    Ok(())
}

fn trace(a: TraceArgs, global: &GlobalOpts, validate: bool) -> CliResult {
    let (analysis, policy, binding) = load(&a.common, global)?;
    let counts = analysis
        .count(&a.function, &policy, &binding)
        .map_err(input)?;
    a.common
        .build
        .check_known(&binding, &known_parameters(&[&counts]))?;
    let dir = tempfile::tempdir().map_err(CliError::failure)?;
    if !global.quiet && !global.json {
        eprintln!("building and running the instrumented program ...");
    }
    let dynamic = run_traced(
        &analysis.prepared.ir,
        &analysis.module,
        &a.function,
        &a.args,
        dir.path(),
        a.stream.is_some() || a.bursts,
    )
    .map_err(input)?;
    let bursts = match (&dynamic.stream, a.bursts) {
        (Some(p), true) => {
            let recs = metron_memory::trace::read_stream(p).map_err(input)?;
            metron_memory::trace::burstiness(&recs, a.window)
        }
        _ => None,
    };
    if let (Some(dst), Some(src)) = (&a.stream, &dynamic.stream) {
        // (also when only --bursts asked for the stream: then --stream is None)
        std::fs::copy(src, dst)
            .map_err(|e| CliError::failure(format!("{}: {e}", dst.display())))?;
    }
    let activations =
        metron_memory::loop_profile::activation_records(&analysis.model, &a.function, &dynamic);
    if let Some(dst) = &a.write_branch_profile {
        let profile = metron_memory::trace::branch_profile(&analysis.module, &dynamic);
        let loops = metron_memory::loop_profile::loop_records(
            &analysis.module,
            &analysis.data_loops,
            &dynamic,
        );
        let text = metron_memory::branch::profile_text(&profile)
            + &metron_memory::loop_profile::profile_text(&loops, &activations);
        std::fs::write(dst, text)
            .map_err(|e| CliError::failure(format!("{}: {e}", dst.display())))?;
        if !global.quiet && !global.json {
            eprintln!(
                "branch profile ({} branches) written to {}",
                profile.len(),
                dst.display()
            );
        }
    }
    let table = SiteTable::new(&analysis.module);
    if !validate {
        let mut per: std::collections::BTreeMap<(String, String, String), u64> = Default::default();
        for (gid, n) in &dynamic.per_site {
            if let Some((f, _, s)) = table.sites.get(*gid) {
                *per.entry((
                    f.clone(),
                    s.variable.name.clone(),
                    format!("{:?}", s.kind).to_lowercase(),
                ))
                .or_default() += n;
            }
        }
        if global.json {
            let rows: Vec<_> = per
                .iter()
                .map(|((f, v, k), n)| serde_json::json!({"function": f, "variable": v, "kind": k, "count": n}))
                .collect();
            let v = serde_json::json!({"function": a.function, "entries": dynamic.entries, "exit_code": dynamic.exit_code, "counts": rows, "stream": a.stream, "bursts": bursts});
            println!(
                "{}",
                serde_json::to_string_pretty(&v).map_err(CliError::failure)?
            );
        } else {
            println!(
                "{} entered {} time(s); program exit {}",
                a.function, dynamic.entries, dynamic.exit_code
            );
            println!(
                "{:<14} {:<20} {:<6} {:>14}",
                "function", "variable", "kind", "count"
            );
            for ((f, v, k), n) in &per {
                println!("{f:<14} {v:<20} {k:<6} {n:>14}");
            }
            if let Some(b) = &bursts {
                println!(
                    "bursts: {} accesses over {} IR instructions (rate {:.4}); gap mean {:.2}, CV {:.2}; \
                     per {}-instruction window: Fano factor {:.2}, {:.1}% of accesses in windows above twice the mean",
                    b.accesses, b.instructions, b.rate, b.mean_gap, b.gap_cv, b.window, b.fano, 100.0 * b.in_bursts
                );
            }
        }
        return Ok(());
    }
    // 003 Eq. 3.1 counts one activation; the run made `activations` (norms: n, then n - 1).
    let sum = ActivationSum::from_run(
        &analysis.model,
        &counts,
        &binding,
        &activations,
        dynamic.activations_lost,
    )
    .map_err(input)?;
    let rows = compare_activations(&table, &counts, &sum, &dynamic).map_err(input)?;
    let all_equal = rows.iter().all(|r| r.equal);
    let static_total = sum
        .evaluate_text(&counts.n_k)
        .unwrap_or_else(|| counts.n_k.to_string());
    let dynamic_total: u64 = rows.iter().map(|r| r.dynamic_count).sum();
    let independent = independent_counts(&a, &analysis, &counts, &sum, &rows, global)?;
    if !global.quiet && !global.json {
        sum.notes.iter().for_each(|n| eprintln!("note: {n}"));
    }
    if global.json {
        let v = serde_json::json!({"function": a.function, "params": binding, "activations": activations, "activation_notes": sum.notes, "branch_policy": policy, "equal": all_equal, "static_total": static_total, "dynamic_total": dynamic_total, "rows": rows, "independent": independent, "notes": counts.notes});
        println!(
            "{}",
            serde_json::to_string_pretty(&v).map_err(CliError::failure)?
        );
    } else {
        println!(
            "{:<14} {:<20} {:<6} {:>14} {:>14}  ",
            "function", "variable", "kind", "static", "dynamic"
        );
        for r in &rows {
            println!(
                "{:<14} {:<20} {:<6} {:>14} {:>14}  {}",
                r.function,
                r.variable,
                format!("{:?}", r.kind).to_lowercase(),
                r.static_count,
                r.dynamic_count,
                if r.equal { "=" } else { "DIFFERENT" }
            );
        }
        println!("{:<41} {:>14} {:>14}", "N_k", static_total, dynamic_total);
        if let Some(i) = &independent {
            print_side_by_side(i);
        }
    }
    if let Some(i) = independent
        .as_ref()
        .filter(|i| !i.agrees && i.reasons.is_empty())
    {
        return Err(CliError::failure(format!(
            "the independent counter (valgrind lackey, -O0) disagrees with the static count for {}: {} reads and {} writes against {} and {}",
            a.function,
            i.independent.reads,
            i.independent.writes,
            i.static_reads.as_deref().unwrap_or("?"),
            i.static_writes.as_deref().unwrap_or("?")
        )));
    }
    if all_equal {
        Ok(())
    } else {
        // Say why, from what the analysis itself flagged as inexact.
        let reasons = metron_memory::explain::inexact_reasons(&analysis.model, &counts);
        let mut why = if reasons.is_empty() {
            "no construct was flagged as inexact: do the --param values match the run's arguments? (otherwise please report this program)".to_string()
        } else {
            reasons.join("; ")
        };
        if sum.is_several() {
            why.push_str(&format!(
                " (N_k summed over the run's activations: {})",
                sum.notes.join("; ")
            ));
        }
        Err(CliError::failure(format!(
            "static and dynamic counts differ for {}: {why}",
            a.function
        )))
    }
}

fn independent_counts(
    a: &TraceArgs,
    analysis: &Analysis,
    counts: &metron_memory::FunctionCounts,
    sum: &ActivationSum,
    rows: &[metron_memory::trace::ValidationRow],
    global: &GlobalOpts,
) -> CliResult<Option<metron_memory::independent::SideBySide>> {
    use metron_memory::independent;
    let note = |m: &str| {
        if !global.quiet {
            eprintln!("note: {m}");
        }
    };
    if a.no_independent {
        return Ok(None);
    }
    if analysis.prepared.jobs.is_empty() {
        note("no independent count for IR input (it needs the C sources to build at -O0)");
        return Ok(None);
    }
    if let Err(e) = metron_measure::tool::VALGRIND.locate() {
        note(&format!("no independent count: {e}"));
        return Ok(None);
    }
    if !global.quiet && !global.json {
        eprintln!("running the -O0 build under valgrind lackey (independent counter) ...");
    }
    let dir = tempfile::tempdir().map_err(CliError::failure)?;
    let exe =
        independent::build(&analysis.prepared.jobs, &a.function, dir.path()).map_err(input)?;
    let nargs = analysis
        .module
        .function(&a.function)
        .map(|f| f.args.len())
        .unwrap_or(0);
    let ind = independent::run(&exe, &a.args, nargs, dir.path()).map_err(input)?;
    Ok(Some(independent::side_by_side_activations(
        &analysis.model,
        counts,
        sum,
        rows,
        ind,
    )))
}

fn print_side_by_side(i: &metron_memory::independent::SideBySide) {
    println!();
    println!("{:<34} {:>14} {:>14}", "all variables", "reads", "writes");
    let q = |s: &Option<String>| s.clone().unwrap_or_else(|| "?".into());
    println!(
        "{:<34} {:>14} {:>14}",
        "static (IR analysis)",
        q(&i.static_reads),
        q(&i.static_writes)
    );
    println!(
        "{:<34} {:>14} {:>14}",
        "traced (instrumented IR)", i.traced_reads, i.traced_writes
    );
    println!(
        "{:<34} {:>14} {:>14}  {}",
        "independent (valgrind lackey, -O0)",
        i.independent.reads,
        i.independent.writes,
        if i.agrees { "=" } else { "DIFFERENT" }
    );
    println!(
        "  (independent: {} activation(s); {} stack and {} constant-pool accesses excluded)",
        i.independent.activations, i.independent.stack_excluded, i.independent.constant_excluded
    );
    // Where the counts agree, the constructs that could have made them differ are noise
    // (they stay in `--json`).
    if !i.agrees {
        for r in &i.reasons {
            println!("  why they may differ: {r}");
        }
    }
}
