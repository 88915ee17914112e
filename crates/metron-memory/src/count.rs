//! Execution counts (003 §4.1.2) and their combination with the access sites (003 §4.1.3):
//! every access site gets a context (enclosing loops with their SCEV trip counts, and the
//! if-else arms it lies in); its count is the number of integer points of the loop nest,
//! counted exactly by `metron-symbolic`, times the branch policy's weight. Calls are
//! expanded through the call graph with the callee's integer parameters replaced by the
//! call's arguments, so a helper called in a loop is summed over that loop.

use std::collections::{BTreeMap, BTreeSet};

use metron_symbolic::{
    Binding, CountOptions, Loop, LoopNest, Piecewise, QuasiPolynomial, Rational,
};
use num_bigint::BigInt;
use num_traits::{ToPrimitive, Zero};
use serde::Serialize;

use crate::access::{access_sites, AccessKind, AccessSite, Variable};
use crate::condition::{successor_conditions, IndexCondition, Values};
use crate::ir::{Function, Inst, Module};
use crate::scev::{arg_symbol, loop_symbol, to_affine, Affine, FunctionScev, TripBound};
use crate::tree::{build_tree, Cfg, TreeNode};
use crate::MemoryError;

/// How an if-else node combines its arms (003 §4.1.2 proposes `max`; it implemented none).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BranchPolicy {
    /// The arm with the most accesses (the thesis's worst case).
    Max,
    /// Each of n arms weighted 1/n.
    Mean,
    /// All arms counted: an upper bound even when arms differ per iteration.
    Sum,
    /// Probability of entering the arm that starts at the named block; arms not named share
    /// the rest equally.
    Probabilities(BTreeMap<String, f64>),
}

impl std::str::FromStr for BranchPolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "max" => Ok(BranchPolicy::Max),
            "mean" => Ok(BranchPolicy::Mean),
            "sum" => Ok(BranchPolicy::Sum),
            other => {
                let mut m = BTreeMap::new();
                for part in other.split(',') {
                    let (b, p) = part.split_once('=').ok_or_else(|| {
                        format!("expected max, mean, sum or BLOCK=PROB[,BLOCK=PROB...], found `{other}`")
                    })?;
                    let p: f64 = p.trim().parse().map_err(|_| {
                        format!("probability `{p}` for block `{b}` is not a number")
                    })?;
                    if !(0.0..=1.0).contains(&p) {
                        return Err(format!("probability {p} for block `{b}` is outside [0, 1]"));
                    }
                    m.insert(b.trim().trim_start_matches('%').to_string(), p);
                }
                Ok(BranchPolicy::Probabilities(m))
            }
        }
    }
}

/// A loop of a function with its trip count.
#[derive(Clone, Debug, Serialize)]
pub struct LoopReport {
    pub header: String,
    pub depth: usize,
    /// Iteration symbol `k_<header>` used by inner trip counts.
    pub variable: String,
    /// Backedge-taken count times `stride`: the body runs floor(this / stride) + 1 times.
    /// A max or min of affine forms when scalar evolution gives `smax`/`smin`.
    pub backedge_taken: TripBound,
    /// 1, or c for a count `(X /u c)` of a loop stepping by c.
    pub stride: i64,
    /// Where the count came from: `scev`, or `unknown` (a fresh parameter `trip_<header>`).
    pub source: String,
    pub scev: Option<String>,
    /// For source `derived`: the parameter the count is, and its definition.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub derived: Option<crate::exit_count::DerivedParameter>,
    /// For source `tile`: the count summed over the tiles of the enclosing tile loop.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tile: Option<crate::split::TileSum>,
    /// Residues (`(i + colour) % 2`) the count is written in; counted per residue.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub residues: Vec<crate::split::Residue>,
}

/// Position of a site in the access tree: enclosing loops (outer first) and if-else arms.
#[derive(Clone, Debug, Default)]
pub struct Context {
    pub loops: Vec<usize>,
    /// (if id, arm index, number of arms, CFG edge `branch->first` into every arm)
    pub arms: Vec<(usize, usize, usize, Vec<String>)>,
    /// Conditions on loop indices of the enclosing branches on indices (exact, not policy).
    pub conds: Vec<IndexCondition>,
    /// Loops whose last header execution this block does not see: it lies after the exit
    /// test of a loop that is not rotated (`for.cond` with a `?:` in its condition), so it
    /// runs backedge-taken times, not one more.
    pub shortened: Vec<usize>,
    /// Branch nesting inside the innermost loop (an exit test nested in an `if` does not run
    /// on every iteration).
    pub depth_in_loop: usize,
    /// Residue symbols of the loops' counts fixed in this part of a split context.
    pub fixed: BTreeMap<String, i64>,
}

#[derive(Clone, Debug, Serialize)]
pub struct CallSite {
    pub block: String,
    pub callee: String,
    pub line: usize,
    /// Affine value of each integer argument, when scalar evolution gives one.
    #[serde(skip)]
    pub args: Vec<Option<Affine>>,
    /// Which arguments are integers (a non-affine one becomes a free parameter).
    #[serde(skip)]
    pub arg_is_int: Vec<bool>,
}

/// Everything known about one function before counting.
#[derive(Clone, Debug)]
pub struct FunctionModel {
    pub name: String,
    /// Symbols of the arguments, in order (`n`, `A`, ...).
    pub params: Vec<String>,
    pub sites: Vec<AccessSite>,
    /// One context per path through the access tree: a block shared by the arms of a
    /// short-circuit `&&`/`||` lies on several disjoint paths, and its count is their sum.
    pub site_context: Vec<Vec<Context>>,
    pub site_length: Vec<Option<Affine>>,
    pub calls: Vec<CallSite>,
    pub call_context: Vec<Vec<Context>>,
    pub loops: Vec<LoopReport>,
    pub loop_parent: Vec<Option<usize>>,
    pub tree: Vec<TreeNode>,
    pub block_names: Vec<String>,
    pub structured: bool,
    pub notes: Vec<String>,
}

pub struct ModuleModel {
    pub functions: BTreeMap<String, FunctionModel>,
    /// Functions that are part of a call-graph cycle (their calls are not expanded).
    pub recursive: BTreeSet<String>,
}

impl ModuleModel {
    pub fn build(
        module: &Module,
        scev: &BTreeMap<String, FunctionScev>,
    ) -> Result<Self, MemoryError> {
        let empty = FunctionScev::default();
        let mut functions = BTreeMap::new();
        for f in &module.functions {
            let s = scev.get(&f.name).unwrap_or(&empty);
            functions.insert(f.name.clone(), model_function(f, s)?);
        }
        let recursive = recursive_functions(&functions);
        Ok(ModuleModel {
            functions,
            recursive,
        })
    }
}

