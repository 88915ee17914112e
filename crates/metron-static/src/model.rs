//! The static model (004 §III.C): every basic block's execution count as a piecewise
//! polynomial in the program's parameters, from the binary loop it sits in and the trip
//! count of the source loop that binary loop maps to (004 §III.A.2, line numbers).
//!
//! Better than Mira where its approximations cost accuracy: a top-tested loop's header runs
//! once more per entry than its body (`iterations + entries`), a bottom-tested (rotated) loop's
//! blocks all run `iterations` times, and nests are counted as a whole by metron-symbolic so
//! that triangular and min/max nests are exact.

use std::collections::{BTreeMap, BTreeSet};

use metron_symbolic::{Binding, CountOptions, Piecewise, Rational};
use serde::Serialize;

use crate::binary::{Binary, Function};
use crate::category::{Architecture, Counts};
use crate::cfg::Cfg;
use crate::error::Result;
use crate::inline_frame::{base_name, inline_levels, Argument};
pub use crate::loop_context::LoopContext;
// Re-exported for code written against their old home (the loop-copy counting must import
// them from `loop_context`: tests/layers.rs).
pub(crate) use crate::loop_context::{lines_of, own_blocks, same_file, source_total};
use crate::source::SourceModel;

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
    /// For a copy of a vectorised/unrolled source loop: how its factor was read.
    pub counted_from: Option<String>,
    #[serde(skip)]
    pub blocks: BTreeSet<usize>,
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
    pub plt_calls: Vec<(usize, Vec<iced_x86::Mnemonic>)>,
    /// Parameters named after an inlined call's line (`n_41`): program-wide, bound by the
    /// user like those of calls that stayed calls.
    pub renamed: BTreeSet<String>,
    /// Trip counts of the function's own loops that step by a parameter and of the tiles
    /// before a branch on a tile counter changes, then counts of loops inside the tiles summed
    /// over the tiles, computed from the other parameters when the counts are evaluated, in
    /// this order (`source::derived_step`, `source::tile_condition`, `source::tile`).
    pub derived: Vec<metron_symbolic::Derived>,
    /// libm error paths (`sqrt`'s errno call), counted as not taken unless profiled.
    pub error_paths: Vec<crate::error_path::ErrorPath>,
    /// The data-dependent branches its counts rest on, with what was assumed (file:line).
    pub assumptions: Vec<crate::assumption::Assumption>,
    /// What runs of the machine code checked and refitted, or why they could not decide
    /// (`None` under `--mira-compat`, which reproduces Mira's counts).
    pub calibration: Option<crate::calibrate::Checked>,
    /// Size parameters the compiler fixed to a constant (DWARF `DW_AT_const_value`: a
    /// `.constprop` clone, or clang's specialised static function): the counts are at that
    /// value, whatever a caller binds.
    pub fixed: BTreeMap<String, i64>,
    /// Blocks counted with a data-dependent loop bound's recorded mean (`with_data_means`):
    /// their counts follow data, and the model's are better than any envelope of the runs.
    pub by_data_mean: BTreeSet<usize>,
}

impl FunctionModel {
    /// Parameters the counts depend on (a derived trip count's inputs in its place).
    pub fn parameters(&self) -> BTreeSet<String> {
        let mut out: BTreeSet<String> = self
            .block_counts
            .iter()
            .flat_map(|c| c.parameters())
            .collect();
        // A tile sum's inputs hold its tile loop's trip count: latest first.
        for d in self.derived.iter().rev() {
            if out.remove(d.name()) {
                out.extend(d.inputs().into_iter().cloned());
            }
        }
        out
    }

    /// `binding` with the derived trip counts it determines (one given by hand is kept); a
    /// step that makes a loop endless (0 or negative) is an error naming the loop.
    pub fn with_derived(&self, binding: &Binding) -> Result<Binding> {
        with_derived(&self.derived, binding)
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
        let binding = &match self.with_derived(binding) {
            Ok(b) => b,
            Err(e) => return (vec![f64::NAN; self.block_counts.len()], Some(e)),
        };
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
            for ins in block.code(function) {
                c.add(arch, ins, block_values[b]);
            }
        }
        for (b, path) in &self.plt_calls {
            if only.is_some_and(|o| !o.contains(b)) {
                continue;
            }
            for &m in path {
                c.add_plt(arch, m, block_values[*b]);
            }
        }
        c
    }
}

/// What modelling one function reads: its code and CFG, the source, and each binary loop's
/// source loop (004 §III.A.2: by line numbers).
struct FunctionContext<'a> {
    function: &'a Function,
    cfg: &'a Cfg,
    source: &'a SourceModel,
    file: String,
    options: CountOptions,
    /// Binary loop -> source loop.
    mapping: BTreeMap<usize, Option<usize>>,
    /// Source loop -> total iterations per call of its nest, counted on demand: a large
    /// program has thousands of source loops, few per function.
    totals: std::cell::RefCell<BTreeMap<usize, std::result::Result<Piecewise, String>>>,
}

