//! The static model (004 §III.C): every basic block's execution count as a piecewise
//! polynomial in the program's parameters, from the binary loop it sits in and the trip
//! count of the source loop that binary loop maps to (004 §III.A.2, line numbers).
//!
//! Better than Mira where its approximations cost accuracy: a top-tested loop's header runs
//! once more per entry than its body (`iterations + entries`), a bottom-tested (rotated) loop's
//! blocks all run `iterations` times, and nests are counted as a whole by metron-symbolic so
//! that triangular and min/max nests are exact.

use std::collections::{BTreeMap, BTreeSet};

use metron_symbolic::{trip_count, Binding, CountOptions, LoopNest, Piecewise};
use serde::Serialize;

use crate::binary::{Binary, Function};
use crate::category::{Architecture, Counts};
use crate::cfg::Cfg;
use crate::error::Result;
use crate::source::SourceModel;

pub use crate::program::ProgramModel;

/// How a binary loop was tied to the source.
#[derive(Debug, Clone, Serialize)]
pub struct LoopModel {
    pub header_address: u64,
    pub depth: usize,
    /// Line of the source `for` it maps to, if any.
    pub source_line: Option<u32>,
    /// Body executions per function call, summed over the enclosing loops.
    pub iterations: String,
    /// Why the loop could not be modelled exactly, if so.
    pub note: Option<String>,
    #[serde(skip)]
    pub blocks: BTreeSet<usize>,
}

/// Where a binary loop's source counts land in its function: a loop inlined from another
/// function counts in that function's parameters (bound to the call's arguments, `inlined`)
/// and runs once per iteration of the binary loop around it (`times`).
#[derive(Debug, Clone, Default)]
pub struct LoopContext {
    pub times: Option<Piecewise>,
    pub inlined: Vec<BTreeMap<String, crate::call_site::Argument>>,
}

impl LoopContext {
    /// A source count of the loop as executions per call of the function.
    pub fn apply(&self, count: &Piecewise) -> Piecewise {
        let bound = crate::call_site::bind_inlined(count, &self.inlined);
        match &self.times {
            Some(t) => &bound * t,
            None => bound,
        }
    }
}

/// The model of one function: per-block counts.
#[derive(Debug, Clone)]
pub struct FunctionModel {
    pub name: String,
    pub symbol: String,
    pub cfg: Cfg,
    pub block_counts: Vec<Piecewise>,
    pub loops: Vec<LoopModel>,
    /// Calls through the PLT into code that is not analysed: (block, mnemonics of the bound
    /// stub's path), counted with the call site as callgrind does.
    pub plt_calls: Vec<(usize, Vec<String>)>,
    /// Parameters named after an inlined call's line (`n_41`): program-wide, bound by the
    /// user like those of calls that stayed calls.
    pub renamed: BTreeSet<String>,
}

impl FunctionModel {
    /// Parameters the counts depend on.
    pub fn parameters(&self) -> BTreeSet<String> {
        self.block_counts
            .iter()
            .flat_map(|c| c.parameters())
            .collect()
    }

    /// Evaluates every block's count under `binding`.
    pub fn evaluate_blocks(&self, binding: &Binding) -> Result<Vec<f64>> {
        match self.evaluate_blocks_partly(binding) {
            (_, Some(e)) => Err(e),
            (values, None) => Ok(values),
        }
    }

    /// As [`evaluate_blocks`](Self::evaluate_blocks), block by block: a block whose count
    /// needs a parameter not bound is NaN (and the first such error is returned), the others
    /// keep their values, so that a call outside the unknown loop is still counted.
    pub fn evaluate_blocks_partly(
        &self,
        binding: &Binding,
    ) -> (Vec<f64>, Option<crate::error::StaticError>) {
        let mut first = None;
        let values = self
            .block_counts
            .iter()
            .map(|c| match c.evaluate(binding) {
                // Rational, not integer: `br_prob` arms are expected counts.
                Ok(v) => v.to_string().parse::<f64>().unwrap_or_else(|_| {
                    let (n, d) = (v.numer().to_string(), v.denom().to_string());
                    n.parse::<f64>().unwrap_or(f64::NAN) / d.parse::<f64>().unwrap_or(f64::NAN)
                }),
                Err(e) => {
                    first.get_or_insert(e.into());
                    f64::NAN
                }
            })
            .collect();
        (values, first)
    }