fn model_function(f: &Function, scev: &FunctionScev) -> Result<FunctionModel, MemoryError> {
    let scev = &with_conditional_extremes(f, scev);
    let cfg = Cfg::new(f);
    let (tree, structured) = build_tree(&cfg);
    let arg_names: BTreeMap<String, String> = f
        .args
        .iter()
        .map(|(_, n)| (n.clone(), arg_symbol(n)))
        .collect();
    let symbol_of = |n: &str| arg_names.get(n).cloned();
    let mut notes = Vec::new();
    let mut loops = Vec::new();
    for (li, l) in cfg.loops.iter().enumerate() {
        let header = f.blocks[l.header].label.clone();
        let mut depth = 0;
        let mut p = l.parent;
        while let Some(q) = p {
            depth += 1;
            p = cfg.loops[q].parent;
        }
        let text = scev.backedge_taken.get(&header).cloned();
        let parsed = text
            .as_deref()
            .map(|t| crate::scev::backedge_count_in(t, &symbol_of, &scev.values));
        let exit_test = || crate::exit_count::from_exit_test(f, &cfg, li, &symbol_of, &scev.values);
        let derived = || crate::exit_count::derived_trip(f, &cfg, li, &symbol_of, &scev.values);
        let residue = || residue_count(text.as_deref()?, &header, &symbol_of, &scev.values);
        let mut derived_loop = None;
        let mut residues = Vec::new();
        let (btc, stride, source) = match parsed {
            // Before the plain reading, which takes a truncation `(zext i2 X)` for X.
            _ if residue().is_some() => {
                let (b, c, r) = residue().unwrap_or((unknown_trip(&header), 1, Vec::new()));
                let shown: Vec<String> = r
                    .iter()
                    .map(|r| format!("{} = ({}) mod {}", r.symbol, r.expr, r.modulus))
                    .collect();
                notes.push(format!(
                    "loop %{header}: its count depends on {}: counted per residue (a modulo \
                     condition on the outer indices)",
                    shown.join(", ")
                ));
                residues = r;
                (b, c, "scev")
            }
            Some(Ok((a, c))) => (a, c, "scev"),
            _ if exit_test().is_some() => {
                let (b, c) = exit_test().unwrap_or((unknown_trip(&header), 1));
                (b, c, "exit-test")
            }
            Some(Err(_)) if crate::exit_count::exit_reads_memory(f, &cfg, li).is_some() => {
                let id = metron_symbolic::identifier(&header);
                notes.push(format!(
                    "loop %{header}: its exit test compares a value loaded from memory (data-dependent \
                     control, like a data-dependent branch): no static trip count exists. Its trip \
                     count is the parameter trip_{id}: give the mean number of body executions per entry with \
                     --param trip_{id}=N (`metron memory trace --write-branch-profile` measures it: \
                     the exit branch's executions divided by its exits)"
                ));
                (unknown_trip(&header), 1, "data")
            }
            _ if derived().is_some() => {
                let d = derived();
                let q = d.as_ref().map_or_else(String::new, |d| d.name.clone());
                if let Some(d) = &d {
                    notes.push(format!(
                        "loop %{header}: its step is the argument `{}`, so its backedge-taken count is \
                         no polynomial; it is the derived parameter {q} = {}, computed from the \
                         arguments' values",
                        d.step, d.definition
                    ));
                }
                derived_loop = d;
                (TripBound::single(Affine::symbol(&q)), 1, "derived")
            }
            Some(Err(e)) => {
                notes.push(format!(
                    "loop %{header}: {e}; its trip count is the parameter trip_{}",
                    metron_symbolic::identifier(&header)
                ));
                (unknown_trip(&header), 1, "unknown")
            }
            None => {
                notes.push(format!(
                    "loop %{header}: no scalar-evolution count; its trip count is the parameter trip_{}",
                    metron_symbolic::identifier(&header)
                ));
                (unknown_trip(&header), 1, "unknown")
            }
        };
        loops.push(LoopReport {
            header: header.clone(),
            depth,
            variable: loop_symbol(&header),
            backedge_taken: btc,
            stride,
            source: source.into(),
            scev: text,
            derived: derived_loop,
            tile: None,
            residues,
        });
    }
    find_tiles(&cfg, &mut loops, &mut notes, &symbol_of, &scev.values);
    let sites = access_sites(f);
    let affine = |v: &str| value_affine(v, &arg_names, scev).ok();
    let bound = |v: &str| {
        let t = scev
            .values
            .get(v.trim_start_matches('%').trim_matches('"'))?;
        crate::scev::to_bound_in(t, &symbol_of, &scev.values).ok()
    };
    let values = Values::new(f, &affine).with_bounds(&bound);
    let branch_conds: BTreeMap<usize, BTreeMap<String, Vec<IndexCondition>>> = f
        .blocks
        .iter()
        .enumerate()
        .filter_map(|(i, b)| Some((i, successor_conditions(&values, b.insts.last()?)?)))
        .collect();
    let mut block_ctx: BTreeMap<usize, Vec<Context>> = BTreeMap::new();
    let labels: Vec<String> = f.blocks.iter().map(|b| b.label.clone()).collect();
    let mut guarded = BTreeSet::new();
    let index_only: BTreeSet<usize> = (0..f.blocks.len())
        .filter(|&b| crate::exit_count::branch_reads_memory(f, b) == Some(false))
        .collect();
    let mut ctx_builder = ContextBuilder {
        labels: &labels,
        index_only: &index_only,
        branch_conds: &branch_conds,
        cfg: &cfg,
        out: &mut block_ctx,
        notes: &mut notes,
        guarded: &mut guarded,
    };
    ctx_builder.assign(&tree, &Context::default());
    for li in guarded {
        if !matches!(loops[li].source.as_str(), "unknown" | "data" | "tile") {
            loops[li].backedge_taken =
                without_entry_floor(&loops[li].backedge_taken, loops[li].stride);
        }
    }
    flatten_tiles(&cfg, &mut loops, &mut block_ctx, &mut notes);
    for ctxs in block_ctx.values_mut() {
        *ctxs = crate::split::split_residues(std::mem::take(ctxs), &loops);
    }
    let index = f.block_index();
    let ctx_of = |label: &str| {
        index
            .get(label)
            .and_then(|i| block_ctx.get(i))
            .cloned()
            .unwrap_or_else(|| vec![Context::default()])
    };
    let mut site_context = Vec::new();
    let mut site_length = Vec::new();
    for s in &sites {
        site_context.push(ctx_of(&s.block));
        site_length.push(
            s.length
                .as_ref()
                .map(|l| value_affine(l, &arg_names, scev))
                .and_then(|r| r.ok()),
        );
        if s.intrinsic.is_some() && site_length.last().is_some_and(|l| l.is_none()) {
            notes.push(format!(
                "line {}: length of {} is not affine; counted as 1",
                s.line,
                s.intrinsic.as_deref().unwrap_or("")
            ));
        }
    }
    let mut calls = Vec::new();
    let mut call_context = Vec::new();
    for b in &f.blocks {
        for i in &b.insts {
            if let Inst::Call {
                callee: Some(c),
                args,
            } = &i.kind
            {
                if c.starts_with("llvm.") {
                    continue;
                }
                calls.push(CallSite {
                    block: b.label.clone(),
                    callee: c.clone(),
                    line: i.line,
                    args: args
                        .iter()
                        .map(|a| value_affine(a, &arg_names, scev).ok())
                        .collect(),
                    arg_is_int: integer_arguments(&i.text, c),
                });
                call_context.push(ctx_of(&b.label));
            }
        }
    }
    if !structured {
        notes.push("control flow is not fully structured (early exit?); counts of branches are approximate".into());
    }
    Ok(FunctionModel {
        name: f.name.clone(),
        params: f.args.iter().map(|(_, n)| arg_symbol(n)).collect(),
        sites,
        site_context,
        site_length,
        calls,
        call_context,
        loops,
        loop_parent: cfg.loops.iter().map(|l| l.parent).collect(),
        tree,
        block_names: f.blocks.iter().map(|b| b.label.clone()).collect(),
        structured,
        notes,
    })
}