/// A binary loop's iterations and entries per call, in the source loop's function's
/// parameters, and why it is not exact.
struct LoopCount {
    iterations: Piecewise,
    entries: Piecewise,
    note: Option<String>,
}

impl LoopCount {
    /// A loop without a usable source count: a parameter named after it.
    fn unknown(name: String, note: String) -> LoopCount {
        LoopCount {
            iterations: Piecewise::parameter(&name),
            entries: Piecewise::constant(1),
            note: Some(note),
        }
    }
}

impl FunctionContext<'_> {
    fn total(&self, s: usize) -> std::result::Result<Piecewise, String> {
        self.totals
            .borrow_mut()
            .entry(s)
            .or_insert_with(|| source_total(self.source, s, &self.options))
            .clone()
    }

    fn source_loop(&self, l: usize) -> Option<usize> {
        self.mapping.get(&l).copied().flatten()
    }

    /// Entries of source loop `s` per call: its parent's iterations, else once.
    fn entries(&self, s: usize) -> Piecewise {
        match self.source.loops[s].parent {
            Some(p) => self.total(p).unwrap_or_else(|_| Piecewise::constant(1)),
            None => Piecewise::constant(1),
        }
    }

    /// Iterations and entries of binary loop `l`, before its inline context is applied.
    fn loop_count(&self, l: usize, copies: &crate::loop_copy::SourceCopies) -> LoopCount {
        let (source, cfg) = (self.source, self.cfg);
        let Some(s) = self.source_loop(l) else {
            let header = cfg.blocks[cfg.loops[l].header].start;
            return LoopCount::unknown(
                crate::loop_context::unmapped_trip(header),
                "no source loop found at this loop's lines".to_string(),
            );
        };
        let unknown = |why: String| {
            let line = source.loops[s].line;
            let file = source
                .file
                .file_name()
                .unwrap_or_default()
                .to_string_lossy();
            LoopCount::unknown(
                format!("trip_{line}"),
                format!("{file}:{line}: {why}; annotate its trip count"),
            )
        };
        // Copies of the same source loop: vectorised, unrolled, versioned or split.
        let siblings: Vec<usize> = (0..cfg.loops.len())
            .filter(|&o| self.source_loop(o) == Some(s))
            .collect();
        let widest = siblings
            .iter()
            .map(|&o| copies.factor[o])
            .max()
            .unwrap_or(1);
        if widest > 1 || copies.grouped(s) {
            return match copies.copy_counts(source, s, &self.options) {
                Ok((passes, entries)) => LoopCount {
                    iterations: passes
                        .get(&crate::loop_copy::Copy::Loop(l))
                        .cloned()
                        .unwrap_or_else(Piecewise::zero),
                    entries,
                    note: None,
                },
                Err(why) => unknown(why),
            };
        }
        let total = match self.total(s) {
            Ok(t) => t,
            Err(why) => return unknown(why),
        };
        let entries = self.entries(s);
        let (iterations, entries) = if siblings.len() > 1 {
            let split = crate::branch::split_iterations(
                self.function,
                cfg,
                source,
                &self.file,
                s,
                l,
                &siblings,
            )
            .or_else(|| {
                crate::loop_copy::unswitched_iterations(
                    self.function,
                    cfg,
                    source,
                    &self.mapping,
                    (l, s),
                    &siblings,
                    &self.options,
                )
            });
            (split.unwrap_or(total), entries)
        } else {
            crate::loop_copy::within_wide_parent(
                self.function,
                cfg,
                source,
                &copies.factor,
                &self.mapping,
                (l, s),
                &self.options,
            )
            .unwrap_or((total, entries))
        };
        LoopCount {
            iterations,
            entries,
            note: self.data_note(s),
        }
    }

    /// The flag of a loop whose exit test reads data and has no value for its bound yet, or
    /// the definition of a trip count derived from a step that is a parameter.
    fn data_note(&self, s: usize) -> Option<String> {
        let l = &self.source.loops[s];
        let file = self.source.file.file_name().unwrap_or_default();
        if let Some(d) = &l.derived {
            return Some(format!(
                "{}:{}: the step is the parameter `{}`: {} = {}, computed from the parameters",
                file.to_string_lossy(),
                l.line,
                d.step,
                d.name,
                d.definition
            ));
        }
        if let Some(x) = &l.start_from {
            return Some(format!(
                "{}:{}: goes on with the counter the loop before it left: {} = {}, computed \
                 from the parameters",
                file.to_string_lossy(),
                l.line,
                x.name,
                x.definition
            ));
        }
        if let Some(t) = &l.tile {
            return Some(format!(
                "{}:{}: runs inside the tiles of line {}: counted over all tiles as {} = {}, \
                 computed from the parameters (the two loops are counted as one)",
                file.to_string_lossy(),
                l.line,
                self.source.loops[t.tile_loop].line,
                t.sum.name,
                t.sum.definition
            ));
        }
        let d = l.data_bound.as_ref().filter(|d| d.mean.is_none())?;
        Some(format!(
            "{}:{}: data-dependent loop bound: the exit test reads data; counted with its \
             mean value over the loop's entries as the parameter `{p}` (give --param {p}=V, \
             or record it with `metron static validate --record-branch-profile`)",
            file.to_string_lossy(),
            l.line,
            p = d.parameter
        ))
    }

    /// The times a loop's source counts run per iteration of the binary loops around it:
    /// a loop inlined from another function (outermost in its own function) sits inside a
    /// binary loop that maps elsewhere (the caller's loop) and is scaled by it; a loop nested
    /// in the same function inherits its binary parent's context.
    fn outer_times(
        &self,
        l: usize,
        contexts: &[LoopContext],
        loop_iterations: &[Piecewise],
    ) -> Option<Piecewise> {
        let loops = &self.source.loops;
        match (self.source_loop(l), self.cfg.loops[l].parent) {
            (Some(s), Some(p)) if loops[s].parent.is_none() => {
                let same_function = self
                    .source_loop(p)
                    .is_some_and(|ps| loops[ps].function == loops[s].function);
                (!same_function).then(|| loop_iterations[p].clone())
            }
            (Some(_), Some(p)) => contexts[p].times.clone(),
            _ => None,
        }
    }
}