    /// Predicted counts of a set of blocks (all blocks when `only` is `None`).
    pub fn counts(
        &self,
        function: &Function,
        arch: &Architecture,
        block_values: &[f64],
        only: Option<&BTreeSet<usize>>,
    ) -> Counts {
        let mut c = Counts::default();
        for (b, block) in self.cfg.blocks.iter().enumerate() {
            if only.is_some_and(|o| !o.contains(&b)) {
                continue;
            }
            for ins in &function.instructions[block.first..block.end] {
                c.add(arch, ins, block_values[b]);
            }
        }
        for (b, path) in &self.plt_calls {
            if only.is_some_and(|o| !o.contains(b)) {
                continue;
            }
            for m in path {
                c.add_plt(arch, m, block_values[*b]);
            }
        }
        c
    }
}

/// Lines (of `file`) the instructions of `blocks` come from, in any inline frame.
pub(crate) fn lines_of(
    function: &Function,
    cfg: &Cfg,
    blocks: &BTreeSet<usize>,
    file: &str,
) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for &b in blocks {
        let block = &cfg.blocks[b];
        for ins in &function.instructions[block.first..block.end] {
            for f in &ins.frames {
                if let Some(p) = &f.position {
                    if same_file(&p.file, file) {
                        out.insert(p.line);
                    }
                }
            }
        }
    }
    out
}

pub(crate) fn same_file(a: &str, b: &str) -> bool {
    std::path::Path::new(a).file_name() == std::path::Path::new(b).file_name()
}