/// Scalar evolution plus the `?:` extremes it leaves unknown (`MAX(i, j)` as a phi).
fn with_conditional_extremes(f: &Function, scev: &FunctionScev) -> FunctionScev {
    let args: BTreeMap<String, String> = f
        .args
        .iter()
        .map(|(_, n)| (n.clone(), arg_symbol(n)))
        .collect();
    let symbol_of = |n: &str| args.get(n).cloned();
    let form = |v: &str| -> Option<metron_symbolic::MaxOfMins> {
        if let Ok(a) = value_affine(v, &args, scev) {
            return Some(metron_symbolic::MaxOfMins::affine(a.to_symbolic()));
        }
        let t = scev
            .values
            .get(v.trim_start_matches('%').trim_matches('"'))?;
        crate::scev::to_bound_in(t, &symbol_of, &scev.values).ok()
    };
    let same = |a: &str, b: &str| a == b || form(a).is_some_and(|x| Some(x) == form(b));
    let mut out = scev.clone();
    for (v, text) in crate::condition::conditional_extremes(f, &same) {
        let known = out
            .values
            .get(&v)
            .is_some_and(|t| t.trim() != format!("%{v}"));
        if !known {
            out.values.insert(v, text);
        }
    }
    out
}

/// Which arguments of the call to `callee` in `text` have an integer type (`i32 noundef %x`).
fn integer_arguments(text: &str, callee: &str) -> Vec<bool> {
    let Some(open) = text
        .find(&format!("@{callee}("))
        .map(|p| p + callee.len() + 1)
    else {
        return Vec::new();
    };
    let close = text.rfind(')').unwrap_or(text.len()).max(open + 1);
    crate::ir::split_top(&text[open + 1..close])
        .iter()
        .map(|a| {
            let ty = a.split_whitespace().next().unwrap_or("");
            ty.len() > 1
                && ty.starts_with('i')
                && ty[1..].chars().all(|c| c.is_ascii_digit())
                && ty != "i1"
        })
        .collect()
}

/// The count of a loop whose start or bound holds a small residue (`(i + colour) % 2`), in
/// the residue symbols (`split::with_residues`).
fn residue_count(
    text: &str,
    header: &str,
    symbol_of: &dyn Fn(&str) -> Option<String>,
    values: &BTreeMap<String, String>,
) -> Option<(TripBound, i64, Vec<crate::split::Residue>)> {
    let (rewritten, residues) = crate::split::with_residues(text, header, symbol_of)?;
    let symbol = |n: &str| {
        n.strip_prefix("__res_")
            .and_then(|i| i.parse::<usize>().ok())
            .and_then(|i| residues.get(i))
            .map(|r| r.symbol.clone())
            .or_else(|| symbol_of(n))
    };
    let (b, c) = crate::scev::backedge_count_in(&rewritten, &symbol, values).ok()?;
    Some((b, c, residues))
}

/// Loops left without a count whose count, read in the tile offsets of their enclosing
/// derived loops, is a tile's (`split::tile_sum_of`): their count becomes the sum over tiles.
fn find_tiles(
    cfg: &Cfg,
    loops: &mut [LoopReport],
    notes: &mut Vec<String>,
    symbol_of: &dyn Fn(&str) -> Option<String>,
    values: &BTreeMap<String, String>,
) {
    for li in 0..loops.len() {
        if loops[li].source != "unknown" {
            continue;
        }
        let mut outer = Vec::new();
        let mut p = cfg.loops[li].parent;
        while let Some(q) = p {
            if loops[q].derived.is_some() {
                outer.push(q);
            }
            p = cfg.loops[q].parent;
        }
        let Some(text) = loops[li].scev.clone() else {
            continue;
        };
        let tiles: BTreeMap<String, String> = outer
            .iter()
            .filter_map(|&q| {
                Some((
                    loops[q].header.clone(),
                    loops[q].derived.as_ref()?.step.clone(),
                ))
            })
            .collect();
        let Ok(count) = crate::scev::to_bound_tiled(&text, symbol_of, values, &tiles) else {
            continue;
        };
        let reports: Vec<&LoopReport> = outer.iter().map(|&q| &loops[q]).collect();
        let Some(t) = crate::split::tile_sum_of(&loops[li].header, &count, &reports) else {
            continue;
        };
        let prefix = format!("loop %{}: ", loops[li].header);
        notes.retain(|n| !n.starts_with(&prefix));
        notes.push(format!(
            "{prefix}runs inside the tiles of %{}: its count over all tiles is the derived \
             parameter {} = {}, computed from the arguments' values (the two loops are counted as one)",
            t.outer, t.name, t.definition
        ));
        loops[li].backedge_taken = TripBound::single(Affine::symbol(&t.name));
        loops[li].source = "tile".into();
        loops[li].tile = Some(t);
    }
}