/// Builds the model of `function` with loop bounds from `source`.
pub fn model_function(
    function: &Function,
    source: &SourceModel,
    mira_compat: bool,
) -> FunctionModel {
    let cfg = Cfg::build(function);
    let file = source.file.display().to_string();
    let mut mapping = map_loops(function, &cfg, source, &file);
    if !mira_compat {
        crate::loop_copy::follow_nesting(function, &cfg, source, &mut mapping);
    }
    let cx = FunctionContext {
        function,
        cfg: &cfg,
        source,
        file,
        options: CountOptions::default(),
        mapping,
        totals: Default::default(),
    };
    // Unrolled and vectorised copies of source loops, and their straight-line passes.
    let copies = crate::loop_copy::SourceCopies::find(
        function,
        &cfg,
        source,
        &cx.file,
        &cx.mapping,
        mira_compat,
    );
    let mut block_counts = vec![Piecewise::constant(1); cfg.blocks.len()];
    // 004 §III.C.5 for inlined code: a loop inlined from another function counts in that
    // function's parameters, bound to the arguments of the call it was inlined at.
    let mut contexts: Vec<LoopContext> = (0..cfg.loops.len())
        .map(|l| LoopContext {
            times: None,
            inlined: inline_levels_of(function, &cfg, source, cx.source_loop(l), l),
        })
        .collect();
    let mut loops = count_loops(&cx, &copies, mira_compat, &mut contexts, &mut block_counts);
    count_outside_loops(&cx, &copies, &contexts, &mut loops, &mut block_counts);
    let by_data_mean = with_data_means(source, &mut block_counts);
    let used: BTreeSet<String> = block_counts.iter().flat_map(|c| c.parameters()).collect();
    let assumptions = crate::assumption::data_dependent(function, &cfg, source);
    // The locals its calls pass are derived too (`int n = N; kernel(n, *A)` in `main`):
    // the callee's count is evaluated at their values.
    let passed = source
        .calls
        .iter()
        .filter(|c| c.function == base_name(&function.name))
        .flat_map(|c| c.arguments.iter().flatten())
        .flat_map(|a| a.terms.keys().cloned());
    let read: BTreeSet<String> = used.iter().cloned().chain(passed).collect();
    let mut derived = derived_of(source, &function.name, &read);
    let inlined = (0..cfg.loops.len()).filter_map(|l| Some((cx.source_loop(l)?, &contexts[l])));
    for d in inlined_derived(source, inlined, &used) {
        if derived.iter().all(|o| o.name() != d.name()) {
            derived.push(d);
        }
    }
    FunctionModel {
        name: function.name.clone(),
        symbol: function.symbol.clone(),
        cfg,
        block_counts,
        loops,
        plt_calls: Vec::new(),
        error_paths: Vec::new(),
        assumptions,
        calibration: None,
        fixed: BTreeMap::new(),
        by_data_mean,
        renamed: contexts
            .iter()
            .flat_map(|c| c.inlined.iter().flat_map(|level| level.values()))
            .filter_map(|a| match a {
                Argument::Renamed(n) => Some(n.clone()),
                Argument::Expr(_) => None,
            })
            .filter(|n| used.contains(n))
            .collect(),
        derived,
    }
}