/// Builds the model of `function` with loop bounds from `source`.
pub fn model_function(
    function: &Function,
    source: &SourceModel,
    mira_compat: bool,
) -> FunctionModel {
    let cfg = Cfg::build(function);
    let file = source.file.display().to_string();
    let options = CountOptions::default();
    // Source loops: total iterations per call of the whole nest down to each loop.
    // Counted on demand: a large program has thousands of source loops, few per function.
    let memo: std::cell::RefCell<BTreeMap<usize, std::result::Result<Piecewise, String>>> =
        Default::default();
    let total = |i: usize| {
        memo.borrow_mut()
            .entry(i)
            .or_insert_with(|| source_total(source, i, &options))
            .clone()
    };
    let depth_of = |mut i: usize| {
        let mut d = 0;
        while let Some(p) = source.loops[i].parent {
            d += 1;
            i = p;
        }
        d
    };
    let mut loops = Vec::new();
    let mut claimed: BTreeSet<usize> = BTreeSet::new();
    // Inner loops first, so that each claims its own source loop; a source loop the compiler
    // split (vectorised body + remainder, or versioned copies) is claimed by several.
    let mut order: Vec<usize> = (0..cfg.loops.len()).collect();
    order.sort_by_key(|&l| std::cmp::Reverse(cfg.loops[l].depth));
    let mut mapping: BTreeMap<usize, Option<usize>> = BTreeMap::new();
    // Only source loops within the lines this function's code comes from (source loops are in
    // line order; a large program has thousands).
    let span = {
        let all: BTreeSet<usize> = (0..cfg.blocks.len()).collect();
        let lines = lines_of(function, &cfg, &all, &file);
        let sorted = source.loops.windows(2).all(|w| w[0].line <= w[1].line);
        match (lines.first(), lines.last()) {
            (Some(&lo), Some(&hi)) if sorted => {
                source.loops.partition_point(|l| l.line < lo)
                    ..source.loops.partition_point(|l| l.line <= hi)
            }
            _ => 0..source.loops.len(),
        }
    };
    for &l in &order {
        let lines = lines_of(function, &cfg, &own_blocks(&cfg, l), &file);
        let at = |s: &usize| lines.contains(&source.loops[*s].line);
        let candidate = span
            .clone()
            .filter(|s| !claimed.contains(s) && at(s))
            .max_by_key(|&s| depth_of(s))
            .or_else(|| span.clone().filter(at).max_by_key(|&s| depth_of(s)))
            .or_else(|| {
                // No instruction carries the `for` line (clang attributes the test to the
                // body's lines): the deepest unclaimed loop whose extent holds the lines.
                let holds = |s: &usize| {
                    let l = &source.loops[*s];
                    !lines.is_empty() && lines.iter().all(|x| (l.line..=l.end_line).contains(x))
                };
                span.clone()
                    .filter(|s| !claimed.contains(s) && holds(s))
                    .max_by_key(|&s| depth_of(s))
            });
        if let Some(s) = candidate {
            claimed.insert(s);
        }
        mapping.insert(l, candidate);
    }
    if !mira_compat {
        crate::loop_copy::follow_nesting(function, &cfg, source, &mut mapping);
    }
    // Unrolled and vectorised copies of source loops, and their straight-line passes.
    let copies =
        crate::loop_copy::SourceCopies::find(function, &cfg, source, &file, &mapping, mira_compat);
    let factor = &copies.factor;
    let one = Piecewise::constant(1);
    let mut block_counts = vec![one.clone(); cfg.blocks.len()];
    let cold = cold_blocks(function, &cfg);
    // Iterations per call of each binary loop, filled outer loops first (the forest order),
    // so that a loop inlined from another function is multiplied by its binary context.
    let mut loop_iterations: Vec<Piecewise> = vec![one.clone(); cfg.loops.len()];
    // 004 §III.C.5 for inlined code: a loop inlined from another function counts in that
    // function's parameters, bound to the arguments of the call it was inlined at.
    let mut contexts: Vec<LoopContext> = (0..cfg.loops.len())
        .map(|l| LoopContext {
            times: None,
            inlined: inline_levels_of(
                function,
                &cfg,
                source,
                mapping.get(&l).copied().flatten(),
                l,
            ),
        })
        .collect();
    for (l, natural) in cfg.loops.iter().enumerate() {
        let source_loop = mapping.get(&l).copied().flatten();
        let siblings: Vec<usize> = (0..cfg.loops.len())
            .filter(|&o| mapping.get(&o).copied().flatten() == source_loop)
            .collect();
        let widest = siblings.iter().map(|&o| factor[o]).max().unwrap_or(1);
        let (iterations, entries, note) = match source_loop {
            Some(s) if widest > 1 => match copies.copy_counts(source, s, &options) {
                Ok((passes, entries)) => (
                    passes
                        .get(&crate::loop_copy::Copy::Loop(l))
                        .cloned()
                        .unwrap_or_else(Piecewise::zero),
                    entries,
                    None,
                ),
                Err(why) => (
                    Piecewise::parameter(&format!("trip_{}", source.loops[s].line)),
                    one.clone(),
                    Some(format!(
                        "line {}: {why}; annotate its trip count",
                        source.loops[s].line
                    )),
                ),
            },
            Some(s) => match &total(s) {
                Ok(t) if siblings.len() > 1 => {
                    let entries = match source.loops[s].parent {
                        Some(p) => total(p).unwrap_or_else(|_| one.clone()),
                        None => one.clone(),
                    };
                    let split = crate::branch::split_iterations(
                        function, &cfg, source, &file, s, l, &siblings,
                    )
                    .or_else(|| {
                        let ls = (l, s);
                        crate::loop_copy::unswitched_iterations(
                            function, &cfg, source, &mapping, ls, &siblings, &options,
                        )
                    });
                    (split.unwrap_or_else(|| t.clone()), entries, None)
                }
                Ok(t) => {
                    let entries = match source.loops[s].parent {
                        Some(p) => total(p).unwrap_or_else(|_| one.clone()),
                        None => one.clone(),
                    };
                    let wide = crate::loop_copy::within_wide_parent(
                        function,
                        &cfg,
                        source,
                        factor,
                        &mapping,
                        (l, s),
                        &options,
                    );
                    let (t, entries) = wide.unwrap_or((t.clone(), entries));
                    (t, entries, None)
                }
                Err(why) => (
                    Piecewise::parameter(&format!("trip_{}", source.loops[s].line)),
                    one.clone(),
                    Some(format!(
                        "line {}: {why}; annotate its trip count",
                        source.loops[s].line
                    )),
                ),
            },
            None => (
                Piecewise::parameter(&format!("trip_0x{:x}", cfg.blocks[natural.header].start)),
                one.clone(),
                Some("no source loop found at this loop's lines".to_string()),
            ),
        };
        // Inlined: the source loop is outermost in its own function, but the binary loop sits
        // inside another binary loop that maps elsewhere (the caller's loop): scale by it.
        // A loop nested in the same function inherits its binary parent's context.
        let context = match (source_loop, natural.parent) {
            (Some(s), Some(p)) if source.loops[s].parent.is_none() => {
                let parent_source = mapping.get(&p).copied().flatten();
                let same_function = parent_source
                    .is_some_and(|ps| source.loops[ps].function == source.loops[s].function);
                (!same_function).then(|| loop_iterations[p].clone())
            }
            (Some(_), Some(p)) => contexts[p].times.clone(),
            _ => None,
        };
        contexts[l].times = context;
        let (iterations, entries) = (contexts[l].apply(&iterations), contexts[l].apply(&entries));
        loop_iterations[l] = iterations.clone();
        // Mira counts every statement of a loop N times, headers included.
        let tested = if mira_compat {
            BTreeSet::new()
        } else {
            let for_line = source_loop.map(|s| source.loops[s].line);
            crate::branch::test_blocks(function, &cfg, &file, l, for_line)
        };
        for &b in &natural.blocks {
            if cfg.innermost_loop(b) != Some(l) {
                continue;
            }
            block_counts[b] = if tested.contains(&b) {
                &iterations + &entries
            } else {
                iterations.clone()
            };
        }
        loops.push(LoopModel {
            header_address: cfg.blocks[natural.header].start,
            depth: natural.depth,
            source_line: source_loop.map(|s| source.loops[s].line),
            iterations: iterations.to_string(),
            note,
            blocks: natural.blocks.clone(),
        });
    }
    copies.count_outside_loops(
        function,
        &cfg,
        source,
        &file,
        &contexts,
        &options,
        &mut block_counts,
    );
    let arm_notes = crate::branch::count_branch_arms(
        &crate::branch::BranchContext {
            function,
            cfg: &cfg,
            source,
            file: &file,
            mapping: &mapping,
            factor,
            contexts: &contexts,
        },
        &mut block_counts,
        &options,
    );
    crate::loop_guard::count_guarded_blocks(
        function,
        &cfg,
        source,
        &mapping,
        &contexts,
        &options,
        &mut block_counts,
    );
    crate::loop_guard::split_duplicated_blocks(function, &cfg, &file, &mut block_counts);
    for (l, note) in arm_notes {
        if let Some(m) = loops.get_mut(l) {
            m.note.get_or_insert(note);
        }
    }
    for b in cold
        .into_iter()
        .chain(crate::loop_copy::padding_blocks(&cfg))
    {
        block_counts[b] = Piecewise::zero();
    }
    let used: BTreeSet<String> = block_counts.iter().flat_map(|c| c.parameters()).collect();
    FunctionModel {
        name: function.name.clone(),
        symbol: function.symbol.clone(),
        cfg,
        block_counts,
        loops,
        plt_calls: Vec::new(),
        renamed: contexts
            .iter()
            .flat_map(|c| c.inlined.iter().flat_map(|level| level.values()))
            .filter_map(|a| match a {
                crate::call_site::Argument::Renamed(n) => Some(n.clone()),
                crate::call_site::Argument::Expr(_) => None,
            })
            .filter(|n| used.contains(n))
            .collect(),
    }
}

