//! Dynamic ground truth: the canonical IR instrumented so that every load, store and memory
//! intrinsic calls a small runtime that counts it per access site while the analysed
//! function is active, and optionally records the access stream.
//!
//! Stream file format (little endian): the magic `MTRNACC2`, then one 24-byte record per
//! access: `u64 address`, `u64 instruction index` (IR instructions executed in the analysed
//! function and its callees before the access: the program's own clock), `u32 site`,
//! `u32 flags` (bit 0: write; bit 1: memory intrinsic, whose address is the start and whose
//! record stands for `length` bytes). Sites are indexed as in [`SiteTable`].

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use metron_measure::runner::{run_once_with_env, OutputPolicy};
use serde::Serialize;

use crate::access::{access_sites, AccessKind, AccessSite};
use crate::branch::{branch_sites, ProfiledBranch};
use crate::frontend::CLANG;
use crate::ir::{split_top, Inst, Module};
use crate::MemoryError;

/// Every access site of the module, numbered in module order.
#[derive(Clone, Debug, Serialize)]
pub struct SiteTable {
    pub sites: Vec<(String, usize, AccessSite)>,
}

impl SiteTable {
    pub fn new(module: &Module) -> SiteTable {
        let mut sites = Vec::new();
        for f in &module.functions {
            for (i, s) in access_sites(f).into_iter().enumerate() {
                sites.push((f.name.clone(), i, s));
            }
        }
        SiteTable { sites }
    }
}

const RUNTIME: &str = r#"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
static unsigned long long counts[METRON_NSITES + 1];
static unsigned long long entries;
static unsigned long long instructions;
static int depth;
static FILE *stream;
static int opened;
static void open_stream(void) {
  opened = 1;
  const char *p = getenv("METRON_TRACE_STREAM");
  if (p && *p) {
    stream = fopen(p, "wb");
    if (stream) fwrite("MTRNACC2", 1, 8, stream);
  }
}
static void record(uint64_t addr, uint32_t site, uint32_t flags) {
  if (!opened) open_stream();
  if (!stream) return;
  struct { uint64_t a; uint64_t i; uint32_t s; uint32_t f; } r = {addr, instructions, site, flags};
  fwrite(&r, sizeof r, 1, stream);
}
static unsigned long long br_taken[METRON_NBRANCHES + 1], br_total[METRON_NBRANCHES + 1];
void __metron_branch(int32_t id, _Bool cond) {
  if (depth <= 0) return;
  br_total[id]++;
  if (cond) br_taken[id]++;
}
static unsigned long long blocks[METRON_NBLOCKS + 1];
/* Each outermost activation's integer arguments (the parameters of its N_k), kept as
   distinct tuples with their multiplicity so that validate can sum N_k over activations. */