/// The derived parameters of the functions inlined into this one (a local `m = n % 5` of a
/// kernel inlined into `main`) that its counts read: each computed in its function's names,
/// bound to the arguments of the call it was inlined at, level by level.
fn inlined_derived<'a>(
    source: &SourceModel,
    loops: impl Iterator<Item = (usize, &'a LoopContext)>,
    used: &BTreeSet<String>,
) -> Vec<metron_symbolic::Derived> {
    use metron_symbolic::{AffineExpr, Derived, InlinedDerived};
    let mut out: Vec<Derived> = Vec::new();
    for (s, context) in loops.filter(|(_, c)| !c.inlined.is_empty()) {
        for mut d in derived_of(source, &source.loops[s].function, used) {
            for level in &context.inlined {
                // Only the parameters it reads: another (`double da`) may have no value.
                let reads: BTreeSet<&String> = d.inputs().into_iter().collect();
                let arguments = level
                    .iter()
                    .filter(|(p, _)| reads.contains(p))
                    .map(|(p, a)| {
                        let value = match a {
                            Argument::Expr(e) => e.clone(),
                            Argument::Renamed(n) => AffineExpr::var(n),
                        };
                        (p.clone(), value)
                    })
                    .collect();
                d = Derived::Inlined(InlinedDerived {
                    arguments,
                    inner: Box::new(d),
                });
            }
            if out.iter().all(|o| o.name() != d.name()) {
                out.push(d);
            }
        }
    }
    out
}

fn one_line(count: &str) -> String {
    count.lines().map(str::trim).collect::<Vec<_>>().join("; ")
}

/// A loop whose header the runs refitted says so, with the count it now has.
fn note_refitted_loops(c: &crate::calibrate::Calibration, loops: &mut [LoopModel]) {
    for l in loops.iter_mut() {
        let Some(r) = c.refitted.iter().find(|r| r.address == l.header_address) else {
            continue;
        };
        l.counted_from = Some(format!(
            "{} runs of the machine code (header refitted to {}; the copy rules gave {})",
            c.samples,
            one_line(&r.now),
            one_line(&r.was)
        ));
    }
}

/// The longest period in a data-dependent bound over which a mean is counted
/// (`Piecewise::at_mean`): past the unroll and vector factors compilers use, short of the
/// guards a long step would cross at small sizes. Recording (`loop_profile`) takes the same.
pub(crate) const MAX_MEAN_PERIOD: i64 = 64;

/// Data-dependent loop bounds with a recorded mean (`source::data_bound`): each count at the
/// mean of the bound's parameter (`Piecewise::at_mean`), exact for the total while every
/// entry runs at least once and the values spread over the residues of the count's floors;
/// also a loop inlined here from another function of the file. The blocks whose counts took
/// a mean.
fn with_data_means(source: &SourceModel, block_counts: &mut [Piecewise]) -> BTreeSet<usize> {
    let mut substituted = BTreeSet::new();
    let means = source.loops.iter().filter_map(|l| {
        let d = l.data_bound.as_ref()?;
        Some((&d.parameter, Rational::from_float(d.mean?)?))
    });
    for (parameter, mean) in means {
        // `data_LINE` names one loop of the file, wherever it was inlined; renamed at a call
        // whose argument it is (`data_19_37`).
        let is_bound =
            |p: &String| p == parameter || crate::inline_frame::fallback_name(p) == Some(parameter);
        for (b, c) in block_counts.iter_mut().enumerate() {
            for p in c.parameters().iter().filter(|p| is_bound(p)) {
                *c = c.at_mean(p, &mean, MAX_MEAN_PERIOD);
                substituted.insert(b);
            }
        }
    }
    substituted
}

/// A branch profile's share of each block counted with a bound's mean, recorded over the
/// model's count at that mean (`branch_profile::data_shares`): where the compiler duplicated
/// an unrolled copy's tail into both arms of an `if` on data, each duplicate runs its arm's
/// share of the passes the model counts it. Whether or not runs checked the function (a
/// kernel called with made-up data may not finish them).
fn with_mean_shares(function: &Function, source: &SourceModel, m: &mut FunctionModel) {
    let Some(crate::source::DataShares::Profile(all)) = &source.data_shares else {
        return;
    };
    let code = function.code_hash();
    for s in all
        .iter()
        .filter(|s| s.function == function.symbol && s.code == code && s.at.is_none())
    {
        let b = m.cfg.blocks.iter().position(|x| x.start == s.block);
        let share = Rational::from_float(s.share);
        if let (Some(b), Some(r)) = (b.filter(|b| m.by_data_mean.contains(b)), share) {
            m.block_counts[b] = m.block_counts[b].scaled(&r);
        }
    }
}