/// Blocks from which no return (or tail call) is reachable: paths into `abort`, `__cxa_throw`
/// and the like, which a run that completes does not take.
fn cold_blocks(function: &Function, cfg: &Cfg) -> Vec<usize> {
    use iced_x86::FlowControl;
    let n = cfg.blocks.len();
    let mut warm = vec![false; n];
    let mut work: Vec<usize> = (0..n)
        .filter(|&b| {
            let last = &function.instructions[cfg.blocks[b].end - 1];
            match last.flow {
                FlowControl::Return => true,
                FlowControl::UnconditionalBranch | FlowControl::IndirectBranch => {
                    cfg.blocks[b].successors.is_empty()
                }
                FlowControl::Next | FlowControl::Call => b + 1 >= n,
                _ => false,
            }
        })
        .collect();
    while let Some(b) = work.pop() {
        if warm[b] {
            continue;
        }
        warm[b] = true;
        work.extend(cfg.blocks[b].predecessors.iter().copied());
    }
    // A function without any return (main ending in exit) keeps all its blocks.
    if !warm.iter().any(|w| *w) {
        return Vec::new();
    }
    (0..n).filter(|&b| !warm[b]).collect()
}

/// The inline levels of binary loop `l` when its source loop `s` comes from a function
/// inlined into `function` (empty otherwise): read from an instruction of the loop whose
/// innermost frame is that function.
fn inline_levels_of(
    function: &Function,
    cfg: &Cfg,
    source: &SourceModel,
    s: Option<usize>,
    l: usize,
) -> Vec<std::collections::BTreeMap<String, crate::call_site::Argument>> {
    let Some(s) = s else {
        return Vec::new();
    };
    let name = &source.loops[s].function;
    if crate::call_site::base_name(&function.name) == name {
        return Vec::new();
    }
    own_blocks(cfg, l)
        .into_iter()
        .flat_map(|b| &function.instructions[cfg.blocks[b].first..cfg.blocks[b].end])
        .find(|ins| {
            ins.frames.len() > 1
                && ins.frames[0]
                    .function
                    .as_deref()
                    .is_some_and(|f| crate::call_site::base_name(f) == name)
        })
        .map(|ins| crate::call_site::inline_levels(ins, source))
        .unwrap_or_default()
}