#define METRON_MAXARGS 16
#define METRON_MAXTUPLES 256
static int64_t cur_arg[METRON_MAXARGS];
static unsigned cur_mask, pending;
static struct { int64_t v[METRON_MAXARGS]; unsigned mask; unsigned long long n; } tuples[METRON_MAXTUPLES];
static int ntuples;
static unsigned long long tuples_overflow;
static void commit_activation(void) {
  if (!pending) return;
  pending = 0;
  for (int t = 0; t < ntuples; t++) {
    if (tuples[t].mask != cur_mask) continue;
    int same = 1;
    for (int i = 0; i < METRON_MAXARGS; i++)
      if ((cur_mask >> i & 1u) && tuples[t].v[i] != cur_arg[i]) same = 0;
    if (same) { tuples[t].n++; return; }
  }
  if (ntuples == METRON_MAXTUPLES) { tuples_overflow++; return; }
  for (int i = 0; i < METRON_MAXARGS; i++) tuples[ntuples].v[i] = cur_arg[i];
  tuples[ntuples].mask = cur_mask;
  tuples[ntuples++].n = 1;
}
void __metron_enter(void) {
  if (depth == 0) { cur_mask = 0; pending = 1; }
  depth++; entries++;
}
void __metron_arg(int32_t i, int64_t v) {
  if (depth != 1 || i < 0 || i >= METRON_MAXARGS) return;
  cur_arg[i] = v;
  cur_mask |= 1u << i;
}
void __metron_leave(void) {
  depth--;
  if (depth == 0) commit_activation();
}
void __metron_block(int32_t id, int64_t n) {
  if (depth <= 0) return;
  instructions += (unsigned long long)n;
  blocks[id]++;
}
void __metron_access(int32_t site, int64_t addr, int32_t write) {
  if (depth <= 0) return;
  counts[site]++;
  record((uint64_t)addr, (uint32_t)site, (uint32_t)write);
}
void __metron_memop(int32_t site, int64_t addr, int64_t len, int32_t write) {
  if (depth <= 0) return;
  counts[site] += (unsigned long long)len;
  record((uint64_t)addr, (uint32_t)site, (uint32_t)write | 2u);
}
__attribute__((destructor)) static void metron_dump(void) {
  const char *p = getenv("METRON_TRACE_OUT");
  if (stream) fclose(stream);
  if (!p) return;
  FILE *f = fopen(p, "w");
  if (!f) return;
  fprintf(f, "entries %llu\n", entries);
  for (int i = 0; i < METRON_NSITES; i++)
    if (counts[i]) fprintf(f, "%d %llu\n", i, counts[i]);
  for (int i = 0; i < METRON_NBRANCHES; i++)
    if (br_total[i]) fprintf(f, "b %d %llu %llu\n", i, br_taken[i], br_total[i]);
  for (int i = 0; i < METRON_NBLOCKS; i++)
    if (blocks[i]) fprintf(f, "k %d %llu\n", i, blocks[i]);
  commit_activation();
  for (int t = 0; t < ntuples; t++) {
    fprintf(f, "a %llu", tuples[t].n);
    for (int i = 0; i < METRON_MAXARGS; i++)
      if (tuples[t].mask >> i & 1u) fprintf(f, " %d:%lld", i, (long long)tuples[t].v[i]);
    fprintf(f, "\n");
  }
  if (tuples_overflow) fprintf(f, "o %llu\n", tuples_overflow);
  fclose(f);
}
"#;