/// The derived parameters of `function`'s loops: trip counts of steps that are parameters,
/// then the tile sums that read them, those `used` by the counts and those they read.
fn derived_of(
    source: &SourceModel,
    function: &str,
    used: &BTreeSet<String>,
) -> Vec<metron_symbolic::Derived> {
    use metron_symbolic::Derived;
    let own = source
        .loops
        .iter()
        .filter(|l| l.function == base_name(function));
    // Cut names are unique in the file (`cut_LINE_N`); only those the counts use are kept.
    let cut_sums = source
        .cuts
        .iter()
        .flat_map(|c| c.flattened.iter().map(|(_, s)| s));
    let tiles: Vec<Derived> = own
        .clone()
        .filter_map(|l| l.tile.as_ref().map(|t| &t.sum))
        .chain(cut_sums)
        .filter(|t| used.contains(&t.name))
        .map(|t| Derived::Tile(t.clone()))
        .collect();
    // Exit values of loops that later loops go on from (`for (; i < n; i++)`).
    let exits: Vec<Derived> = own
        .clone()
        .filter_map(|l| l.start_from.as_ref())
        .filter(|x| used.contains(&x.name))
        .map(|x| Derived::Exit(x.clone()))
        .collect();
    let read: BTreeSet<&String> = tiles.iter().flat_map(|t| t.inputs()).collect();
    let trips = own
        .filter_map(|l| l.derived.clone())
        .chain(source.cuts.iter().map(|c| c.cut.clone()))
        .filter(|d| used.contains(&d.name) || read.contains(&d.name))
        .map(Derived::Trip);
    let others: Vec<Derived> = exits
        .into_iter()
        .chain(trips)
        .chain(tiles.iter().cloned())
        .collect();
    locals_read(source, function, used, &others)
        .into_iter()
        .chain(others)
        .collect()
}

/// The locals `function` computes from its parameters (`m = n % 5;`) that the counts or the
/// `others` read, directly or through each other, in definition order (each reads only the
/// ones before it).
fn locals_read(
    source: &SourceModel,
    function: &str,
    used: &BTreeSet<String>,
    others: &[metron_symbolic::Derived],
) -> Vec<metron_symbolic::Derived> {
    let own: Vec<&metron_symbolic::LocalValue> = source
        .locals
        .iter()
        .filter(|(f, _)| f == base_name(function))
        .map(|(_, l)| l)
        .collect();
    let mut read: BTreeSet<&String> = used.iter().collect();
    read.extend(others.iter().flat_map(|d| d.inputs()));
    for l in own.iter().rev() {
        if read.contains(&l.name) {
            read.extend(l.inputs());
        }
    }
    own.into_iter()
        .filter(|l| read.contains(&l.name))
        .map(|l| metron_symbolic::Derived::Local(l.clone()))
        .collect()
}

/// `binding` plus the values of the `derived` parameters whose inputs it gives (in order: a
/// tile sum reads the trip count before it).
pub fn with_derived(derived: &[metron_symbolic::Derived], binding: &Binding) -> Result<Binding> {
    let mut out = binding.clone();
    for d in derived.iter().filter(|d| !binding.contains_key(d.name())) {
        match d.value(&out) {
            Ok(v) => {
                out.insert(d.name().to_string(), v);
            }
            // An input without a value: the count asks for it when evaluated.
            Err(metron_symbolic::DerivedTripError::Unbound(_)) => {}
            Err(e) => {
                return Err(crate::error::StaticError::Run(format!(
                    "loop with derived trip count {} = {}: {e}",
                    d.name(),
                    d.definition()
                )))
            }
        }
    }
    Ok(out)
}