/// Flattens each tile loop into its inner loop in every context (`split::flatten_tile`); a
/// loop whose contexts cannot be flattened goes back to an unknown count.
fn flatten_tiles(
    cfg: &Cfg,
    loops: &mut [LoopReport],
    block_ctx: &mut BTreeMap<usize, Vec<Context>>,
    notes: &mut Vec<String>,
) {
    for li in 0..loops.len() {
        let Some(outer) = loops[li]
            .tile
            .as_ref()
            .and_then(|t| loops.iter().position(|l| l.header == t.outer))
        else {
            continue;
        };
        let header = cfg.loops[li].header;
        let extra = crate::split::tile_extra(block_ctx.get(&header).map_or(&[][..], |c| c), outer);
        let flat: Option<BTreeMap<usize, Vec<Context>>> = block_ctx
            .iter()
            .map(|(b, ctxs)| Some((*b, crate::split::flatten_tile(ctxs, li, outer, loops)?)))
            .collect();
        match flat {
            Some(flat) => {
                *block_ctx = flat;
                if let Some(t) = loops[li].tile.as_mut() {
                    t.extra = extra;
                }
            }
            None => {
                let h = loops[li].header.clone();
                notes.push(format!(
                    "loop %{h}: a tile loop's inner loop whose iteration other loops or conditions \
                     use; its trip count is the parameter trip_{}",
                    metron_symbolic::identifier(&h)
                ));
                loops[li].backedge_taken = unknown_trip(&h);
                loops[li].source = "unknown".into();
                loops[li].tile = None;
            }
        }
    }
}

fn unknown_trip(header: &str) -> TripBound {
    TripBound::single(
        Affine::symbol(&format!("trip_{}", metron_symbolic::identifier(header)))
            .add(&Affine::constant(-1)),
    )
}

/// An integer SSA value as an affine form: a literal, an argument, or its SCEV.
fn value_affine(
    v: &str,
    args: &BTreeMap<String, String>,
    scev: &FunctionScev,
) -> Result<Affine, MemoryError> {
    let Some(v) = v.strip_prefix('%') else {
        return v
            .parse::<i64>()
            .map(Affine::constant)
            .map_err(|_| MemoryError::NotAffine {
                expr: v.to_string(),
                reason: "not an integer".into(),
            });
    };
    let v = v.trim_matches('"');
    if let Some(s) = args.get(v) {
        return Ok(Affine::symbol(s));
    }
    match scev.values.get(v) {
        Some(t) => to_affine(t, &|n: &str| args.get(n).cloned()),
        None => Err(MemoryError::NotAffine {
            expr: v.to_string(),
            reason: "no scalar evolution".into(),
        }),
    }
}

/// A rotated loop is entered through a guard (`if (n > 0)`) whose failing side is empty and
/// which tests the same condition as the trip count; the counted nest is already empty then,
/// so the guard is not a branch for the policy.
fn is_loop_guard(arms: &[Vec<TreeNode>]) -> bool {
    if arms.len() != 2 {
        return false;
    }
    let has_loop = |a: &Vec<TreeNode>| a.iter().any(|n| matches!(n, TreeNode::Loop { .. }));
    let trivial = |a: &Vec<TreeNode>| a.iter().all(|n| matches!(n, TreeNode::Leaf { .. }));
    (has_loop(&arms[0]) && trivial(&arms[1]) && arms[1].len() <= 1)
        || (has_loop(&arms[1]) && trivial(&arms[0]) && arms[0].len() <= 1)
}

struct ContextBuilder<'a> {
    labels: &'a [String],
    /// Blocks whose branch condition reads no memory and calls nothing (indices and
    /// arguments only), for the note's wording.
    index_only: &'a BTreeSet<usize>,
    cfg: &'a Cfg,
    branch_conds: &'a BTreeMap<usize, BTreeMap<String, Vec<IndexCondition>>>,
    out: &'a mut BTreeMap<usize, Vec<Context>>,
    notes: &'a mut Vec<String>,
    /// Loops entered through a guard (`if (start < end)` before a rotated loop).
    guarded: &'a mut BTreeSet<usize>,
}

/// The count of a rotated loop assumes it is entered: scalar evolution writes
/// `max(end, start + 1) - start - 1`, i.e. max(end - start - 1, 0), whose constant term only
/// says "at least once". Behind its guard (`start < end`) the other term is >= 0 whenever the
/// loop runs and negative when the guard fails, so without the constant the counted nest is
/// empty exactly when the guard is false, whether or not the guard's condition is analysable
/// (`j = MAX(i + 1, 1)`, a `?:` phi scalar evolution does not see through).
/// A loop stepping by c has the floor c - 1 (`((max(end, start + c) - start - 1) /u c)`).
fn without_entry_floor(b: &TripBound, stride: i64) -> TripBound {
    let mut m = b.0.clone();
    // A term holding a constant below the stride is at most "one iteration": the floor, or
    // what is left of it when the start is itself a max (`X - X` not cancelled).
    let floor = |t: &Vec<metron_symbolic::AffineExpr>| {
        t.iter()
            .any(|e| e.terms.is_empty() && e.constant < stride.max(1))
    };
    if m.0.iter().any(|t| !floor(t)) {
        m.0.retain(|t| !floor(t));
    }
    TripBound(m)
}