/// Rewrites the canonical IR text with calls into the runtime. Only accesses made while
/// `root` is on the stack are counted.
pub fn instrument(ir: &str, module: &Module, root: &str) -> Result<String, MemoryError> {
    if module.function(root).is_none() {
        return Err(MemoryError::NoFunction {
            name: root.into(),
            available: module
                .functions
                .iter()
                .map(|f| f.name.clone())
                .collect::<Vec<_>>()
                .join(", "),
        });
    }
    // line number -> lines to insert before it
    let mut before: BTreeMap<usize, Vec<String>> = BTreeMap::new();
    for (bid, b) in branch_sites(module).iter().enumerate() {
        before.entry(b.line).or_default().push(format!(
            "  call void @__metron_branch(i32 {bid}, {})",
            b.condition
        ));
    }
    let mut id = 0usize;
    let mut tmp = 0usize;
    let mut block = 0usize;
    for f in &module.functions {
        let is_root = f.name == root;
        if is_root {
            if let Some(first) = f.blocks.first().and_then(|b| b.insts.first()) {
                let lines = before.entry(first.line).or_default();
                lines.push("  call void @__metron_enter()".into());
                for (i, ty, name) in integer_arguments(f) {
                    let value = if ty == "i64" {
                        format!("%{name}")
                    } else {
                        lines.push(format!("  %__metron_arg{i} = sext {ty} %{name} to i64"));
                        format!("%__metron_arg{i}")
                    };
                    lines.push(format!("  call void @__metron_arg(i32 {i}, i64 {value})"));
                }
            }
        }
        for b in &f.blocks {
            let block_id = block;
            block += 1;
            // Counted before the block runs: its instructions other than phis.
            let body: Vec<_> = b
                .insts
                .iter()
                .filter(|i| !i.text.contains(" = phi ") && !i.text.contains("@llvm.dbg."))
                .collect();
            if let Some(first) = body.first() {
                let n = body.len();
                before.entry(first.line).or_default().push(format!(
                    "  call void @__metron_block(i32 {block_id}, i64 {n})"
                ));
            }
            for i in &b.insts {
                let rhs = i
                    .text
                    .split_once(" = ")
                    .map(|(_, r)| r)
                    .unwrap_or(&i.text)
                    .trim();
                match &i.kind {
                    Inst::Load { .. } | Inst::Store { .. } => {
                        let op = rhs.split_once(' ').map(|(_, r)| r).unwrap_or("");
                        let op = op
                            .trim_start_matches("volatile ")
                            .trim_start_matches("atomic ");
                        let parts = split_top(op);
                        let ptr = parts.get(1).ok_or_else(|| MemoryError::Parse {
                            file: "canonical IR".into(),
                            line: i.line,
                            message: "expected a pointer operand".into(),
                        })?;
                        let ptr = crate::ir::strip_ordering(ptr);
                        let write = matches!(i.kind, Inst::Store { .. }) as i32;
                        let lines = before.entry(i.line).or_default();
                        lines.push(format!("  %__metron{tmp} = ptrtoint {ptr} to i64"));
                        lines.push(format!("  call void @__metron_access(i32 {id}, i64 %__metron{tmp}, i32 {write})"));
                        tmp += 1;
                        id += 1;
                    }
                    Inst::Atomic { .. } => {
                        let op = rhs.split_once(' ').map(|(_, r)| r).unwrap_or("");
                        let ptr =
                            crate::ir::atomic_pointer(op).ok_or_else(|| MemoryError::Parse {
                                file: "canonical IR".into(),
                                line: i.line,
                                message: "expected a pointer operand".into(),
                            })?;
                        let lines = before.entry(i.line).or_default();
                        lines.push(format!("  %__metron{tmp} = ptrtoint {ptr} to i64"));
                        for write in [0, 1] {
                            lines.push(format!("  call void @__metron_access(i32 {id}, i64 %__metron{tmp}, i32 {write})"));
                            id += 1;
                        }
                        tmp += 1;
                    }
                    Inst::Call {
                        callee: Some(c), ..
                    } if ["llvm.memcpy", "llvm.memmove", "llvm.memset"]
                        .iter()
                        .any(|m| c.starts_with(m)) =>
                    {
                        let open = rhs
                            .find(&format!("@{c}("))
                            .map(|p| p + c.len() + 2)
                            .unwrap_or(0);
                        let inner = &rhs[open..rhs.rfind(')').unwrap_or(rhs.len())];
                        let parts = split_top(inner);
                        let len = parts.get(2).cloned().unwrap_or_default();
                        let lines = before.entry(i.line).or_default();
                        let len_val = format!("%__metron{tmp}");
                        let len = strip_param_attrs(&len);
                        if len.starts_with("i64 ") {
                            lines.push(format!("  {len_val} = add {len}, 0"));
                        } else {
                            lines.push(format!("  {len_val} = zext {len} to i64"));
                        }
                        tmp += 1;
                        let mut ops: Vec<(usize, i32)> = vec![(0, 1)];
                        if !c.starts_with("llvm.memset") {
                            ops.push((1, 0));
                        }
                        for (k, write) in ops {
                            let ptr = parts.get(k).cloned().unwrap_or_default();
                            let ptr = strip_param_attrs(&ptr);
                            lines.push(format!("  %__metron{tmp} = ptrtoint {ptr} to i64"));
                            lines.push(format!(
                                "  call void @__metron_memop(i32 {id}, i64 %__metron{tmp}, i64 {len_val}, i32 {write})"
                            ));
                            tmp += 1;
                            id += 1;
                        }
                    }
                    Inst::Ret if is_root => {
                        before
                            .entry(i.line)
                            .or_default()
                            .push("  call void @__metron_leave()".into());
                    }
                    _ => {}
                }
            }
        }
    }
    let mut out = String::with_capacity(ir.len() * 2);
    for (n, line) in ir.lines().enumerate() {
        if let Some(ins) = before.get(&(n + 1)) {
            for l in ins {
                out.push_str(l);
                out.push('\n');
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out.push_str("\ndeclare void @__metron_enter()\ndeclare void @__metron_leave()\ndeclare void @__metron_access(i32, i64, i32)\ndeclare void @__metron_memop(i32, i64, i64, i32)\ndeclare void @__metron_block(i32, i64)\ndeclare void @__metron_branch(i32, i1)\ndeclare void @__metron_arg(i32, i64)\n");
    Ok(out)
}

/// The integer arguments of `f` (index, type, name) recorded per activation: `i8`..`i64`
/// (C's integer types; `i1` is a `_Bool`, not a size). Only the first 16 are recorded.
fn integer_arguments(f: &crate::ir::Function) -> Vec<(usize, &'static str, String)> {
    f.args
        .iter()
        .enumerate()
        .filter(|(i, _)| *i < 16)
        .filter_map(|(i, (ty, name))| {
            let ty = match ty.split_whitespace().next()? {
                "i8" => "i8",
                "i16" => "i16",
                "i32" => "i32",
                "i64" => "i64",
                _ => return None,
            };
            Some((i, ty, name.clone()))
        })
        .collect()
}

/// `i8* noundef align 8 %p` -> `i8* %p` (parameter attributes are not allowed in `ptrtoint`);
/// a constant-expression value (`bitcast (... @buf to i8*)`) is kept whole.
fn strip_param_attrs(op: &str) -> String {
    let op = op.trim();
    let Some((ty, mut rest)) = op.split_once(' ') else {
        return op.to_string();
    };
    const FLAGS: &[&str] = &[
        "noundef",
        "nonnull",
        "nocapture",
        "readonly",
        "writeonly",
        "immarg",
        "noalias",
        "returned",
    ];
    loop {
        rest = rest.trim_start();
        let word = rest.split_whitespace().next().unwrap_or("");
        if FLAGS.contains(&word)
            || word.starts_with("dereferenceable")
            || word.starts_with("align(")
        {
            rest = &rest[word.len()..];
        } else if word == "align" {
            rest = rest[5..].trim_start();
            let num = rest.split_whitespace().next().unwrap_or("");
            rest = &rest[num.len()..];
        } else {
            break;
        }
    }
    format!("{ty} {}", rest.trim())
}

/// Counts observed in one run, per site.
#[derive(Clone, Debug, Serialize)]
pub struct DynamicCounts {
    /// How often the analysed function was entered.
    pub entries: u64,
    pub per_site: BTreeMap<usize, u64>,
    /// Conditional branch id ([`branch_sites`] order) -> (condition true, executions).
    pub branches: BTreeMap<usize, (u64, u64)>,
    /// Block (numbered over the module's functions in order) -> executions.
    pub blocks: BTreeMap<usize, u64>,
    /// The distinct integer-argument tuples of the outermost activations (argument index ->
    /// value), with how many activations had each.
    pub activations: Vec<(u64, BTreeMap<usize, i64>)>,
    /// Activations beyond the runtime's table of distinct tuples (their arguments are lost).
    pub activations_lost: u64,
    pub stream: Option<PathBuf>,
    pub exit_code: i32,
}

/// Builds the instrumented program from canonical IR into `workdir` and runs it with `args`.
pub fn run_traced(
    canonical_ir: &str,
    module: &Module,
    root: &str,
    args: &[String],
    workdir: &Path,
    record_stream: bool,
) -> Result<DynamicCounts, MemoryError> {
    let exe = build_traced(canonical_ir, module, root, workdir)?;
    run_built(&exe, args, workdir, record_stream)
}

/// Compiles the instrumented IR and the runtime into `workdir/traced`.
pub fn build_traced(
    canonical_ir: &str,
    module: &Module,
    root: &str,
    workdir: &Path,
) -> Result<PathBuf, MemoryError> {
    let table = SiteTable::new(module);
    let text = instrument(canonical_ir, module, root)?;
    let ll = workdir.join("instrumented.ll");
    let rt = workdir.join("metron_trace_rt.c");
    let exe = workdir.join("traced");
    let io = |p: &Path, e: std::io::Error| MemoryError::Io {
        file: p.display().to_string(),
        message: e.to_string(),
    };
    std::fs::write(&ll, text).map_err(|e| io(&ll, e))?;
    std::fs::write(&rt, RUNTIME).map_err(|e| io(&rt, e))?;
    CLANG
        .run(
            [
                "-O0".to_string(),
                "-w".into(),
                format!("-DMETRON_NSITES={}", table.sites.len().max(1)),
                format!("-DMETRON_NBRANCHES={}", branch_sites(module).len().max(1)),
                format!(
                    "-DMETRON_NBLOCKS={}",
                    module
                        .functions
                        .iter()
                        .map(|f| f.blocks.len())
                        .sum::<usize>()
                        .max(1)
                ),
                ll.display().to_string(),
                rt.display().to_string(),
                "-lm".into(),
                "-o".into(),
                exe.display().to_string(),
            ],
            None,
        )
        .map_err(|e| MemoryError::Compile {
            file: ll.display().to_string(),
            message: format!("building the instrumented program failed: {e}"),
        })?;
    Ok(exe)
}

/// Runs a program built by [`build_traced`]; counts (and the stream) go to `workdir`.
pub fn run_built(
    exe: &Path,
    args: &[String],
    workdir: &Path,
    record_stream: bool,
) -> Result<DynamicCounts, MemoryError> {
    let out = workdir.join("counts.txt");
    let stream = workdir.join("accesses.bin");
    let _ = std::fs::remove_file(&out);
    let mut env = vec![("METRON_TRACE_OUT".to_string(), out.display().to_string())];
    if record_stream {
        env.push(("METRON_TRACE_STREAM".into(), stream.display().to_string()));
    }
    let mut argv = vec![exe.display().to_string()];
    argv.extend(args.iter().cloned());
    let outcome = run_once_with_env(
        &argv,
        &env,
        OutputPolicy::Discard,
        &metron_measure::counters::CounterSet::none(),
    )
    .map_err(|e| MemoryError::Run(e.to_string()))?;
    if let metron_measure::runner::Exit::Signal(sig) = outcome.exit {
        return Err(MemoryError::Run(format!(
            "the instrumented program `{}` was killed by signal {sig} ({}); no counts were written. \
             It crashes with these arguments (check them, e.g. an index out of range), or the analysed \
             code has undefined behaviour",
            argv.join(" "),
            signal_name(sig)
        )));
    }
    let text = std::fs::read_to_string(&out).map_err(|e| {
        MemoryError::Run(format!(
            "the instrumented program (exit {}) wrote no counts to {}: {e}",
            outcome.exit.status(),
            out.display()
        ))
    })?;
    let mut counts = DynamicCounts {
        entries: 0,
        per_site: BTreeMap::new(),
        branches: BTreeMap::new(),
        blocks: BTreeMap::new(),
        activations: Vec::new(),
        activations_lost: 0,
        stream: record_stream.then_some(stream),
        exit_code: outcome.exit.status(),
    };
    for line in text.lines() {
        if read_run_line(line, &mut counts) {
            continue;
        }
        if let Some(rest) = line.strip_prefix("b ") {
            let v: Vec<u64> = rest
                .split_whitespace()
                .filter_map(|x| x.parse().ok())
                .collect();
            if let [id, taken, total] = v[..] {
                counts.branches.insert(id as usize, (taken, total));
            }
            continue;
        }
        let mut w = line.split_whitespace();
        match (w.next(), w.next().and_then(|v| v.parse::<u64>().ok())) {
            (Some("entries"), Some(v)) => counts.entries = v,
            (Some(id), Some(v)) => {
                if let Ok(id) = id.parse::<usize>() {
                    counts.per_site.insert(id, v);
                }
            }
            _ => {}
        }
    }
    Ok(counts)
}

/// The runtime's block (`k ID N`), activation (`a N I:V ...`) and overflow (`o N`) lines.
fn read_run_line(line: &str, counts: &mut DynamicCounts) -> bool {
    let num = |s: &str| s.parse::<u64>().ok();
    if let Some(rest) = line.strip_prefix("k ") {
        if let Some((id, n)) = rest.split_once(' ') {
            if let (Some(id), Some(n)) = (num(id), num(n.trim())) {
                counts.blocks.insert(id as usize, n);
            }
        }
    } else if let Some(rest) = line.strip_prefix("a ") {
        let mut w = rest.split_whitespace();
        let n = w.next().and_then(num).unwrap_or(0);
        let args = w
            .filter_map(|p| {
                let (i, v) = p.split_once(':')?;
                Some((i.parse().ok()?, v.parse().ok()?))
            })
            .collect();
        counts.activations.push((n, args));
    } else if let Some(rest) = line.strip_prefix("o ") {
        counts.activations_lost = num(rest.trim()).unwrap_or(0);
    } else {
        return false;
    }
    true
}

fn signal_name(sig: i32) -> &'static str {
    match sig {
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        15 => "SIGTERM",
        _ => "signal",
    }
}

/// The branch profile of a traced run: every conditional branch executed while the analysed
/// function was active, with how often its condition was true and false.
pub fn branch_profile(module: &Module, counts: &DynamicCounts) -> Vec<ProfiledBranch> {
    branch_sites(module)
        .into_iter()
        .enumerate()
        .filter_map(|(id, site)| {
            let (taken, total) = *counts.branches.get(&id)?;
            Some(ProfiledBranch {
                site,
                taken,
                not_taken: total.saturating_sub(taken),
            })
        })
        .collect()
}

/// One recorded access.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StreamRecord {
    pub address: u64,
    /// IR instructions executed before this access (the stream's clock).
    pub instruction: u64,
    pub site: u32,
    pub write: bool,
    pub intrinsic: bool,
}

/// Reads a stream file written by the runtime.
pub fn read_stream(path: &Path) -> Result<Vec<StreamRecord>, MemoryError> {
    let bytes = std::fs::read(path).map_err(|e| MemoryError::Io {
        file: path.display().to_string(),
        message: e.to_string(),
    })?;
    if bytes.len() < 8 || &bytes[..8] != b"MTRNACC2" {
        return Err(MemoryError::Parse {
            file: path.display().to_string(),
            line: 0,
            message: "expected an access stream starting with MTRNACC2".into(),
        });
    }
    let body = &bytes[8..];
    if body.len() % 24 != 0 {
        return Err(MemoryError::Parse {
            file: path.display().to_string(),
            line: 0,
            message: format!(
                "truncated stream: {} bytes after the header is not a multiple of 24",
                body.len()
            ),
        });
    }
    Ok(body
        .chunks_exact(24)
        .map(|c| {
            let a = u64::from_le_bytes(c[0..8].try_into().unwrap_or([0; 8]));
            let i = u64::from_le_bytes(c[8..16].try_into().unwrap_or([0; 8]));
            let s = u32::from_le_bytes(c[16..20].try_into().unwrap_or([0; 4]));
            let f = u32::from_le_bytes(c[20..24].try_into().unwrap_or([0; 4]));
            StreamRecord {
                address: a,
                instruction: i,
                site: s,
                write: f & 1 != 0,
                intrinsic: f & 2 != 0,
            }
        })
        .collect())
}

/// Static against dynamic counts for one (function, variable, read/write).
#[derive(Clone, Debug, Serialize)]
pub struct ValidationRow {
    pub function: String,
    pub variable: String,
    pub kind: AccessKind,
    pub static_count: String,
    pub dynamic_count: u64,
    pub equal: bool,
}

/// Compares the static per-site counts of `counts` (evaluated under `binding`) with a run.
pub fn compare(
    table: &SiteTable,
    counts: &crate::FunctionCounts,
    binding: &metron_symbolic::Binding,
    dynamic: &DynamicCounts,
) -> Result<Vec<ValidationRow>, MemoryError> {
    let one = crate::activation::ActivationSum::single(counts, binding);
    compare_activations(table, counts, &one, dynamic)
}

/// Compares the static per-site counts, summed over the run's activations, with the run.
pub fn compare_activations(
    table: &SiteTable,
    counts: &crate::FunctionCounts,
    activations: &crate::activation::ActivationSum,
    dynamic: &DynamicCounts,
) -> Result<Vec<ValidationRow>, MemoryError> {
    let mut rows: BTreeMap<(String, String, AccessKind), (num_rational::BigRational, u64)> =
        BTreeMap::new();
    for (gid, (f, idx, site)) in table.sites.iter().enumerate() {
        let stat = match counts.per_site.get(&(f.clone(), *idx)) {
            Some(p) => activations.evaluate(p, &counts.notes)?,
            None => num_rational::BigRational::from_integer(0.into()),
        };
        let dynv = dynamic.per_site.get(&gid).copied().unwrap_or(0);
        if !counts.per_site.contains_key(&(f.clone(), *idx)) && dynv == 0 {
            continue;
        }
        let e = rows
            .entry((f.clone(), site.variable.name.clone(), site.kind))
            .or_insert((num_rational::BigRational::from_integer(0.into()), 0));
        e.0 += stat;
        e.1 += dynv;
    }
    Ok(rows
        .into_iter()
        .map(|((function, variable, kind), (s, d))| ValidationRow {
            function,
            variable,
            kind,
            equal: s == num_rational::BigRational::from_integer(d.into()),
            static_count: crate::count::rational_text(&s),
            dynamic_count: d,
        })
        .collect())
}

/// How accesses are spread over time (003 Ch. 6's open question), in IR instructions.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Burstiness {
    pub accesses: usize,
    pub instructions: u64,
    /// Accesses per instruction over the whole run (model 3's N/t).
    pub rate: f64,
    pub mean_gap: f64,
    /// Coefficient of variation of the gaps between accesses: 0 for a metronome, 1 for a
    /// Poisson stream, above 1 for bursts.
    pub gap_cv: f64,
    pub window: u64,
    /// Variance / mean of the access count per window: about 1 for Poisson traffic
    /// (below for regular), far above 1 when accesses come in bursts.
    pub fano: f64,
    /// Share of accesses in windows with more than twice the mean density.
    pub in_bursts: f64,
}