/// Blocks of loop `l` that are in no inner loop.
pub(crate) fn own_blocks(cfg: &Cfg, l: usize) -> BTreeSet<usize> {
    cfg.loops[l]
        .blocks
        .iter()
        .copied()
        .filter(|&b| cfg.innermost_loop(b) == Some(l))
        .collect()
}

/// Total body executions of source loop `i` per call: the nest from its outermost ancestor.
pub(crate) fn source_total(
    source: &SourceModel,
    i: usize,
    options: &CountOptions,
) -> std::result::Result<Piecewise, String> {
    let loops = source.nest_of(i)?;
    trip_count(&LoopNest::new(loops), options).map_err(|e| e.to_string())
}

/// Models every function of `binary` whose code comes from `source`'s file.
pub fn model_binary(
    binary: &Binary,
    source: &SourceModel,
    mira_compat: bool,
) -> Vec<(usize, FunctionModel)> {
    let file = source.file.display().to_string();
    binary
        .functions
        .iter()
        .enumerate()
        .filter(|(_, f)| f.source_file().is_some_and(|s| same_file(&s, &file)))
        .map(|(i, f)| {
            let mut m = model_function(f, source, mira_compat);
            m.plt_calls = plt_calls(binary, f, &m.cfg);
            (i, m)
        })
        .collect()
}

/// Blocks that call (or tail-jump) through a PLT stub, with the stub's executed path.
fn plt_calls(binary: &Binary, function: &Function, cfg: &Cfg) -> Vec<(usize, Vec<String>)> {
    let mut out = Vec::new();
    for (b, block) in cfg.blocks.iter().enumerate() {
        for ins in &function.instructions[block.first..block.end] {
            let call_like = ins.flow == iced_x86::FlowControl::Call
                || ins.flow == iced_x86::FlowControl::UnconditionalBranch;
            if let Some(path) = ins.target.and_then(|t| binary.plt_path.get(&t)) {
                if call_like {
                    out.push((b, path.clone()));
                }
            }
        }
    }
    out
}