/// Each binary loop's source loop (004 §III.A.2): inner loops first, so that each claims its
/// own source loop; a source loop the compiler split (vectorised body + remainder, or
/// versioned copies) is claimed by several.
fn map_loops(
    function: &Function,
    cfg: &Cfg,
    source: &SourceModel,
    file: &str,
) -> BTreeMap<usize, Option<usize>> {
    let depth_of = |mut i: usize| {
        let mut d = 0;
        while let Some(p) = source.loops[i].parent {
            d += 1;
            i = p;
        }
        d
    };
    let mut claimed: BTreeSet<usize> = BTreeSet::new();
    let mut order: Vec<usize> = (0..cfg.loops.len()).collect();
    order.sort_by_key(|&l| std::cmp::Reverse(cfg.loops[l].depth));
    let mut mapping: BTreeMap<usize, Option<usize>> = BTreeMap::new();
    let span = source_loop_span(function, cfg, source, file);
    for &l in &order {
        let lines = lines_of(function, cfg, &own_blocks(cfg, l), file);
        let latch = latch_lines(function, cfg, l, file);
        // A binary loop is no copy of a loop its own inner loops are copies of, nor of one
        // inside those (inner loops are mapped first): under a source loop unrolled away,
        // its copies of the loop below carry that loop's lines and the lines of the loop
        // below it (nest_9 clang -O2's `k` copies), and line 0 headers leave only body lines
        // to go by. Unconstrained when nothing fits (the older rule).
        let inner: Vec<usize> = (0..cfg.loops.len())
            .filter(|&x| x != l && cfg.loops[l].blocks.contains(&cfg.loops[x].header))
            .filter_map(|x| mapping.get(&x).copied().flatten())
            .collect();
        let outside = |s: &usize| inner.iter().all(|&x| x != *s && !source.is_within(*s, x));
        let fits = span.clone().filter(outside).collect::<Vec<_>>();
        // Better still, a loop around them all: a sibling of theirs at one of the lines is an
        // inner loop unrolled away (gram_schmidt_pb at gcc -O3, m fixed: the `i` loops
        // beside the `j` loop, in the `k` loop's body).
        let around = |s: &&usize| {
            !inner.is_empty() && inner.iter().all(|&x| x != **s && source.is_within(x, **s))
        };
        let enclosing: Vec<usize> = fits.iter().filter(around).copied().collect();
        let at_lines = Lines {
            all: &lines,
            latch: &latch,
        };
        // The nearest of those that holds some of the lines where none carries its own:
        // the lines of a loop inlined into `main` reach past the kernel's.
        let nearest = || {
            let some_line = |s: &&usize| {
                let x = &source.loops[**s];
                lines.iter().any(|n| (x.line..=x.end_line).contains(n))
            };
            enclosing
                .iter()
                .filter(some_line)
                .copied()
                .max_by_key(|&s| depth_of(s))
        };
        let candidate = pick(source, &at_lines, &enclosing, &claimed, &depth_of)
            .or_else(nearest)
            .or_else(|| pick(source, &at_lines, &fits, &claimed, &depth_of))
            .or_else(|| {
                pick(
                    source,
                    &at_lines,
                    &span.clone().collect::<Vec<_>>(),
                    &claimed,
                    &depth_of,
                )
            });
        if let Some(s) = candidate {
            claimed.insert(s);
        }
        mapping.insert(l, candidate);
    }
    mapping
}

/// The source lines of a binary loop: of all its own blocks, and of its back edges' jumps.
struct Lines<'a> {
    all: &'a BTreeSet<u32>,
    latch: &'a BTreeSet<u32>,
}

/// The lines of the jumps that go back to loop `l`'s header: the source loop whose step and
/// test they are. An inner loop the compiler unrolled away leaves its `for` line on the
/// exits of its chain of copies, inside the binary loop of the loop around it (ludcmp_pb
/// at gcc -O3 with n fixed: the `k` loop's 17 exits in the `j` loop's body), but never on
/// that loop's back edge.
fn latch_lines(function: &Function, cfg: &Cfg, l: usize, file: &str) -> BTreeSet<u32> {
    let natural = &cfg.loops[l];
    let jumps = cfg.blocks[natural.header]
        .predecessors
        .iter()
        .filter(|p| natural.blocks.contains(p))
        .filter_map(|&p| cfg.blocks[p].code(function).last());
    jumps
        .flat_map(|i| i.frames.iter().filter_map(|f| f.position.as_ref()))
        .filter(|p| same_file(&p.file, file))
        .map(|p| p.line)
        .collect()
}

/// The source loop among `candidates` a binary loop with `lines` is a copy of: the deepest
/// one whose `for` line its back edge carries (unclaimed first), else the deepest
/// unclaimed one at one of its lines, else the deepest at one of them, else (no instruction
/// carries the `for` line: clang attributes the test to the body's lines, and gives a
/// versioned copy's header line 0) the deepest whose extent holds every line. Claimed or not:
/// the copies of one loop are all leaves holding its body lines (nest_9 clang -O2's vector
/// and scalar `l` loops), and an enclosing loop is told apart by its inner loops instead.
fn pick(
    source: &SourceModel,
    lines: &Lines,
    candidates: &[usize],
    claimed: &BTreeSet<usize>,
    depth_of: &dyn Fn(usize) -> usize,
) -> Option<usize> {
    let on_latch = |s: &usize| lines.latch.contains(&source.loops[*s].line);
    let lines = lines.all;
    let at = |s: &usize| lines.contains(&source.loops[*s].line);
    let holds = |s: &usize| {
        let l = &source.loops[*s];
        !lines.is_empty() && lines.iter().all(|x| (l.line..=l.end_line).contains(x))
    };
    let deepest = |keep: &dyn Fn(&usize) -> bool| {
        candidates
            .iter()
            .copied()
            .filter(|s| keep(s))
            .max_by_key(|&s| depth_of(s))
    };
    deepest(&|s| !claimed.contains(s) && on_latch(s))
        .or_else(|| deepest(&on_latch))
        .or_else(|| deepest(&|s| !claimed.contains(s) && at(s)))
        .or_else(|| deepest(&at))
        .or_else(|| deepest(&holds))
}