impl ContextBuilder<'_> {
    fn assign(&mut self, nodes: &[TreeNode], ctx: &Context) {
        for n in nodes {
            match n {
                TreeNode::Leaf { block } => {
                    self.out.entry(*block).or_default().push(ctx.clone());
                }
                TreeNode::Loop { loop_index, body } => {
                    let mut c = ctx.clone();
                    c.loops.push(*loop_index);
                    c.depth_in_loop = 0;
                    self.assign(body, &c);
                }
                TreeNode::IfElse { id, block, arms } => self.if_else(*id, *block, arms, ctx),
            }
        }
    }

    fn if_else(&mut self, id: usize, block: usize, arms: &[Vec<TreeNode>], ctx: &Context) {
        if let Some(conds) = self.arm_conditions(block, arms) {
            for (arm, c) in arms.iter().zip(conds) {
                let mut inner = ctx.clone();
                inner.conds.extend(c);
                inner.depth_in_loop += 1;
                self.assign(arm, &inner);
            }
            return;
        }
        if let Some(l) = self.exit_test(block, arms, ctx) {
            // The loop's exit test on every iteration: the arm that stays runs on all but
            // the last header execution, whatever the (unanalysable) condition says.
            for arm in arms {
                let mut inner = ctx.clone();
                inner.shortened.push(l);
                self.assign(arm, &inner);
            }
            return;
        }
        let guard = is_loop_guard(arms);
        if guard {
            for n in arms.iter().flatten() {
                if let TreeNode::Loop { loop_index, .. } = n {
                    self.guarded.insert(*loop_index);
                }
            }
        }
        if !guard {
            let why = if self.index_only.contains(&block) {
                // `i < MIN(ii + b, m)` inside tiles: indices and arguments, but not affine.
                "its condition is not an index condition metron counts (no memory read: \
                 indices and arguments, not affine)"
            } else {
                "its condition depends on data"
            };
            self.notes.push(format!(
                "branch in %{}: {why}; its arms are weighted by the branch policy",
                self.labels[block]
            ));
        }
        // `branch->first` names the CFG edge into each arm (profiles, annotations).
        let labels = self.labels;
        let firsts: Vec<String> = arms
            .iter()
            .map(|a| {
                let first = first_block(a)
                    .map(|b| labels[b].clone())
                    .unwrap_or_default();
                format!("{}->{first}", labels[block])
            })
            .collect();
        for (ai, arm) in arms.iter().enumerate() {
            let mut c = ctx.clone();
            if !guard {
                c.arms.push((id, ai, arms.len(), firsts.clone()));
            }
            c.depth_in_loop += 1;
            self.assign(arm, &c);
        }
    }

    /// The innermost loop, when `block` is its exit test run on every iteration: a two-way
    /// branch at the top of the loop's body sequence whose one arm is empty because its
    /// target leaves the loop.
    fn exit_test(&self, block: usize, arms: &[Vec<TreeNode>], ctx: &Context) -> Option<usize> {
        let &l = ctx.loops.last()?;
        if ctx.depth_in_loop != 0 || arms.len() != 2 || !arms.iter().any(|a| a.is_empty()) {
            return None;
        }
        let inside = &self.cfg.loops[l].blocks;
        let succ = &self.cfg.succ[block];
        (succ.len() == 2 && succ.iter().filter(|s| !inside.contains(s)).count() == 1).then_some(l)
    }

    /// The index conditions of each arm, when the branch tests loop indices: an arm starts at
    /// a successor, or is empty (the successor is the join, or leaves this loop level), and
    /// then takes the one successor no other arm starts at.
    fn arm_conditions(
        &self,
        block: usize,
        arms: &[Vec<TreeNode>],
    ) -> Option<Vec<Vec<IndexCondition>>> {
        let by_target = self.branch_conds.get(&block)?;
        let mut out: Vec<Option<Vec<IndexCondition>>> = vec![None; arms.len()];
        let mut claimed = BTreeSet::new();
        for (ai, arm) in arms.iter().enumerate() {
            if let Some(first) = first_block(arm) {
                let label = &self.labels[first];
                out[ai] = Some(by_target.get(label)?.clone());
                claimed.insert(label.clone());
            }
        }
        let unclaimed: Vec<&String> = by_target.keys().filter(|t| !claimed.contains(*t)).collect();
        let empty: Vec<usize> = (0..arms.len()).filter(|&i| out[i].is_none()).collect();
        match (empty.as_slice(), unclaimed.as_slice()) {
            ([], _) => {}
            ([e], [t]) => out[*e] = Some(by_target[*t].clone()),
            _ => return None,
        }
        out.into_iter().collect()
    }
}

fn first_block(arm: &[TreeNode]) -> Option<usize> {
    match arm.first()? {
        TreeNode::Leaf { block } => Some(*block),
        TreeNode::Loop { body, .. } => first_block(body),
        TreeNode::IfElse { block, .. } => Some(*block),
    }
}

fn recursive_functions(functions: &BTreeMap<String, FunctionModel>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for name in functions.keys() {
        // Reachable from its own callees?
        let mut seen = BTreeSet::new();
        let mut work: Vec<&str> = functions[name]
            .calls
            .iter()
            .map(|c| c.callee.as_str())
            .collect();
        while let Some(g) = work.pop() {
            if g == name {
                out.insert(name.clone());
                break;
            }
            if seen.insert(g.to_string()) {
                if let Some(gm) = functions.get(g) {
                    work.extend(gm.calls.iter().map(|c| c.callee.as_str()));
                }
            }
        }
    }
    out
}

/// One access site reached from the analysed function, with its full context.
#[derive(Clone, Debug)]
pub struct ExpandedSite {
    pub function: String,
    pub site: usize,
    /// (variable, upper bound, stride) from outer to inner; the variable runs 0..=bound.
    pub nest: Vec<(String, TripBound, i64)>,
    pub arms: Vec<(String, usize, usize, Vec<String>)>,
    /// Conditions on the nest's variables and the parameters (branches on indices).
    pub conds: Vec<IndexCondition>,
    pub length: Option<Affine>,
}

/// What a call site passes down to its callee's sites: the enclosing nest, policy arms and
/// index conditions, and the callee's parameters as the caller's affine forms.
#[derive(Clone, Default)]
struct Outer {
    prefix: String,
    subst: BTreeMap<String, Affine>,
    nest: Vec<(String, TripBound, i64)>,
    arms: Vec<(String, usize, usize, Vec<String>)>,
    conds: Vec<IndexCondition>,
}

/// Expands the sites of `root` and, through calls, of everything it calls.
pub fn expand(
    model: &ModuleModel,
    root: &str,
    notes: &mut Vec<String>,
) -> Result<Vec<ExpandedSite>, MemoryError> {
    let Some(_) = model.functions.get(root) else {
        return Err(MemoryError::NoFunction {
            name: root.into(),
            available: model
                .functions
                .keys()
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
        });
    };
    let mut out = Vec::new();
    let mut ex = Expander {
        model,
        stack: vec![root.to_string()],
        out: &mut out,
        notes,
    };
    ex.expand(root, &Outer::default());
    Ok(out)
}

struct Expander<'a> {
    model: &'a ModuleModel,
    stack: Vec<String>,
    out: &'a mut Vec<ExpandedSite>,
    notes: &'a mut Vec<String>,
}