/// Burstiness of a recorded stream, with windows of `window` instructions.
pub fn burstiness(records: &[StreamRecord], window: u64) -> Option<Burstiness> {
    if records.len() < 2 {
        return None;
    }
    let window = window.max(1);
    let first = records[0].instruction;
    let last = records[records.len() - 1].instruction;
    let span = (last - first).max(1);
    let gaps: Vec<f64> = records
        .windows(2)
        .map(|w| w[1].instruction.saturating_sub(w[0].instruction) as f64)
        .collect();
    let mean_gap = gaps.iter().sum::<f64>() / gaps.len() as f64;
    let var_gap = gaps.iter().map(|g| (g - mean_gap).powi(2)).sum::<f64>() / gaps.len() as f64;
    let bins = (span / window + 1) as usize;
    let mut counts = vec![0u64; bins];
    for r in records {
        counts[((r.instruction - first) / window) as usize] += 1;
    }
    let mean = records.len() as f64 / bins as f64;
    let var = counts
        .iter()
        .map(|&c| (c as f64 - mean).powi(2))
        .sum::<f64>()
        / bins as f64;
    let dense: u64 = counts.iter().filter(|&&c| c as f64 > 2.0 * mean).sum();
    Some(Burstiness {
        accesses: records.len(),
        instructions: span,
        rate: records.len() as f64 / span as f64,
        mean_gap,
        gap_cv: if mean_gap > 0.0 {
            var_gap.sqrt() / mean_gap
        } else {
            0.0
        },
        window,
        fano: if mean > 0.0 { var / mean } else { 0.0 },
        in_bursts: dense as f64 / records.len() as f64,
    })
}