/// Only source loops within the lines this function's code comes from (source loops are in
/// line order; a large program has thousands).
fn source_loop_span(
    function: &Function,
    cfg: &Cfg,
    source: &SourceModel,
    file: &str,
) -> std::ops::Range<usize> {
    let all: BTreeSet<usize> = (0..cfg.blocks.len()).collect();
    let lines = lines_of(function, cfg, &all, file);
    let sorted = source.loops.windows(2).all(|w| w[0].line <= w[1].line);
    match (lines.first(), lines.last()) {
        (Some(&lo), Some(&hi)) if sorted => {
            let within = source.loops.partition_point(|l| l.line < lo)
                ..source.loops.partition_point(|l| l.line <= hi);
            // With the loops around them, whose own lines the code may not carry
            // (gram_schmidt_pb at gcc -O3: no instruction of the `k` loop's line).
            let outermost = |mut s: usize| {
                while let Some(p) = source.loops[s].parent {
                    s = p;
                }
                s
            };
            within.clone().map(outermost).min().unwrap_or(within.start)..within.end
        }
        _ => 0..source.loops.len(),
    }
}

/// Counts the blocks of every binary loop, outer loops first (the forest order), so that a
/// loop inlined from another function is multiplied by its binary context.
fn count_loops(
    cx: &FunctionContext,
    copies: &crate::loop_copy::SourceCopies,
    mira_compat: bool,
    contexts: &mut [LoopContext],
    block_counts: &mut [Piecewise],
) -> Vec<LoopModel> {
    let (function, cfg, source) = (cx.function, cx.cfg, cx.source);
    let mut loops = Vec::new();
    let mut loop_iterations: Vec<Piecewise> = vec![Piecewise::constant(1); cfg.loops.len()];
    for (l, natural) in cfg.loops.iter().enumerate() {
        let source_loop = cx.source_loop(l);
        let count = cx.loop_count(l, copies);
        contexts[l].times = cx.outer_times(l, contexts, &loop_iterations);
        let iterations = contexts[l].apply(&count.iterations);
        let entries = contexts[l].apply(&count.entries);
        loop_iterations[l] = iterations.clone();
        // Mira counts every statement of a loop N times, headers included.
        let tested = if mira_compat {
            BTreeSet::new()
        } else {
            let for_line = source_loop.map(|s| source.loops[s].line);
            crate::branch::test_blocks(function, cfg, &cx.file, l, for_line)
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
            note: count.note,
            counted_from: copies.counted_from(l),
            blocks: natural.blocks.clone(),
        });
    }
    loops
}

/// Blocks outside the loops' bodies: the straight-line passes of unrolled copies, branch
/// arms, guarded and duplicated blocks, then cold and padding blocks (never run).
fn count_outside_loops(
    cx: &FunctionContext,
    copies: &crate::loop_copy::SourceCopies,
    contexts: &[LoopContext],
    loops: &mut [LoopModel],
    block_counts: &mut [Piecewise],
) {
    let (function, cfg, source, file) = (cx.function, cx.cfg, cx.source, cx.file.as_str());
    let options = &cx.options;
    copies.count_outside_loops(function, cfg, source, file, contexts, options, block_counts);
    let arm_notes = crate::branch::count_branch_arms(
        &crate::branch::BranchContext {
            function,
            cfg,
            source,
            file,
            mapping: &cx.mapping,
            factor: &copies.factor,
            contexts,
        },
        block_counts,
        options,
    );
    let guarded = crate::loop_guard::count_guarded_blocks(
        function,
        cfg,
        source,
        &cx.mapping,
        contexts,
        options,
        block_counts,
    );
    crate::loop_guard::split_duplicated_blocks(function, cfg, file, &guarded, block_counts);
    for (l, note) in arm_notes {
        if let Some(m) = loops.get_mut(l) {
            m.note.get_or_insert(note);
        }
    }
    let cold = cold_blocks(function, cfg);
    for b in cold
        .into_iter()
        .chain(crate::loop_copy::padding_blocks(cfg))
    {
        block_counts[b] = Piecewise::zero();
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
) -> Vec<std::collections::BTreeMap<String, Argument>> {
    let Some(s) = s else {
        return Vec::new();
    };
    let name = &source.loops[s].function;
    if base_name(&function.name) == name {
        return Vec::new();
    }
    own_blocks(cfg, l)
        .into_iter()
        .flat_map(|b| cfg.blocks[b].code(function))
        .find(|ins| {
            ins.frames.len() > 1
                && ins.frames[0]
                    .function
                    .as_deref()
                    .is_some_and(|f| base_name(f) == name)
        })
        .map(|ins| inline_levels(ins, source))
        .unwrap_or_default()
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
            fix_parameters(f, source, &mut m);
            m.plt_calls = plt_calls(binary, f, &m.cfg);
            count_error_paths(binary, f, source, &mut m);
            if !mira_compat {
                calibrate(binary, f, source, &mut m);
            }
            with_mean_shares(f, source, &mut m);
            (i, m)
        })
        .collect()
}