/// Forms of one function instance: loop symbols renamed per call instance, arguments
/// replaced by the call's values, and iteration numbers of strided loops rescaled.
struct Instance<'a> {
    f: &'a FunctionModel,
    map: BTreeMap<String, Affine>,
    /// A strided loop's nest variable counts in steps of its stride (0, c, 2c, ...), so
    /// forms written in its iteration number k are rewritten with k = var / c.
    strided: BTreeMap<String, i64>,
    outer: &'a Outer,
}

impl Instance<'_> {
    fn form(&self, a: &Affine, notes: &mut Vec<String>) -> Affine {
        let mut r = a.clone();
        for (name, c) in r.terms.iter_mut() {
            if let Some(s) = self.strided.get(name) {
                if *c % s == 0 {
                    *c /= s;
                } else {
                    let n = format!("{}: `{a}` uses the iteration of a loop stepping by {s}; its count is approximate", self.f.name);
                    if !notes.contains(&n) {
                        notes.push(n);
                    }
                }
            }
        }
        r.substitute(&self.map)
    }

    fn nest(&self, ctx: &Context, notes: &mut Vec<String>) -> Vec<(String, TripBound, i64)> {
        let mut n = self.outer.nest.clone();
        for &li in &ctx.loops {
            let l = &self.f.loops[li];
            let last = if ctx.shortened.contains(&li) {
                -l.stride
            } else {
                0
            };
            let fixed: BTreeMap<String, Affine> = ctx
                .fixed
                .iter()
                .map(|(k, v)| (k.clone(), Affine::constant(*v)))
                .collect();
            n.push((
                format!("{}{}", self.outer.prefix, l.variable),
                l.backedge_taken
                    .map(|a| self.form(&a.substitute(&fixed).add(&Affine::constant(last)), notes)),
                l.stride,
            ));
        }
        n
    }

    fn arms(&self, ctx: &Context) -> Vec<(String, usize, usize, Vec<String>)> {
        let mut a = self.outer.arms.clone();
        for (id, arm, n, first) in &ctx.arms {
            let edges = first
                .iter()
                .map(|e| format!("{}:{e}", self.f.name))
                .collect();
            a.push((
                format!("{}{}#{id}", self.outer.prefix, self.f.name),
                *arm,
                *n,
                edges,
            ));
        }
        a
    }

    fn conds(&self, ctx: &Context, notes: &mut Vec<String>) -> Vec<IndexCondition> {
        let mut c = self.outer.conds.clone();
        c.extend(ctx.conds.iter().map(|x| x.map(|a| self.form(a, notes))));
        c
    }
}

impl Expander<'_> {
    fn expand(&mut self, fname: &str, outer: &Outer) {
        let model = self.model;
        let f = &model.functions[fname];
        let mut map = outer.subst.clone();
        for l in &f.loops {
            map.insert(
                l.variable.clone(),
                Affine::symbol(&format!("{}{}", outer.prefix, l.variable)),
            );
        }
        let inst = Instance {
            f,
            map,
            strided: f
                .loops
                .iter()
                .filter(|l| l.stride != 1)
                .map(|l| (l.variable.clone(), l.stride))
                .collect(),
            outer,
        };
        for (i, ctxs) in f.site_context.iter().enumerate() {
            for ctx in ctxs {
                let site = ExpandedSite {
                    function: fname.to_string(),
                    site: i,
                    nest: inst.nest(ctx, self.notes),
                    arms: inst.arms(ctx),
                    conds: inst.conds(ctx, self.notes),
                    length: f.site_length[i].as_ref().map(|l| l.substitute(&inst.map)),
                };
                self.out.push(site);
            }
        }
        for (ci, call) in f.calls.iter().enumerate() {
            let Some(g) = model.functions.get(&call.callee) else {
                continue;
            };
            if self.stack.contains(&call.callee) {
                self.notes.push(format!(
                    "recursion: {} calls {} (line {}): only one activation is counted. \
                     Recursion that `tailcallelim` (in the default passes) does not turn into a loop \
                     needs an annotation: give the count with --param or count the caller",
                    fname, call.callee, call.line
                ));
                continue;
            }
            let mut subst = BTreeMap::new();
            for (pi, p) in g.params.iter().enumerate() {
                match call.args.get(pi) {
                    Some(Some(a)) => {
                        subst.insert(p.clone(), inst.form(a, self.notes));
                    }
                    _ if call.arg_is_int.get(pi).copied().unwrap_or(false) => {
                        let free = format!("{}_{}", p, call.line);
                        self.notes.push(format!(
                            "call of {} at line {}: argument `{p}` is not affine in the loop indices; \
                             it is the parameter {free}",
                            call.callee, call.line
                        ));
                        subst.insert(p.clone(), Affine::symbol(&free));
                    }
                    _ => {}
                }
            }
            for (pi, ctx) in f.call_context[ci].iter().enumerate() {
                let path = if pi == 0 {
                    String::new()
                } else {
                    format!("p{pi}")
                };
                let inner = Outer {
                    prefix: format!("{}c{ci}{path}_", outer.prefix),
                    subst: subst.clone(),
                    nest: inst.nest(ctx, self.notes),
                    arms: inst.arms(ctx),
                    conds: inst.conds(ctx, self.notes),
                };
                self.stack.push(call.callee.clone());
                self.expand(&call.callee, &inner);
                self.stack.pop();
            }
        }
    }
}

/// Count of one expanded site, before branch weights.
pub fn site_count(s: &ExpandedSite) -> Result<Piecewise, MemoryError> {
    let summand = match &s.length {
        Some(l) => QuasiPolynomial::from(&lin(l)),
        None => QuasiPolynomial::integer(1),
    };
    if s.nest.is_empty() && s.conds.is_empty() {
        return Ok(Piecewise::from(summand));
    }
    // The ends are given to `sum_over_nested`; a placeholder stands in the flat nest.
    let loops = s
        .nest
        .iter()
        .map(|(v, _, stride)| Loop {
            var: v.clone(),
            start: metron_symbolic::Bound::single(metron_symbolic::AffineExpr::constant(0)),
            end: metron_symbolic::Bound::single(metron_symbolic::AffineExpr::constant(0)),
            end_inclusive: true,
            stride: *stride,
            residues: Vec::new(),
        })
        .collect();
    let ends: Vec<_> = s
        .nest
        .iter()
        .map(|(_, btc, _)| Some(btc.to_symbolic().clone()))
        .collect();
    let mut nest = LoopNest::new(loops);
    for c in &s.conds {
        nest = nest.with_condition(c.to_symbolic());
    }
    let mut p = metron_symbolic::sum_over_nested(&nest, &ends, &summand, &CountOptions::default())?;
    p.simplify();
    Ok(p)
}

