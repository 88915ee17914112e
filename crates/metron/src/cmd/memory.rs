//! `metron memory`: static memory-access counts on LLVM IR (003 Ch. 4), and their dynamic
//! ground truth (`trace`, `validate`).

use std::path::PathBuf;

use clap::{Args, Subcommand};
use metron_memory::trace::{compare, run_traced, SiteTable};
use metron_memory::{frontend, Analysis, BranchPolicy, MemoryError};
use metron_symbolic::Binding;

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
    /// A C file, or LLVM IR (.ll, .bc).
    pub file: PathBuf,
    /// The opt pass pipeline that makes the IR canonical ("none" to take the IR as it is).
    #[arg(long, default_value = frontend::DEFAULT_PIPELINE)]
    pub passes: String,
    /// Value of a parameter (a function argument, or trip_<loop> for an unknown count).
    #[arg(long, short = 'p', value_name = "NAME=INT")]
    pub param: Vec<String>,
    /// If-else nodes: max (003's worst case), mean, sum, BLOCK=PROB,... for the arms, or
    /// annotations (`#pragma metron branch(P)` / `// metron: branch(P)` before an `if`).
    #[arg(long, default_value = "max")]
    pub branch_policy: String,
    /// Per-branch probabilities from a profile written by `metron memory trace
    /// --write-branch-profile` (overrides the policy for the branches it holds).
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
    /// Write the taken/not-taken counts of every conditional branch executed to FILE, for
    /// `analyze --branch-profile FILE`.
    #[arg(long, value_name = "FILE")]
    pub write_branch_profile: Option<PathBuf>,
    /// Arguments of the program.
    #[arg(last = true)]
    pub args: Vec<String>,
}

fn input(e: MemoryError) -> CliError {
    CliError::input(e)
}

fn parse_binding(params: &[String]) -> CliResult<Binding> {
    let mut b = Binding::new();
    for p in params {
        let (k, v) = p
            .split_once('=')
            .ok_or_else(|| CliError::input(format!("--param `{p}`: expected NAME=INTEGER")))?;
        let v: i64 = v
            .trim()
            .parse()
            .map_err(|_| CliError::input(format!("--param `{p}`: `{v}` is not an integer")))?;
        b.insert(k.trim().to_string(), v);
    }
    Ok(b)
}

fn load(c: &Common, global: &GlobalOpts) -> CliResult<(Analysis, BranchPolicy, Binding)> {
    let annotated = c.branch_policy == "annotations";
    let mut policy: BranchPolicy = if annotated {
        BranchPolicy::Probabilities(Default::default())
    } else {
        c.branch_policy.parse().map_err(CliError::input)?
    };
    let binding = parse_binding(&c.param)?;
    if !global.quiet && !global.json {
        eprintln!("compiling {} (passes: {}) ...", c.file.display(), c.passes);
    }
    let a = Analysis::load(&c.file, &c.passes).map_err(input)?;
    let mut probabilities = std::collections::BTreeMap::new();
    if annotated {
        let (p, notes) = a.annotation_probabilities().map_err(input)?;
        if p.is_empty() {
            return Err(CliError::input(format!(
                "{}: --branch-policy annotations, but no `#pragma metron branch(P)` or `// metron: branch(P)` before an `if` was found",
                c.file.display()
            )));
        }
        if !global.quiet {
            notes.iter().for_each(|n| eprintln!("note: {n}"));
        }
        probabilities.extend(p);
    }
    if let Some(file) = &c.branch_profile {
        probabilities.extend(metron_memory::branch::read_profile_file(file).map_err(input)?);
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
    if global.json {
        let v = serde_json::json!({
            "file": a.common.file,
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
        a.common.file.display(),
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
    if let Some(dst) = &a.write_branch_profile {
        let profile = metron_memory::trace::branch_profile(&analysis.module, &dynamic);
        std::fs::write(dst, metron_memory::branch::profile_text(&profile))
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
    let counts = analysis
        .count(&a.function, &policy, &binding)
        .map_err(input)?;
    let rows = compare(&table, &counts, &binding, &dynamic).map_err(input)?;
    let all_equal = rows.iter().all(|r| r.equal);
    let static_total = counts
        .n_k_value
        .clone()
        .unwrap_or_else(|| counts.n_k.to_string());
    let dynamic_total: u64 = rows.iter().map(|r| r.dynamic_count).sum();
    if global.json {
        let v = serde_json::json!({"function": a.function, "params": binding, "branch_policy": policy, "equal": all_equal, "static_total": static_total, "dynamic_total": dynamic_total, "rows": rows});
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
    }
    if all_equal {
        Ok(())
    } else {
        Err(CliError::failure(format!(
            "static and dynamic counts differ for {} (data-dependent branches are only bounded by the branch policy)",
            a.function
        )))
    }
}