/// Counts the function at the values its machine code fixed its integer parameters to: its
/// loops run to those constants whatever the source's bounds are called with.
fn fix_parameters(function: &Function, source: &SourceModel, m: &mut FunctionModel) {
    let Some(f) = source
        .functions
        .iter()
        .find(|f| f.name == function.source_name())
    else {
        return;
    };
    m.fixed = f.fixed_by(&function.signature);
    for (p, v) in &m.fixed {
        let value = metron_symbolic::LinExpr::integer(*v);
        for c in &mut m.block_counts {
            *c = c.substitute(p, &value);
        }
    }
    let derived = std::mem::take(&mut m.derived);
    m.derived = derived
        .into_iter()
        .map(|d| fix_derived(d, &m.fixed))
        .collect();
}

/// A derived trip count computed with the fixed parameters' values (`trip_15 =
/// ceil(n / stride)` of a clone with `stride = 1`): bound as a call binds an inlined one.
fn fix_derived(
    d: metron_symbolic::Derived,
    fixed: &BTreeMap<String, i64>,
) -> metron_symbolic::Derived {
    use metron_symbolic::{AffineExpr, Derived, InlinedDerived};
    let arguments: Vec<(String, AffineExpr)> = d
        .inputs()
        .into_iter()
        .filter_map(|p| Some((p.clone(), AffineExpr::constant(*fixed.get(p)?))))
        .collect();
    match arguments.is_empty() {
        true => d,
        false => Derived::Inlined(InlinedDerived {
            arguments,
            inner: Box::new(d),
        }),
    }
}

/// Checks the counts against runs of the machine code (`calibrate`), the libm error paths
/// followed as the model counts them.
fn calibrate(binary: &Binary, function: &Function, source: &SourceModel, m: &mut FunctionModel) {
    let mut assumed = crate::calibrate::Assumed::default();
    for p in &m.error_paths {
        assumed.take.insert(p.decide, p.other);
        // The error side's blocks carry the assumption (or a profile's fraction), not a
        // count the runs could check.
        assumed.fixed.extend((0..m.cfg.blocks.len()).filter(|&b| {
            m.cfg.dominates(p.error, b) || m.cfg.dominates(p.other, b) && p.other != p.decide
        }));
    }
    let target = crate::calibrate::Target {
        binary,
        function,
        cfg: &m.cfg,
        source,
        derived: &m.derived,
        assumed: &assumed,
        by_data_mean: &m.by_data_mean,
    };
    let checked = crate::calibrate::calibrate(&target, &mut m.block_counts);
    if let Ok(c) = &checked {
        note_refitted_loops(c, &mut m.loops);
    }
    m.calibration = Some(checked);
}

/// Blocks that call (or tail-jump) through a PLT stub, with the stub's executed path.
fn plt_calls(
    binary: &Binary,
    function: &Function,
    cfg: &Cfg,
) -> Vec<(usize, Vec<iced_x86::Mnemonic>)> {
    let mut out = Vec::new();
    for (b, block) in cfg.blocks.iter().enumerate() {
        for ins in block.code(function) {
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

/// The libm error paths of `function` (004 §III.C.4: a `br_prob` the compiler wrote): counted
/// as never taken, or with the branch profile's probability at their line, and named.
fn count_error_paths(
    binary: &Binary,
    function: &Function,
    source: &SourceModel,
    m: &mut FunctionModel,
) {
    let paths = crate::error_path::find(binary, function, &m.cfg);
    if paths.is_empty() {
        return;
    }
    let file = source.file.display().to_string();
    let given = |p: &crate::error_path::ErrorPath| {
        p.position
            .as_ref()
            .filter(|at| same_file(&at.file, &file))
            .and_then(|at| source.error_paths.get(&at.line).copied())
    };
    crate::error_path::count(&paths, &m.cfg, &mut m.block_counts, |p| {
        given(p).unwrap_or(0.0)
    });
    m.assumptions
        .extend(crate::assumption::error_paths(&paths, given));
    m.error_paths = paths;
}