fn lin(a: &Affine) -> metron_symbolic::LinExpr {
    let mut e = metron_symbolic::LinExpr::integer(a.constant);
    for (n, c) in &a.terms {
        e = e.plus(
            &metron_symbolic::LinExpr::symbol(n).scaled(&Rational::from_integer(BigInt::from(*c))),
        );
    }
    e
}

/// Weight of each expanded site under the branch policy. `binding` decides `max`.
pub fn weights(
    sites: &[ExpandedSite],
    counts: &[Piecewise],
    policy: &BranchPolicy,
    binding: &Binding,
) -> Result<Vec<Rational>, MemoryError> {
    let one = Rational::from_integer(BigInt::from(1));
    match policy {
        BranchPolicy::Sum => Ok(vec![one; sites.len()]),
        BranchPolicy::Mean => Ok(sites
            .iter()
            .map(|s| {
                s.arms.iter().fold(one.clone(), |w, (_, _, n, _)| {
                    w / Rational::from_integer(BigInt::from(*n as i64))
                })
            })
            .collect()),
        BranchPolicy::Probabilities(p) => Ok(sites
            .iter()
            .map(|s| {
                s.arms.iter().fold(one.clone(), |w, (_, arm, _, edges)| {
                    // An arm is named by its edge `function:branch->first` (profile,
                    // annotation) or by its first block alone (`--branch-policy if.then=P`).
                    let lookup = |e: &String| {
                        p.get(e).or_else(|| {
                            e.rsplit_once("->")
                                .map(|(_, first)| first)
                                .filter(|f| !f.is_empty())
                                .and_then(|f| p.get(f))
                        })
                    };
                    // Named arms take their probability; the others share the rest.
                    let named: f64 = edges.iter().filter_map(lookup).sum();
                    let unnamed = edges.iter().filter(|e| lookup(e).is_none()).count();
                    let q = match lookup(&edges[*arm]) {
                        Some(q) => *q,
                        None => (1.0 - named).max(0.0) / unnamed.max(1) as f64,
                    };
                    w * probability_rational(q)
                })
            })
            .collect()),
        BranchPolicy::Max if sites.iter().all(|s| s.arms.is_empty()) => Ok(vec![one; sites.len()]),
        BranchPolicy::Max => {
            let values: Vec<f64> = counts
                .iter()
                .map(|c| c.evaluate(binding).map(|r| r.to_f64().unwrap_or(0.0)))
                .collect::<Result<_, _>>()?;
            // Deepest if-else first, so that an outer choice sees its arms' inner choices.
            let mut ifs: BTreeMap<String, usize> = BTreeMap::new();
            for s in sites {
                for (d, (key, _, _, _)) in s.arms.iter().enumerate() {
                    ifs.insert(key.clone(), d);
                }
            }
            let mut order: Vec<(String, usize)> = ifs.into_iter().collect();
            order.sort_by_key(|x| std::cmp::Reverse(x.1));
            let mut chosen: BTreeMap<String, usize> = BTreeMap::new();
            for (key, depth) in order {
                let mut per_arm: BTreeMap<usize, f64> = BTreeMap::new();
                for (s, v) in sites.iter().zip(&values) {
                    if let Some((_, arm, _, _)) = s.arms.get(depth).filter(|a| a.0 == key) {
                        let inner_ok = s.arms[depth + 1..]
                            .iter()
                            .all(|(k, a, _, _)| chosen.get(k).is_none_or(|c| c == a));
                        if inner_ok {
                            *per_arm.entry(*arm).or_insert(0.0) += v;
                        }
                    }
                }
                let best = per_arm
                    .iter()
                    .max_by(|a, b| a.1.total_cmp(b.1))
                    .map(|(a, _)| *a)
                    .unwrap_or(0);
                chosen.insert(key, best);
            }
            Ok(sites
                .iter()
                .map(|s| {
                    let all = s.arms.iter().all(|(k, a, _, _)| chosen.get(k) == Some(a));
                    if all {
                        one.clone()
                    } else {
                        Rational::from_integer(BigInt::zero())
                    }
                })
                .collect())
        }
    }
}

/// The simplest fraction within 1e-12 of `q` (continued fractions), so that a profiled
/// 0.42 = 42/100 counts as 21/50 and not as the binary float's 53-bit fraction: counts stay
/// readable and a profile's run is reproduced exactly.
pub fn probability_rational(q: f64) -> Rational {
    let zero = || Rational::from_integer(BigInt::zero());
    if !q.is_finite() || q <= 0.0 {
        return zero();
    }
    let (mut h0, mut h1, mut k0, mut k1) = (0i128, 1i128, 1i128, 0i128);
    let mut x = q;
    for _ in 0..40 {
        let a = x.floor();
        if a > 1e15 {
            break;
        }
        let a = a as i128;
        (h0, h1) = (h1, a * h1 + h0);
        (k0, k1) = (k1, a * k1 + k0);
        if k1 > 1 << 62 || ((h1 as f64 / k1 as f64) - q).abs() <= 1e-12 * q.max(1e-300) {
            break;
        }
        let frac = x - x.floor();
        if frac == 0.0 {
            break;
        }
        x = 1.0 / frac;
    }
    if k1 == 0 {
        return Rational::from_float(q).unwrap_or_else(zero);
    }
    Rational::new(BigInt::from(h1), BigInt::from(k1))
}

/// Reads and writes of one variable of one function.
#[derive(Clone, Debug, Serialize)]
pub struct VariableCount {
    pub function: String,
    pub variable: Variable,
    pub reads: Piecewise,
    pub writes: Piecewise,
    pub reads_value: Option<String>,
    pub writes_value: Option<String>,
    pub intrinsic: bool,
}

/// The result for one analysed function: N_k (own sites plus callees').
#[derive(Clone, Debug, Serialize)]
pub struct FunctionCounts {
    pub function: String,
    pub params: Vec<String>,
    pub policy: BranchPolicy,
    pub n_k: Piecewise,
    pub n_k_value: Option<String>,
    pub reads: Piecewise,
    pub writes: Piecewise,
    pub variables: Vec<VariableCount>,
    pub notes: Vec<String>,
    /// Values of the derived trip parameters (`q_<header>`) computed from the binding.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub derived: BTreeMap<String, i64>,
    /// Count of each site of each function reached, for validation.
    #[serde(skip)]
    pub per_site: BTreeMap<(String, usize), Piecewise>,
}

impl FunctionCounts {
    /// `binding` with the derived parameters these counts were evaluated with.
    pub fn binding(&self, binding: &Binding) -> Binding {
        let mut b = binding.clone();
        for (k, v) in &self.derived {
            b.entry(k.clone()).or_insert(*v);
        }
        b
    }
}

/// `binding` plus the derived trip parameters of `root`'s loops whose arguments it binds
/// (a derived parameter given by hand is kept).
pub fn with_derived(
    model: &ModuleModel,
    root: &str,
    binding: &Binding,
) -> Result<Binding, MemoryError> {
    let mut out = binding.clone();
    let loops = model.functions.get(root).into_iter().flat_map(|f| &f.loops);
    for d in loops.clone().filter_map(|l| l.derived.as_ref()) {
        if !out.contains_key(&d.name) {
            bind_derived(&mut out, &d.name, d.value(binding))?;
        }
    }
    // A tile loop's inner count is summed over the tiles, which the tile loop's q counts.
    for t in loops.filter_map(|l| l.tile.as_ref()) {
        if !out.contains_key(&t.name) {
            let v = t.value(&out);
            bind_derived(&mut out, &t.name, v)?;
        }
    }
    Ok(out)
}

/// Binds a derived parameter's value; one whose arguments have no value stays symbolic.
fn bind_derived(
    out: &mut Binding,
    name: &str,
    value: Result<i64, crate::exit_count::DerivedError>,
) -> Result<(), MemoryError> {
    match value {
        Ok(v) => {
            out.insert(name.to_string(), v);
            Ok(())
        }
        Err(crate::exit_count::DerivedError::Unbound(_)) => Ok(()),
        Err(e) => Err(MemoryError::DerivedCount {
            name: name.to_string(),
            why: e.to_string(),
        }),
    }
}

/// N_k of `root` under `policy` (003 Eq. 3.1's N_k), evaluated where `binding` covers it.
pub fn count_function(
    model: &ModuleModel,
    root: &str,
    policy: &BranchPolicy,
    binding: &Binding,
) -> Result<FunctionCounts, MemoryError> {
    let mut notes = model
        .functions
        .get(root)
        .map(|f| f.notes.clone())
        .unwrap_or_default();
    let derived: BTreeMap<String, i64> = with_derived(model, root, binding)?
        .into_iter()
        .filter(|(k, _)| !binding.contains_key(k))
        .collect();
    let binding = &derived
        .iter()
        .map(|(k, v)| (k.clone(), *v))
        .chain(binding.clone())
        .collect::<Binding>();
    let sites = expand(model, root, &mut notes)?;
    let counts: Vec<Piecewise> = sites.iter().map(site_count).collect::<Result<_, _>>()?;
    let mut decide = binding.clone();
    if *policy == BranchPolicy::Max && sites.iter().any(|s| !s.arms.is_empty()) {
        let mut missing = BTreeSet::new();
        for c in &counts {
            for p in c.parameters() {
                if !decide.contains_key(&p) {
                    missing.insert(p);
                }
            }
        }
        if !missing.is_empty() {
            let m: Vec<_> = missing.into_iter().collect();
            notes.push(format!(
                "branch policy max: arms compared with {} = 100 (give --param to choose for your sizes)",
                m.join(", ")
            ));
            for p in m {
                decide.insert(p, 100);
            }
        }
    }
    let w = weights(&sites, &counts, policy, &decide)?;
    let mut per_site: BTreeMap<(String, usize), Piecewise> = BTreeMap::new();
    let mut per_var: BTreeMap<(String, Variable), (Piecewise, Piecewise, bool)> = BTreeMap::new();
    let mut reads = Piecewise::zero();
    let mut writes = Piecewise::zero();
    for ((s, c), w) in sites.iter().zip(&counts).zip(&w) {
        let c = c.scaled(w);
        let site = &model.functions[&s.function].sites[s.site];
        let e = per_site
            .entry((s.function.clone(), s.site))
            .or_insert_with(Piecewise::zero);
        *e = &*e + &c;
        let v = per_var
            .entry((s.function.clone(), site.variable.clone()))
            .or_insert_with(|| (Piecewise::zero(), Piecewise::zero(), false));
        v.2 |= site.intrinsic.is_some();
        match site.kind {
            AccessKind::Read => {
                v.0 = &v.0 + &c;
                reads = &reads + &c;
            }
            AccessKind::Write => {
                v.1 = &v.1 + &c;
                writes = &writes + &c;
            }
        }
    }
    for v in per_site.values_mut() {
        v.simplify();
    }
    let value = |p: &Piecewise| evaluate_text(p, binding);
    let variables = per_var
        .into_iter()
        .map(|((function, variable), (mut r, mut w, intrinsic))| {
            r.simplify();
            w.simplify();
            VariableCount {
                function,
                variable,
                reads_value: value(&r),
                writes_value: value(&w),
                reads: r,
                writes: w,
                intrinsic,
            }
        })
        .collect();
    let mut n_k = &reads + &writes;
    n_k.simplify();
    reads.simplify();
    writes.simplify();
    Ok(FunctionCounts {
        function: root.to_string(),
        params: model.functions[root].params.clone(),
        policy: policy.clone(),
        n_k_value: value(&n_k),
        n_k,
        reads,
        writes,
        variables,
        notes,
        derived,
        per_site,
    })
}

/// The exact value as text when every parameter is bound.
pub fn evaluate_text(p: &Piecewise, binding: &Binding) -> Option<String> {
    p.evaluate(binding).ok().map(|r| rational_text(&r))
}

/// An integer as it is; an expected count (probabilities, profiled trips) to 3 decimals.
pub fn rational_text(r: &Rational) -> String {
    if r.is_integer() {
        r.to_integer().to_string()
    } else {
        format!("{:.3}", r.to_f64().unwrap_or(f64::NAN))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn probabilities_become_simple_fractions() {
        let r = |n: i64, d: i64| Rational::new(BigInt::from(n), BigInt::from(d));
        assert_eq!(probability_rational(0.42), r(21, 50));
        assert_eq!(probability_rational(42.0 / 100.0), r(21, 50));
        assert_eq!(probability_rational(3.0 / 7.0), r(3, 7));
        assert_eq!(probability_rational(0.25), r(1, 4));
        assert_eq!(probability_rational(1.0), r(1, 1));
        assert_eq!(probability_rational(0.0), r(0, 1));
        assert_eq!(probability_rational(99.0 / 100.0), r(99, 100));
        assert_eq!(probability_rational(f64::NAN), r(0, 1));
    }
}
