//! Unrolled and vectorised binary loops (issue 4, step 5: "detect unrolled and vectorised
//! binary loops from the induction-variable stride, and count `ceil(N/k)` plus the remainder
//! loop"; 004 §III.C maps source iterations onto binary loops one to one, which overcounts
//! such loops `k` times).
//!
//! A compiler splits one source loop into copies that each take `k` source iterations per
//! pass: clang -O2 vectorises by 2 and unrolls the vector body by 2 or 4 (`k` = 4 or 8, 16),
//! runs a vector remainder loop (`k` = 4) and a scalar remainder (`k` = 1); gcc -O3 has one
//! vector copy and a scalar one. `k` is read from how far the loop's memory accesses advance
//! per pass and how many elements of each array one pass touches, which does not depend on
//! which register carries the induction variable (clang counts a separate register down, or
//! compares an end pointer). The copies form a cascade: the widest runs `floor(N/k1)` times,
//! each narrower one the iterations the wider left over that it can take whole:
//! `floor(N/k_i) - (k_{i-1}/k_i) floor(N/k_{i-1})`.

use std::collections::{BTreeMap, BTreeSet};

use iced_x86::{FlowControl, Register};
use metron_symbolic::{trip_count, Bound, CountOptions, LoopNest, Piecewise, Rational};

use crate::binary::{Function, Instruction};
use crate::cfg::Cfg;
use crate::source::SourceModel;

mod entry;
mod trip_class;
pub use entry::{entry_blocks, must_reach};
pub use trip_class::entries_with_at_least;
use trip_class::entries_where;

/// The copies of every source loop of one function: each binary loop's factor, and per
/// source loop the straight-line passes beside its loop copies.
pub struct SourceCopies {
    /// Source iterations per pass of each binary loop (1 for an ordinary loop).
    pub factor: Vec<i64>,
    /// Source loop -> (block, factor) of its straight-line passes, for source loops with an
    /// unrolled or vectorised copy.
    pub remainders: BTreeMap<usize, Vec<(usize, i64)>>,
    /// Binary loop -> how it is entered; loops not listed are cascade steps.
    pub roles: BTreeMap<usize, Role>,
    /// Binary loop -> source loop.
    mapping: BTreeMap<usize, Option<usize>>,
    /// `copy_counts` per source loop, counted once (every copy asks).
    counted: std::cell::RefCell<BTreeMap<usize, CopyCounts>>,
}

/// Passes per call of each copy, and the source loop's entries per call.
type CopyCounts = Result<(BTreeMap<Copy, Piecewise>, Piecewise), String>;

/// How a copy of a versioned loop is entered. A kernel that takes pointer arguments gets
/// runtime alias checks: the compiler runs the vector copies when the arrays do not overlap
/// and a scalar copy otherwise, and that scalar copy also takes the trip counts too short for
/// the vector path and (clang) the remainder the vector copies leave. The model assumes the
/// arrays do not overlap, the common case: the scalar fallback is then an alternative path,
/// not a cascade step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    /// A step of the cascade: the vector copies, their straight-line passes, and a scalar
    /// remainder narrower than the narrowest vector copy.
    Cascade,
    /// A scalar fallback the vector copies never reach (gcc -O3): it runs only for the trip
    /// counts below `threshold`, which bypass the vector path.
    Alternative { threshold: i64 },
    /// A scalar fallback that takes at least as many iterations per pass as the narrowest
    /// vector copy (clang's scalar loop unrolled by 4 beside a vector pass of 4): every
    /// remainder it is entered with is shorter, so it runs only when the arrays overlap.
    Never,
}

impl SourceCopies {
    /// Factors of the binary loops of `cfg` (mapped to source loops by `mapping`) and the
    /// straight-line passes; `mira_compat` keeps every factor at 1 (004's one-to-one mapping).
    pub fn find(
        function: &Function,
        cfg: &Cfg,
        source: &SourceModel,
        file: &str,
        mapping: &BTreeMap<usize, Option<usize>>,
        mira_compat: bool,
    ) -> SourceCopies {
        // Source iterations per pass of each binary loop: > 1 for unrolled and vectorised copies.
        let mut factor: Vec<i64> = (0..cfg.loops.len())
            .map(|l| {
                if mira_compat {
                    // Mira maps source iterations onto binary loops one to one.
                    return 1;
                }
                let stride = mapping
                    .get(&l)
                    .copied()
                    .flatten()
                    .and_then(|s| source.loops[s].scop.as_ref().ok().map(|x| x.stride))
                    .unwrap_or(1);
                copy_factor(function, cfg, l, stride)
            })
            .collect();
        // Straight-line passes (vector and scalar epilogues) of unrolled/vectorised source loops.
        let mut remainders: BTreeMap<usize, Vec<(usize, i64)>> = BTreeMap::new();
        let mut roles: BTreeMap<usize, Role> = BTreeMap::new();
        for s in mapping
            .values()
            .flatten()
            .copied()
            .collect::<BTreeSet<usize>>()
        {
            let copies: Vec<usize> = (0..cfg.loops.len())
                .filter(|o| mapping.get(o).copied().flatten() == Some(s))
                .collect();
            // Several loop copies: relative to the scalar one, which needs no element size.
            if copies.len() > 1 && !mira_compat {
                if let Some(relative) = relative_factors(function, cfg, &copies) {
                    for (&o, k) in copies.iter().zip(relative) {
                        factor[o] = k;
                    }
                    // The narrowest copy may itself be unrolled (clang's scalar remainder by
                    // 2, behind a one-iteration prologue): scaled by a narrower pass.
                    let unit = narrowest_unrolled(function, cfg, source, file, s, &copies, &factor);
                    for &o in &copies {
                        factor[o] *= unit;
                    }
                }
            }
            if copies.iter().any(|&o| factor[o] > 1) {
                let factors: Vec<i64> = copies.iter().map(|&o| factor[o]).collect();
                let (blocks, remainder_seen) =
                    remainder_blocks(function, cfg, source, file, s, &copies, &factors);
                if let ([lone], false) = (copies.as_slice(), remainder_seen) {
                    if !lone_copy_plausible(source, s, factor[*lone]) {
                        factor[*lone] = 1;
                        continue;
                    }
                }
                for (o, role) in fallback_roles(function, cfg, &copies, &factor, &blocks) {
                    roles.insert(o, role);
                }
                remainders.insert(s, blocks);
            }
        }
        if std::env::var_os("METRON_DEBUG_COPIES").is_some() {
            for (l, k) in factor.iter().enumerate() {
                eprintln!("{}: loop 0x{:x} -> source {:?} factor {k} role {:?}", function.name, cfg.blocks[cfg.loops[l].header].start, mapping.get(&l), roles.get(&l));
            }
            eprintln!("  remainders {remainders:?}");
        }
        SourceCopies {
            factor,
            remainders,
            roles,
            mapping: mapping.clone(),
            counted: Default::default(),
        }
    }

    /// The copies of source loop `s`: its binary loops and straight-line passes, with their
    /// factors and roles.
    fn parts(&self, s: usize) -> Vec<(Copy, i64, Role)> {
        self.mapping
            .iter()
            .filter(|(_, m)| **m == Some(s))
            .map(|(&o, _)| {
                let role = self.roles.get(&o).copied().unwrap_or(Role::Cascade);
                (Copy::Loop(o), self.factor[o], role)
            })
            .chain(
                self.remainders
                    .get(&s)
                    .into_iter()
                    .flatten()
                    .map(|&(b, k)| (Copy::Block(b), k, Role::Cascade)),
            )
            .collect()
    }

    /// Passes per call of every copy of source loop `s`, and the loop's entries per call: the
    /// cascade over the cascade steps, 0 for copies that run only on overlapping arrays, and
    /// for a fallback that bypasses the vector path below a threshold `T`, the trip counts
    /// `n < T` moved from the cascade to it: `sum over n < T of #[N == n] (fallback(n) -
    /// cascade(n))` (each `#[N == n]` an exact count of the nest).
    pub fn copy_counts(
        &self,
        source: &SourceModel,
        s: usize,
        options: &CountOptions,
    ) -> CopyCounts {
        if let Some(done) = self.counted.borrow().get(&s) {
            return done.clone();
        }
        let counts = self.count_copies(source, s, options);
        self.counted.borrow_mut().insert(s, counts.clone());
        counts
    }

    fn count_copies(&self, source: &SourceModel, s: usize, options: &CountOptions) -> CopyCounts {
        let parts = self.parts(s);
        let cascade: Vec<i64> = parts
            .iter()
            .filter(|(_, _, r)| *r == Role::Cascade)
            .map(|(_, k, _)| *k)
            .collect();
        let (by_factor, entries) = cascade_totals(source, s, &cascade, options)?;
        let mut out: BTreeMap<Copy, Piecewise> = parts
            .iter()
            .map(|(c, k, r)| {
                let p = match r {
                    Role::Cascade => by_factor.get(k).cloned().unwrap_or_else(Piecewise::zero),
                    _ => Piecewise::zero(),
                };
                (*c, p)
            })
            .collect();
        let Some(threshold) = alternative_threshold(&parts) else {
            return Ok((out, entries));
        };
        let roles: Vec<(i64, Role)> = parts.iter().map(|(_, k, r)| (*k, *r)).collect();
        for n in 1..threshold {
            let routed = routed_passes(&roles, n);
            let cascaded = cascade_passes(&roles, n, |r| r == Role::Cascade);
            if routed == cascaded {
                continue;
            }
            let exactly = &entries_with_at_least(source, s, n, options)?
                - &entries_with_at_least(source, s, n + 1, options)?;
            for ((c, _, _), (r, d)) in parts.iter().zip(routed.iter().zip(&cascaded)) {
                if r != d {
                    let slot = out.entry(*c).or_insert_with(Piecewise::zero);
                    let delta = exactly.scaled(&Rational::from_integer((r - d).into()));
                    *slot = &*slot + &delta;
                }
            }
        }
        Ok((out, entries))
    }

    /// Counts the straight-line passes (their share of the cascade) and the guard blocks
    /// around the copies, per call (times the binary context of inlined loops, `contexts`).
    #[allow(clippy::too_many_arguments)]
    pub fn count_outside_loops(
        &self,
        function: &Function,
        cfg: &Cfg,
        source: &SourceModel,
        file: &str,
        contexts: &[crate::model::LoopContext],
        options: &CountOptions,
        block_counts: &mut [Piecewise],
    ) {
        let (factor, mapping) = (&self.factor, &self.mapping);
        // A straight-line pass runs when the wider copies left enough over: 0 or 1 per entry.
        for (&s, blocks) in &self.remainders {
            let copies: Vec<usize> = (0..cfg.loops.len())
                .filter(|o| mapping.get(o).copied().flatten() == Some(s))
                .collect();
            let factors: Vec<i64> = copies
                .iter()
                .map(|&o| factor[o])
                .chain(blocks.iter().map(|(_, k)| *k))
                .collect();
            let Ok((passes, entries)) = self.copy_counts(source, s, options) else {
                continue;
            };
            let context = copies
                .first()
                .map(|&o| contexts[o].clone())
                .unwrap_or_default();
            let in_context = |p: &Piecewise| context.apply(p);
            for (b, _) in blocks {
                if let Some(p) = passes.get(&Copy::Block(*b)) {
                    block_counts[*b] = in_context(p);
                }
            }
            // Blocks before every copy that lead only to copies run on the entries with N >= 1.
            let parts = self.parts(s);
            self.count_entry_blocks(cfg, source, s, &parts, options, &in_context, block_counts);
            // The guards around the copies run on the entries whose trip count routes them there.

            let g = guard_counts(function, cfg, source, file, s, &parts, &entries, options);
            if std::env::var_os("METRON_DEBUG_COPIES").is_some() {
                eprintln!("source loop {s} (line {}): parts {parts:?} entries {entries}", source.loops[s].line);
                match &g {
                    Ok(v) => v.iter().for_each(|(b, c)| eprintln!("  guard 0x{:x}: {c}", cfg.blocks[*b].start)),
                    Err(e) => eprintln!("  guards failed: {e}"),
                }
            }
            match g {
                Ok(guards) => {
                    for (b, c) in guards {
                        block_counts[b] = in_context(&c);
                    }
                }
                Err(_) => {
                    // The `N < k` bypass runs on the entries too short for the narrowest vector copy.
                    let narrowest = factors.iter().copied().filter(|k| *k > 1).min();
                    let widest = copies.iter().copied().max_by_key(|&o| factor[o]);
                    if let (Some(k), Some(w)) = (narrowest, widest) {
                        let bypass = bypass_blocks(function, cfg, source, file, s, &copies, w);
                        if !bypass.is_empty() {
                            if let Ok(long) = entries_with_at_least(source, s, k, options) {
                                for b in bypass {
                                    block_counts[b] = in_context(&(&entries - &long));
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

impl SourceCopies {
    /// `entry::entry_blocks` of source loop `s`'s copies, counted as its entries with at
    /// least one iteration.
    #[allow(clippy::too_many_arguments)]
    fn count_entry_blocks(
        &self,
        cfg: &Cfg,
        source: &SourceModel,
        s: usize,
        parts: &[(Copy, i64, Role)],
        options: &CountOptions,
        in_context: &dyn Fn(&Piecewise) -> Piecewise,
        block_counts: &mut [Piecewise],
    ) {
        let heads: Vec<usize> = parts
            .iter()
            .map(|(c, _, _)| match c {
                Copy::Loop(l) => cfg.loops[*l].header,
                Copy::Block(b) => *b,
            })
            .collect();
        let Some(level) = parts.iter().find_map(|(c, _, _)| match c {
            Copy::Loop(l) => cfg.loops[*l].parent,
            Copy::Block(_) => None,
        }) else {
            return;
        };
        let blocks = entry_blocks(cfg, level, &heads);
        if blocks.is_empty() {
            return;
        }
        if let Ok(ran) = entries_with_at_least(source, s, 1, options) {
            for b in blocks {
                block_counts[b] = in_context(&ran);
            }
        }
    }
}

/// Source iterations one pass of binary loop `l` executes: 1 for an ordinary loop, `k` for a
/// loop unrolled and/or vectorised `k` times. `stride` is the source loop's step.
pub fn copy_factor(function: &Function, cfg: &Cfg, l: usize, stride: i64) -> i64 {
    let stride = stride.abs().max(1);
    match memory_factor(function, cfg, l, stride) {
        Some(k) => k,
        None => {
            let k = induction_factor(function, cfg, l);
            if k % stride == 0 {
                (k / stride).max(1)
            } else {
                1
            }
        }
    }
}

/// Instructions of the blocks of loop `l` that are in no inner loop.
fn own_instructions<'a>(function: &'a Function, cfg: &Cfg, l: usize) -> Vec<&'a Instruction> {
    cfg.loops[l]
        .blocks
        .iter()
        .filter(|&&b| cfg.innermost_loop(b) == Some(l))
        .flat_map(|&b| &function.instructions[cfg.blocks[b].first..cfg.blocks[b].end])
        .collect()
}

/// Per-pass increment of every register the loop changes only by constant steps (`add r, c`,
/// `lea r, [r + c]`, ...) in its own blocks, summed over them; `None` for the other registers
/// the loop writes; registers not written at all advance by 0.
fn register_increments(
    function: &Function,
    cfg: &Cfg,
    l: usize,
) -> BTreeMap<Register, Option<i64>> {
    let own: BTreeSet<u64> = own_instructions(function, cfg, l)
        .iter()
        .map(|i| i.address)
        .collect();
    let mut out: BTreeMap<Register, Option<i64>> = BTreeMap::new();
    for &b in &cfg.loops[l].blocks {
        for i in &function.instructions[cfg.blocks[b].first..cfg.blocks[b].end] {
            for r in &i.writes {
                let step = i
                    .step
                    .filter(|(s, _)| s == r && own.contains(&i.address))
                    .map(|(_, c)| c);
                let entry = out.entry(*r).or_insert(Some(0));
                *entry = match (*entry, step) {
                    (Some(sum), Some(c)) => Some(sum + c),
                    _ => None,
                };
            }
        }
    }
    out
}

/// Element size of the loop's arithmetic, for untyped vector moves (`movdqu`): 4 when
/// single-precision forms appear, 8 for double precision, unknown otherwise.
fn arithmetic_element(instructions: &[&Instruction]) -> Option<u32> {
    let mut out = None;
    for i in instructions {
        let name = i.name();
        let m = name.strip_prefix('v').unwrap_or(&name);
        let arithmetic = [
            "add", "sub", "mul", "div", "sqrt", "max", "min", "fmadd", "fmsub",
        ]
        .iter()
        .any(|op| m.starts_with(op));
        if !arithmetic {
            continue;
        }
        if m.ends_with("ps") || m.ends_with("ss") {
            return Some(4);
        }
        if m.ends_with("pd") || m.ends_with("sd") {
            out = Some(8);
        }
    }
    out
}

/// One array as the code addresses it: base, index and scale (any displacement).
type Array = (Option<Register>, Option<Register>, u32);
/// The element slots (byte offsets from the address form) a pass touches of one array.
type Touched = BTreeSet<i64>;

/// Adds the elements access `m` covers to `slots`.
fn touch(slots: &mut Touched, m: &crate::binary::MemoryAccess, element: u32) {
    let lanes = (m.size / element.max(1)).max(1);
    for lane in 0..lanes {
        slots.insert(m.displacement + i64::from(lane * element));
    }
}

/// Element size of an access: a scalar access is one element; vector moves are type-agnostic
/// (gcc stores doubles with `movups`), so a vector access takes the element of the
/// arithmetic around it, else 8 bytes (`double`, the examples' type).
fn element_size(m: &crate::binary::MemoryAccess, typed: Option<u32>) -> u32 {
    if m.size >= 16 {
        typed.unwrap_or(8)
    } else {
        m.size
    }
}

/// The arrays loop `l`'s own blocks access at a constant non-zero advance per pass, keyed by
/// (array, advance in bytes, element size), with the displacements and lanes one pass touches.
fn advancing_arrays(
    function: &Function,
    cfg: &Cfg,
    l: usize,
) -> BTreeMap<(Array, i64, u32), Touched> {
    let increments = register_increments(function, cfg, l);
    let own = own_instructions(function, cfg, l);
    let typed = arithmetic_element(&own);
    let advance_of = |r: Option<Register>| match r {
        None => Some(0),
        Some(r) => increments.get(&r).copied().unwrap_or(Some(0)),
    };
    // (array, advance, element) -> accesses
    let mut groups: BTreeMap<(Array, i64, u32), Touched> = BTreeMap::new();
    for ins in &own {
        for m in &ins.memory {
            if m.base == Some(Register::RSP) {
                continue;
            }
            let (Some(b), Some(x)) = (advance_of(m.base), advance_of(m.index)) else {
                continue;
            };
            let advance = b + x * i64::from(m.scale);
            if advance == 0 || m.size == 0 {
                continue;
            }
            let element = element_size(m, typed);
            let key = ((m.base, m.index, m.scale), advance, element);
            touch(groups.entry(key).or_default(), m, element);
        }
    }
    groups
}

/// Source iterations per pass from the loop's memory accesses. Accesses are grouped by their
/// address form (`base + index*scale`, any displacement) and per-pass advance; a group that
/// advances `A` bytes over `e`-byte elements, touching `d` distinct elements (every lane of
/// every access), covers `min(A/e/stride, d)` source iterations per pass (the minimum keeps a
/// stencil `a[j] + a[j+1]` at 1 and a strided `a[2*j]` at 1). The loop's factor is the least
/// over its groups; `None` when no access advances by a known constant.
fn memory_factor(function: &Function, cfg: &Cfg, l: usize, stride: i64) -> Option<i64> {
    let groups = advancing_arrays(function, cfg, l);
    groups
        .iter()
        .filter_map(|((_, advance, element), slots)| {
            let bytes = advance.abs();
            let e = i64::from(*element);
            if bytes % e != 0 || (bytes / e) % stride != 0 {
                return None;
            }
            let touched = slots.len() as i64;
            Some((bytes / e / stride).min(touched).max(1))
        })
        .min()
}

/// The older rule, for loops without a constantly advancing access: the register the exit
/// test compares and a constant `add` updates; its step counts bytes when it addresses memory
/// with scale 1 (over the element size), elements when scaled, iterations otherwise.
fn induction_factor(function: &Function, cfg: &Cfg, l: usize) -> i64 {
    let instructions = own_instructions(function, cfg, l);
    let element = i64::from(arithmetic_element(&instructions).unwrap_or(8));
    let compared: BTreeSet<Register> = instructions
        .iter()
        .flat_map(|i| i.compared.iter().copied())
        .collect();
    // A loop-carried induction variable: compared, stepped by a constant, written by
    // nothing else in the loop (at -O0 the variable lives in memory and never qualifies).
    let only_stepped = |r: &Register| {
        instructions
            .iter()
            .all(|i| !i.writes.contains(r) || i.step.is_some_and(|(s, _)| s == *r))
    };
    let Some((reg, step)) = instructions
        .iter()
        .filter_map(|i| i.step)
        .find(|(r, _)| compared.contains(r) && only_stepped(r))
    else {
        return 1;
    };
    // The variable may address memory only in inner loops (a row pointer).
    let scales: BTreeSet<u32> = cfg.loops[l]
        .blocks
        .iter()
        .flat_map(|&b| &function.instructions[cfg.blocks[b].first..cfg.blocks[b].end])
        .flat_map(|i| i.addressing.iter())
        .filter(|(r, _)| *r == reg)
        .map(|(_, s)| *s)
        .collect();
    let step = step.abs();
    let k = match scales.iter().next() {
        None => step,
        Some(1) => step / element,
        Some(s) => step * i64::from(*s) / element,
    };
    k.max(1)
}

/// Iterations per call of each copy of source loop `i`, keyed by factor, and the loop's
/// entries per call. `factors` are the copies' factors (any order, repeats allowed). The copy
/// with factor `k` takes whole passes only: `floor(N/k)` per entry for the widest, and for a
/// narrower one what the next wider left, `floor(N/k_i) - (k_{i-1}/k_i) floor(N/k_{i-1})`,
/// summed over the entries by counting the nest with the innermost loop stepping `k` times
/// as far and ending `k-1` steps earlier.
pub fn cascade_totals(
    source: &SourceModel,
    i: usize,
    factors: &[i64],
    options: &CountOptions,
) -> Result<(BTreeMap<i64, Piecewise>, Piecewise), String> {
    let distinct: BTreeSet<i64> = factors.iter().copied().filter(|k| *k >= 1).collect();
    let mut out = BTreeMap::new();
    let mut wider: Option<(i64, Piecewise)> = None;
    for &k in distinct.iter().rev() {
        let passes = whole_passes(source, i, k, options)?;
        let taken = match &wider {
            None => passes.clone(),
            Some((w, p)) => {
                if w % k != 0 {
                    return Err(format!(
                        "copies of {w} and {k} iterations per pass do not nest"
                    ));
                }
                &passes - &p.scaled(&Rational::from_integer((w / k).into()))
            }
        };
        out.insert(k, taken);
        wider = Some((k, passes));
    }
    let entries = match source.loops[i].parent {
        Some(p) => crate::model::source_total(source, p, options)?,
        None => Piecewise::constant(1),
    };
    Ok((out, entries))
}

/// Passes per call of a copy that takes `k` source iterations per pass, summed over the
/// entries: `sum floor(N/k)`.
fn whole_passes(
    source: &SourceModel,
    i: usize,
    k: i64,
    options: &CountOptions,
) -> Result<Piecewise, String> {
    if k == 1 {
        return crate::model::source_total(source, i, options);
    }
    let mut loops = source.nest_of(i)?;
    let Some(inner) = loops.last_mut() else {
        return Err("empty loop nest".into());
    };
    // `floor(N/k)` passes: the end pulled back by `k - 1` steps, the step `k` times as far
    // (for a down-counting loop the same formula moves its lower end up).
    let back = (k - 1) * inner.stride;
    let shrink =
        |e: &metron_symbolic::AffineExpr| e.plus_constant(-back).map_err(|e| e.to_string());
    inner.end = match &inner.end {
        Bound::Min(v) => Bound::Min(v.iter().map(shrink).collect::<Result<_, _>>()?),
        Bound::Max(v) => Bound::Max(v.iter().map(shrink).collect::<Result<_, _>>()?),
    };
    inner.stride *= k;
    trip_count(&LoopNest::new(loops), options).map_err(|e| e.to_string())
}

/// Straight-line passes of source loop `s` outside its binary loops `copies`: clang's vector
/// epilogue (one pass of the vector body, run when the unrolled vector loop left one over) and
/// gcc's scalar epilogue. A block qualifies when it sits at the copies' nesting level, its own
/// lines (innermost inline frame) lie in the loop and include a body line, and it does the
/// copies' kind of memory work; its factor is the elements it touches over the elements one
/// source iteration touches in the narrowest copy. `factors` are the copies' factors.
/// Returns (block, factor).
pub fn remainder_blocks(
    function: &Function,
    cfg: &Cfg,
    source: &SourceModel,
    file: &str,
    s: usize,
    copies: &[usize],
    factors: &[i64],
) -> (Vec<(usize, i64)>, bool) {
    let Some(&first) = copies.first() else {
        return (Vec::new(), false);
    };
    let after = after_copies(cfg, copies, cfg.loops[first].parent);
    // (elements a pass touches, iterations per pass) of the narrowest copy.
    let narrowest = copies
        .iter()
        .zip(factors)
        .min_by_key(|(_, k)| **k)
        .and_then(|(&o, &k)| {
            let own = own_instructions(function, cfg, o);
            let invariant = invariant_arrays(function, cfg, o);
            touched_elements(&own, &invariant)
                .filter(|t| *t > 0)
                .map(|t| (t, k, invariant))
        });
    let mut out = Vec::new();
    let candidates = pass_candidates(function, cfg, source, file, s, copies);
    // A pass before the copies (clang's prologue) is remainder code too, but its count
    // depends on guards: it only shows that the copies are not alone.
    let seen = !candidates.is_empty();
    for b in candidates {
        if !after.contains(&b) {
            continue;
        }
        let block = &cfg.blocks[b];
        let instructions: Vec<&Instruction> = function.instructions[block.first..block.end]
            .iter()
            .collect();
        // Elements a source iteration touches, from the narrowest copy: a pass of a block
        // touching `t` elements takes `t / per_iteration` iterations.
        let Some(per_iteration) = narrowest.as_ref() else {
            continue;
        };
        if let Some(t) = touched_elements(&instructions, &per_iteration.2) {
            let (copy_total, copy_factor) = (per_iteration.0, per_iteration.1);
            if (t * copy_factor) % copy_total == 0 && t * copy_factor >= copy_total {
                out.push((b, t * copy_factor / copy_total));
            }
        }
    }
    (out, seen)
}

/// Blocks that may be straight-line passes of source loop `s` beside its loop copies: at the
/// copies' nesting level, before or after them within one pass of the enclosing loop, with
/// their own lines (innermost inline frame) in the loop and including a body line, and doing
/// the copies' kind of memory work (a store after a reduction loop is no pass; a constant
/// `movapd c(%rip)` is no array access).
fn pass_candidates(
    function: &Function,
    cfg: &Cfg,
    source: &SourceModel,
    file: &str,
    s: usize,
    copies: &[usize],
) -> Vec<usize> {
    let Some(&first) = copies.first() else {
        return Vec::new();
    };
    let level = cfg.loops[first].parent;
    let (line, end) = (source.loops[s].line, source.loops[s].end_line);
    let after = after_copies(cfg, copies, level);
    let headers: BTreeSet<usize> = cfg.loops.iter().map(|n| n.header).collect();
    let before = before_copies(cfg, copies, level);
    let kinds = |i: &Instruction| (i.loads > 0, i.stores > 0);
    let in_copies: BTreeSet<(bool, bool)> = copies
        .iter()
        .flat_map(|&o| own_instructions(function, cfg, o))
        .filter(|i| array_access(i))
        .map(kinds)
        .collect();
    let mut out = Vec::new();
    for (b, block) in cfg.blocks.iter().enumerate() {
        let placed = after.contains(&b) || before.contains(&b);
        if cfg.innermost_loop(b) != level || headers.contains(&b) || !placed {
            continue;
        }
        let instructions = &function.instructions[block.first..block.end];
        let lines: BTreeSet<u32> = instructions
            .iter()
            .filter_map(|i| i.inner_line())
            .filter(|p| same_file(&p.file, file))
            .map(|p| p.line)
            .collect();
        let inside = !lines.is_empty() && lines.iter().all(|x| (line..=end).contains(x));
        if !inside || !lines.iter().any(|x| *x > line) {
            continue;
        }
        let same_work = instructions
            .iter()
            .filter(|i| array_access(i))
            .all(|i| in_copies.contains(&kinds(i)));
        if same_work && instructions.iter().any(array_access) {
            out.push(b);
        }
    }
    out
}

/// Whether the instruction reads or writes an array (not the stack, not a constant).
fn array_access(i: &Instruction) -> bool {
    i.memory
        .iter()
        .any(|m| (m.base.is_some() || m.index.is_some()) && m.base != Some(Register::RSP))
}

/// Whether the instructions move whole vectors of an array (16 bytes or more per access).
fn is_vector(instructions: &[&Instruction]) -> bool {
    instructions.iter().any(|i| {
        array_access(i)
            && i.memory
                .iter()
                .any(|m| m.size >= 16 && m.base != Some(Register::RSP))
    })
}

/// Iterations per pass of the narrowest loop copy of source loop `s`, when a scalar
/// straight-line pass of the same source loop does less per pass (clang's one-iteration
/// prologue before its scalar loop unrolled by 2, which peels `M mod 2` iterations): the
/// elements the loop touches per pass over the pass's. 1 otherwise (then the narrowest copy
/// takes one iteration per pass, as `relative_factors` assumes).
fn narrowest_unrolled(
    function: &Function,
    cfg: &Cfg,
    source: &SourceModel,
    file: &str,
    s: usize,
    copies: &[usize],
    factor: &[i64],
) -> i64 {
    let Some(&narrowest) = copies.iter().min_by_key(|&&o| factor[o]) else {
        return 1;
    };
    let own = own_instructions(function, cfg, narrowest);
    if factor[narrowest] != 1 || is_vector(&own) {
        return 1;
    }
    let invariant = invariant_arrays(function, cfg, narrowest);
    let Some(per_pass) = touched_elements(&own, &invariant).filter(|e| *e > 0) else {
        return 1;
    };
    pass_candidates(function, cfg, source, file, s, copies)
        .into_iter()
        .filter_map(|b| {
            let block = &cfg.blocks[b];
            let instructions: Vec<&Instruction> = function.instructions[block.first..block.end]
                .iter()
                .collect();
            if is_vector(&instructions) {
                return None;
            }
            touched_elements(&instructions, &invariant)
        })
        .filter(|&t| t > 0 && t < per_pass && per_pass % t == 0)
        .map(|t| per_pass / t)
        .max()
        .unwrap_or(1)
}

/// Roles of the scalar loop copies of a versioned source loop (`copies`, with `factor`s and
/// straight-line passes `blocks`): a scalar copy the vector copies never reach, and that does
/// not lead to them, is the alias-check fallback only, run for the trip counts below the
/// threshold its guard tests (`guard_threshold`). A scalar copy the vector copies reach is the
/// remainder too, a cascade step when narrower than the narrowest vector copy, else never run
/// (its entries are all shorter than one of its passes). No roles without a vector copy.
fn fallback_roles(
    function: &Function,
    cfg: &Cfg,
    copies: &[usize],
    factor: &[i64],
    blocks: &[(usize, i64)],
) -> Vec<(usize, Role)> {
    let vector: Vec<usize> = copies
        .iter()
        .copied()
        .filter(|&o| is_vector(&own_instructions(function, cfg, o)))
        .collect();
    let Some(&first) = vector.first() else {
        return Vec::new();
    };
    let block_is_vector = |b: usize| {
        let block = &cfg.blocks[b];
        let instructions: Vec<&Instruction> = function.instructions[block.first..block.end]
            .iter()
            .collect();
        is_vector(&instructions)
    };
    let vector_factors: Vec<i64> = vector
        .iter()
        .map(|&o| factor[o])
        .chain(
            blocks
                .iter()
                .filter(|(b, _)| block_is_vector(*b))
                .map(|(_, k)| *k),
        )
        .collect();
    let (Some(&narrowest), Some(&widest)) =
        (vector_factors.iter().min(), vector_factors.iter().max())
    else {
        return Vec::new();
    };
    let level = cfg.loops[first].parent;
    let reached = after_copies(cfg, &vector, level);
    let leads_to = before_copies(cfg, &vector, level);
    copies
        .iter()
        .copied()
        .filter(|o| !vector.contains(o))
        .filter_map(|o| {
            let header = cfg.loops[o].header;
            if !reached.contains(&header) {
                if leads_to.contains(&header) {
                    // A scalar copy before the vector ones (alignment peeling): a cascade step.
                    return None;
                }
                // Unread guard: gcc 12's SSE2 scale/add/triad test `N - 1 <= vf - 1`.
                let threshold =
                    guard_threshold(function, cfg, o, &vector, level).unwrap_or(widest + 1);
                return Some((o, Role::Alternative { threshold }));
            }
            (factor[o] >= narrowest).then_some((o, Role::Never))
        })
        .collect()
}

/// The trip count `T` below which the guards send an entry to the fallback copy `fallback`
/// rather than to the `vector` copies: a conditional branch at the copies' level after
/// `cmp x, c`, one side leading only to the fallback, the other to a vector copy, with `x`
/// the trip count plus a constant (`lea -1(N), x`, gcc; or `N` itself, clang). `None` when no
/// such guard is found (the fallback's threshold is then not read from the code).
fn guard_threshold(
    function: &Function,
    cfg: &Cfg,
    fallback: usize,
    vector: &[usize],
    level: Option<usize>,
) -> Option<i64> {
    let stop = level.map(|p| cfg.loops[p].header);
    let reaches = |from: usize, to: usize| reaches_before(cfg, from, to, stop);
    let at = |address: u64| cfg.blocks.iter().position(|x| x.start == address);
    let to_vector = |x: usize| vector.iter().any(|&v| reaches(x, cfg.loops[v].header));
    let only_fallback = |x: usize| reaches(x, cfg.loops[fallback].header) && !to_vector(x);
    let mut out: Option<i64> = None;
    for (b, block) in cfg.blocks.iter().enumerate() {
        let instructions = &function.instructions[block.first..block.end];
        let [.., compare, jump] = instructions else {
            continue;
        };
        if cfg.innermost_loop(b) != level || jump.flow != FlowControl::ConditionalBranch {
            continue;
        }
        let (Some(c), Some(&x)) = (compare.compared_immediate, compare.compared.first()) else {
            continue;
        };
        // `x = N + d`: the last write of `x` before the test is `lea`/`mov`, or none.
        let writer = instructions[..instructions.len() - 2]
            .iter()
            .rev()
            .find(|i| i.writes.contains(&x));
        let d = match writer.map(|w| w.offset) {
            None => 0,
            Some(Some((dst, _, d))) if dst == x => d,
            Some(_) => continue,
        };
        let (Some(taken), Some(next)) = (
            jump.target.and_then(at),
            at(jump.address + u64::from(jump.length)),
        ) else {
            continue;
        };
        let when_taken = if only_fallback(taken) && to_vector(next) {
            true
        } else if only_fallback(next) && to_vector(taken) {
            false
        } else {
            continue;
        };
        // The fallback's condition on `x` against `c`: below (`<`), at most (`<=`), or equal
        // to the least trip count that gets here (`N == 1`, gcc -march=haswell; `N >= 1` was
        // tested before).
        use iced_x86::Mnemonic::{Ja, Jae, Jb, Jbe, Je, Jg, Jge, Jl, Jle, Jne};
        let t = match (jump.mnemonic, when_taken) {
            (Jb | Jl, true) | (Jae | Jge, false) => c - d,
            (Jbe | Jle, true) | (Ja | Jg, false) => c - d + 1,
            (Je, true) | (Jne, false) if c - d == 1 => 2,
            _ => continue,
        };
        out = Some(out.map_or(t, |o: i64| o.min(t)));
    }
    out
}

/// The trip count below which a fallback copy runs instead of the vector path, if any.
pub fn alternative_threshold<C>(parts: &[(C, i64, Role)]) -> Option<i64> {
    parts
        .iter()
        .filter_map(|(_, _, r)| match r {
            Role::Alternative { threshold } => Some(*threshold),
            _ => None,
        })
        .min()
}

/// Passes of each copy (factor, role) for one entry with trip count `n`, as the guards route
/// it: below the fallback's threshold the fallback copies take `n` (their own cascade), else
/// the cascade steps do; copies that run only on overlapping arrays take nothing.
pub fn routed_passes(parts: &[(i64, Role)], n: i64) -> Vec<i64> {
    let with_copy: Vec<((), i64, Role)> = parts.iter().map(|(k, r)| ((), *k, *r)).collect();
    match alternative_threshold(&with_copy) {
        Some(t) if n < t => cascade_passes(parts, n, |r| matches!(r, Role::Alternative { .. })),
        _ => cascade_passes(parts, n, |r| r == Role::Cascade),
    }
}

/// Passes of each copy for trip count `n` when the copies whose role `takes` form a cascade
/// (the widest takes whole passes, each narrower what is left); the others take none.
fn cascade_passes(parts: &[(i64, Role)], n: i64, takes: impl Fn(Role) -> bool) -> Vec<i64> {
    let mut factors: Vec<i64> = parts
        .iter()
        .filter(|(k, r)| takes(*r) && *k >= 1)
        .map(|(k, _)| *k)
        .collect();
    factors.sort_unstable_by(|a, b| b.cmp(a));
    factors.dedup();
    let mut left = n.max(0);
    let mut passes = BTreeMap::new();
    for k in factors {
        passes.insert(k, left / k);
        left %= k;
    }
    parts
        .iter()
        .map(|(k, r)| {
            if takes(*r) {
                passes.get(k).copied().unwrap_or(0)
            } else {
                0
            }
        })
        .collect()
}

/// Blocks from which a copy's header is reachable within one pass of the enclosing loop
/// `level` (not through its header again), outside the copies.
fn before_copies(cfg: &Cfg, copies: &[usize], level: Option<usize>) -> BTreeSet<usize> {
    let inside: BTreeSet<usize> = copies
        .iter()
        .flat_map(|&o| cfg.loops[o].blocks.iter().copied())
        .collect();
    let stop = level.map(|p| cfg.loops[p].header);
    let mut work: Vec<usize> = copies
        .iter()
        .flat_map(|&o| cfg.blocks[cfg.loops[o].header].predecessors.iter().copied())
        .filter(|p| !inside.contains(p))
        .collect();
    let mut seen = BTreeSet::new();
    while let Some(b) = work.pop() {
        if inside.contains(&b) || !seen.insert(b) || Some(b) == stop {
            continue;
        }
        work.extend(cfg.blocks[b].predecessors.iter().copied());
    }
    seen
}

/// Blocks reachable from the copies' exits within one pass of the enclosing loop `level`
/// (not through its header again).
fn after_copies(cfg: &Cfg, copies: &[usize], level: Option<usize>) -> BTreeSet<usize> {
    let inside: BTreeSet<usize> = copies
        .iter()
        .flat_map(|&o| cfg.loops[o].blocks.iter().copied())
        .collect();
    let stop = level.map(|p| cfg.loops[p].header);
    let mut work: Vec<usize> = inside
        .iter()
        .flat_map(|&b| cfg.blocks[b].successors.iter().copied())
        .filter(|s| !inside.contains(s))
        .collect();
    let mut seen = BTreeSet::new();
    while let Some(b) = work.pop() {
        if Some(b) == stop || inside.contains(&b) || !seen.insert(b) {
            continue;
        }
        work.extend(cfg.blocks[b].successors.iter().copied());
    }
    seen
}

fn same_file(a: &str, b: &str) -> bool {
    std::path::Path::new(a).file_name() == std::path::Path::new(b).file_name()
}

/// Elements the instructions touch, summed over the arrays (accesses sharing base, index and
/// scale; every lane of every access, each element once); constants are no array.
fn touched_elements(instructions: &[&Instruction], skip: &BTreeSet<Array>) -> Option<i64> {
    let typed = arithmetic_element(instructions);
    let mut groups: BTreeMap<Array, Touched> = BTreeMap::new();
    for ins in instructions {
        for m in &ins.memory {
            if (m.base.is_none() && m.index.is_none())
                || m.base == Some(Register::RSP)
                || m.size == 0
                || skip.contains(&(m.base, m.index, m.scale))
            {
                continue;
            }
            let element = element_size(m, typed);
            touch(
                groups.entry((m.base, m.index, m.scale)).or_default(),
                m,
                element,
            );
        }
    }
    (!groups.is_empty()).then(|| groups.values().map(|slots| slots.len() as i64).sum())
}

/// Address forms loop `l` reads or writes at the same place on every pass (`x[i]` in a
/// `j` loop): the same element however many iterations a pass takes, so not counted when
/// comparing a straight-line pass with a copy.
fn invariant_arrays(function: &Function, cfg: &Cfg, l: usize) -> BTreeSet<Array> {
    let increments = register_increments(function, cfg, l);
    let fixed = |r: Option<Register>| r.is_none_or(|r| !increments.contains_key(&r));
    own_instructions(function, cfg, l)
        .iter()
        .flat_map(|i| i.memory.iter())
        .filter(|m| (m.base.is_some() || m.index.is_some()) && fixed(m.base) && fixed(m.index))
        .map(|m| (m.base, m.index, m.scale))
        .collect()
}

/// Guard blocks that skip the vector copies when the trip count is too small (clang's
/// `N < k` bypass, `xor i, i; jmp remainder`): blocks of source loop `s`'s lines at the copies'
/// nesting level, before the copies (not reachable from their exits within one pass), without
/// memory accesses, from which the widest copy cannot be reached within the pass.
pub fn bypass_blocks(
    function: &Function,
    cfg: &Cfg,
    source: &SourceModel,
    file: &str,
    s: usize,
    copies: &[usize],
    widest: usize,
) -> Vec<usize> {
    let Some(&first) = copies.first() else {
        return Vec::new();
    };
    let level = cfg.loops[first].parent;
    let stop = level.map(|p| cfg.loops[p].header);
    let (line, end) = (source.loops[s].line, source.loops[s].end_line);
    let after = after_copies(cfg, copies, level);
    let inside: BTreeSet<usize> = copies
        .iter()
        .flat_map(|&o| cfg.loops[o].blocks.iter().copied())
        .collect();
    let headers: BTreeSet<usize> = cfg.loops.iter().map(|n| n.header).collect();
    let target = cfg.loops[widest].header;
    let reaches_widest = |b: usize| reaches_before(cfg, b, target, stop);
    let lines_of = |b: usize| -> BTreeSet<u32> {
        let block = &cfg.blocks[b];
        function.instructions[block.first..block.end]
            .iter()
            .filter_map(|i| i.inner_line())
            .filter(|p| same_file(&p.file, file))
            .map(|p| p.line)
            .collect()
    };
    let of_loop = |x: &u32| (line..=end).contains(x);
    (0..cfg.blocks.len())
        .filter(|&b| {
            let block = &cfg.blocks[b];
            let instructions = &function.instructions[block.first..block.end];
            let lines = lines_of(b);
            // The guard's own instructions often have no line (DWARF line 0); its test has.
            let guarded = block
                .predecessors
                .iter()
                .any(|&p| lines_of(p).iter().any(of_loop));
            cfg.innermost_loop(b) == level
                && !headers.contains(&b)
                && !after.contains(&b)
                && !inside.contains(&b)
                && guarded
                && lines.iter().all(of_loop)
                && instructions.iter().all(|i| i.memory.is_empty())
                && !reaches_widest(b)
        })
        .collect()
}

/// One copy of a source loop: a binary loop, or a straight-line pass (a block).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Copy {
    Loop(usize),
    Block(usize),
}

/// A node of the guard region's graph: a guard block, a copy (collapsed), or the way out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Node {
    Block(usize),
    Copy(usize),
    Exit,
}

/// Counts of the guard blocks around the copies of source loop `s` (the blocks at the copies'
/// nesting level, with no line outside the loop, that test the trip count `N` and route each
/// entry through the copies: `N < k` bypasses, `iters == 1` shortcuts, the tests around
/// clang's prologue remainders, alias checks). Each entry takes one path through them, and it
/// visits exactly the copies that have passes to run for its `N` as the guards route it
/// (`routed_passes`: the cascade, or below a fallback's threshold `T` the fallback), which
/// depends only on `N mod k1` once `N >= L = max(k1, T)`, and on `N` itself below. So a guard
/// block runs on the entries whose route's path passes it:
/// `sum over r of #[N == r] (r < L) + #[N >= L and N mod k1 == r]`, each an exact count of
/// the enclosing nest with a condition on the inner trip count. A route's path: among the
/// paths visiting its set, those that follow the guards' readable tests of `N`, then the
/// shortest; blocks on only some of them are left alone. `Err` when the region is not a small
/// acyclic graph, or a visited set the routing predicts has no path (the copies were misread).
#[allow(clippy::too_many_arguments)]
pub fn guard_counts(
    function: &Function,
    cfg: &Cfg,
    source: &SourceModel,
    file: &str,
    s: usize,
    copies: &[(Copy, i64, Role)],
    loop_entries: &Piecewise,
    options: &CountOptions,
) -> Result<Vec<(usize, Piecewise)>, String> {
    let loops: Vec<usize> = copies
        .iter()
        .filter_map(|(c, _, _)| match c {
            Copy::Loop(l) => Some(*l),
            Copy::Block(_) => None,
        })
        .collect();
    let Some(&first) = loops.first() else {
        return Err("no loop copy".into());
    };
    let level = cfg.loops[first].parent;
    let (line, end) = (source.loops[s].line, source.loops[s].end_line);
    let in_loop: BTreeMap<usize, usize> = copies
        .iter()
        .enumerate()
        .flat_map(|(k, (c, _, _))| match c {
            Copy::Loop(l) => cfg.loops[*l]
                .blocks
                .iter()
                .map(|&b| (b, k))
                .collect::<Vec<_>>(),
            Copy::Block(b) => vec![(*b, k)],
        })
        .collect();
    let headers: BTreeSet<usize> = cfg.loops.iter().map(|n| n.header).collect();
    // The guards: blocks at the copies' level with no line outside the loop, connected to the
    // copies through such blocks (before them, after them, and the bypasses beside them).
    // A bare `ret` after the copies (an out-of-line kernel's exit) runs on the paths that
    // reach it, whatever line it carries.
    let bare_return = |b: usize| {
        let block = &cfg.blocks[b];
        block.successors.is_empty()
            && function.instructions[block.first..block.end]
                .iter()
                .all(|i| {
                    use iced_x86::Mnemonic::{Nop, Ret, Vzeroupper};
                    matches!(i.mnemonic, Ret | Vzeroupper | Nop)
                })
    };
    let eligible = |b: usize| {
        let block = &cfg.blocks[b];
        cfg.innermost_loop(b) == level
            && !headers.contains(&b)
            && !in_loop.contains_key(&b)
            && (bare_return(b)
                || function.instructions[block.first..block.end]
                    .iter()
                    .filter_map(|i| i.inner_line())
                    .filter(|p| same_file(&p.file, file))
                    .all(|p| (line..=end).contains(&p.line)))
    };
    let mut region: BTreeSet<usize> = BTreeSet::new();
    let mut work: Vec<usize> = in_loop.keys().copied().collect();
    let mut seen: BTreeSet<usize> = work.iter().copied().collect();
    while let Some(b) = work.pop() {
        let block = &cfg.blocks[b];
        for &x in block.successors.iter().chain(&block.predecessors) {
            if seen.insert(x) && eligible(x) {
                region.insert(x);
                work.push(x);
            }
        }
    }
    // Blocks between guards and copies only (gcc's vector preheader carries the line of the
    // function's closing brace) are guards too: the greatest set of blocks at the copies'
    // level whose predecessors are guards, padding or in the set, and whose successors are
    // guards, copies or in the set.
    let padding: BTreeSet<usize> = padding_blocks(cfg).into_iter().collect();
    let mut between: BTreeSet<usize> = (0..cfg.blocks.len())
        .filter(|&b| {
            let block = &cfg.blocks[b];
            cfg.innermost_loop(b) == level
                && !headers.contains(&b)
                && !region.contains(&b)
                && !in_loop.contains_key(&b)
                && !padding.contains(&b)
                && !block.predecessors.is_empty()
                && !block.successors.is_empty()
        })
        .collect();
    loop {
        let closed = |b: &usize| {
            let block = &cfg.blocks[*b];
            block
                .predecessors
                .iter()
                .all(|x| region.contains(x) || padding.contains(x) || between.contains(x))
                && block
                    .successors
                    .iter()
                    .all(|x| region.contains(x) || in_loop.contains_key(x) || between.contains(x))
        };
        let open: Vec<usize> = between.iter().copied().filter(|b| !closed(b)).collect();
        if open.is_empty() {
            break;
        }
        for b in open {
            between.remove(&b);
        }
    }
    region.extend(between);
    let node_of = |x: usize| -> Result<Node, String> {
        if region.contains(&x) {
            return Ok(Node::Block(x));
        }
        match in_loop.get(&x) {
            Some(&k) => match copies[k].0 {
                Copy::Loop(l) if cfg.loops[l].header != x => Err(format!(
                    "edge into the middle of the copy at 0x{:x}",
                    cfg.blocks[x].start
                )),
                _ => Ok(Node::Copy(k)),
            },
            None => Ok(Node::Exit),
        }
    };
    let successors = |n: Node| -> Result<BTreeSet<Node>, String> {
        let from: Vec<usize> = match n {
            Node::Block(b) => vec![b],
            Node::Copy(k) => match copies[k].0 {
                Copy::Loop(l) => cfg.loops[l].blocks.iter().copied().collect(),
                Copy::Block(b) => vec![b],
            },
            Node::Exit => Vec::new(),
        };
        let mut out = BTreeSet::new();
        for b in from {
            // A return leaves the guards.
            if cfg.blocks[b].successors.is_empty() {
                out.insert(Node::Exit);
            }
            for &x in &cfg.blocks[b].successors {
                if matches!(n, Node::Copy(k) if in_loop.get(&x) == Some(&k)) {
                    continue;
                }
                out.insert(node_of(x)?);
            }
        }
        Ok(out)
    };
    // Entry nodes: reached from outside the region and the copies; one node, or several all
    // from one block (whose branch is a test of `N` too). Several ways in from several places
    // (gcc's constant-size path beside the `argv` one) are not decided by `N`: no count.
    let mut entries = BTreeSet::new();
    let mut sources = BTreeSet::new();
    for (b, block) in cfg.blocks.iter().enumerate() {
        if region.contains(&b) || in_loop.contains_key(&b) || padding.contains(&b) {
            continue;
        }
        for &x in &block.successors {
            if let Ok(n @ (Node::Block(_) | Node::Copy(_))) = node_of(x) {
                entries.insert(n);
                sources.insert(b);
            }
        }
    }
    // An out-of-line kernel: its own entry block tests `N`.
    if let Ok(n @ (Node::Block(_) | Node::Copy(_))) = node_of(0) {
        if cfg.idom.first().is_some_and(|d| d.is_none()) && cfg.blocks[0].predecessors.is_empty() {
            entries.insert(n);
            sources.insert(usize::MAX);
        }
    }
    if entries.len() != 1 && sources.len() != 1 {
        return Err("the guards are entered from several places".into());
    }
    let mut paths: Vec<Vec<Node>> = Vec::new();
    for &e in &entries {
        let mut stack = vec![vec![e]];
        while let Some(path) = stack.pop() {
            let Some(&last) = path.last() else { continue };
            if last == Node::Exit {
                paths.push(path);
                if paths.len() > 4096 {
                    return Err("too many paths through the guards".into());
                }
                continue;
            }
            for next in successors(last)? {
                if path.contains(&next) {
                    return Err("the guards around the copies form a cycle".into());
                }
                let mut longer = path.clone();
                longer.push(next);
                stack.push(longer);
            }
        }
    }
    // Visited copies per path, and which paths each visited set has.
    let visited = |p: &[Node]| -> BTreeSet<usize> {
        p.iter()
            .filter_map(|n| match n {
                Node::Copy(k) => Some(*k),
                _ => None,
            })
            .collect()
    };
    // Per visited set, the shortest paths: a set with several paths usually has a structural
    // detour no run takes (clang's `iters == 1` shortcut also leads to the scalar loop).
    let mut by_set: BTreeMap<BTreeSet<usize>, Vec<&Vec<Node>>> = BTreeMap::new();
    for p in &paths {
        let set = visited(p);
        if !set.is_empty() {
            by_set.entry(set).or_default().push(p);
        }
    }
    for ps in by_set.values_mut() {
        let shortest = ps.iter().map(|p| p.len()).min().unwrap_or(0);
        ps.retain(|p| p.len() == shortest);
    }
    // The copies an entry with trip count `n` visits, as the guards route it.
    let roles: Vec<(i64, Role)> = copies.iter().map(|(_, k, r)| (*k, *r)).collect();
    let widest = roles
        .iter()
        .filter(|(_, r)| *r == Role::Cascade)
        .map(|(k, _)| *k)
        .max()
        .ok_or("no copies")?;
    let set_for = |n: i64| -> BTreeSet<usize> {
        routed_passes(&roles, n)
            .into_iter()
            .enumerate()
            .filter(|(_, p)| *p > 0)
            .map(|(c, _)| c)
            .collect()
    };
    // Below `least` the route depends on `n` itself, above it only on `n mod widest`.
    let least = widest.max(alternative_threshold(copies).unwrap_or(0));
    let mut exactly = BTreeMap::new();
    let mut at_least = |k: i64| -> Result<Piecewise, String> {
        if let Some(p) = exactly.get(&k) {
            return Ok(Clone::clone(p));
        }
        let p = entries_where(source, s, k, None, options)?;
        exactly.insert(k, p.clone());
        Ok(p)
    };
    // (representative trip count, entries it stands for): each `n < least` alone, then one
    // per residue of `N mod widest` above.
    let mut representatives: Vec<(i64, Piecewise)> = Vec::new();
    // Entries with no iteration at all are taken to skip the guards (the `N >= 1` test sits
    // before them, in the enclosing code): paths through no copy are detours no run takes.
    for n in 1..least {
        let once = &at_least(n)? - &at_least(n + 1)?;
        representatives.push((n, once));
    }
    for r in 0..widest {
        let long = entries_where(source, s, least, Some((widest, r)), options)?;
        representatives.push((least + (r - least).rem_euclid(widest), long));
    }
    // The guards' tests of the trip count that can be read decide between paths of one
    // visited set (clang's `N < 4` bypass beside the alias checks that also lead to the
    // scalar copy); among the paths left, the shortest.
    let decisions = TripTests::read(function, cfg, &region, &sources);
    let path_sets: Vec<BTreeSet<usize>> = paths.iter().map(|p| visited(p)).collect();
    // Routes (the chosen paths, by index) with the entries that take them, summed per route.
    let mut routes: BTreeMap<Vec<usize>, Piecewise> = BTreeMap::new();
    for (n, count) in representatives {
        let set = set_for(n);
        if !by_set.contains_key(&set) {
            return Err("a set of copies the cascade runs has no path through the guards".into());
        }
        // The successor each guard whose test reads `N` takes for this `n`.
        let decided: BTreeMap<usize, Node> = region
            .iter()
            .filter_map(|&b| {
                let x = decisions.successor(function, cfg, b, n)?;
                Some((b, node_of(x).ok()?))
            })
            .collect();
        let follows = |p: &[Node]| {
            p.windows(2).all(|w| match w[0] {
                Node::Block(b) => decided.get(&b).is_none_or(|next| *next == w[1]),
                _ => true,
            })
        };
        let of_set = |k: &usize| path_sets[*k] == set;
        let mut ps: Vec<usize> = (0..paths.len())
            .filter(|k| of_set(k) && follows(&paths[*k]))
            .collect();
        if ps.is_empty() {
            ps = (0..paths.len()).filter(of_set).collect();
        }
        let shortest = ps.iter().map(|&k| paths[k].len()).min().unwrap_or(0);
        ps.retain(|&k| paths[k].len() == shortest);
        let slot = routes.entry(ps).or_insert_with(Piecewise::zero);
        *slot = &*slot + &count;
    }
    let routes: Vec<(Vec<usize>, Piecewise)> = routes.into_iter().collect();
    let every_entry = if path_sets.iter().any(|set| set.is_empty()) {
        loop_entries.clone()
    } else {
        at_least(1)?
    };
    let mut sums: BTreeMap<Vec<usize>, Piecewise> = BTreeMap::new();
    let mut out = Vec::new();
    for &b in &region {
        let on_path = |k: &usize| paths[*k].contains(&Node::Block(b));
        if !(0..paths.len()).any(|k| on_path(&k)) {
            continue;
        }
        // On every path: every entry when some path visits no copy (the region holds the
        // entry's `N >= 1` test), else the entries with `N >= 1` (the enclosing code tests it).
        if (0..paths.len()).all(|k| on_path(&k)) {
            out.push((b, every_entry.clone()));
            continue;
        }
        // The routes through the block; on a path, but on none a run takes: 0.
        let mut through = Vec::new();
        let mut ambiguous = false;
        for (r, (ps, _)) in routes.iter().enumerate() {
            let on = ps.iter().filter(|k| on_path(k)).count();
            if on == 0 {
                continue;
            }
            if on < ps.len() {
                ambiguous = true;
                break;
            }
            through.push(r);
        }
        if ambiguous {
            continue;
        }
        let total = sums.entry(through.clone()).or_insert_with(|| {
            through
                .iter()
                .fold(Piecewise::zero(), |t, &r| &t + &routes[r].1)
        });
        out.push((b, total.clone()));
    }
    Ok(out)
}

/// The guards' tests of the trip count `N` that can be read from the code: a conditional
/// branch after `cmp x, c` where `x` is `N` (a register the entry tests with `test r, r;
/// jle`) or `N + d` (`lea d(N), x` in the same block), as gcc and clang emit them.
struct TripTests {
    /// Registers holding `N`.
    trip: BTreeSet<Register>,
    /// Block start address -> block.
    starts: BTreeMap<u64, usize>,
}

impl TripTests {
    fn read(
        function: &Function,
        cfg: &Cfg,
        region: &BTreeSet<usize>,
        sources: &BTreeSet<usize>,
    ) -> TripTests {
        let mut trip = BTreeSet::new();
        for &b in region.iter().chain(sources) {
            let Some(block) = cfg.blocks.get(b) else {
                continue;
            };
            let instructions = &function.instructions[block.first..block.end];
            if let [.., test, jump] = instructions {
                use iced_x86::Mnemonic::{Jg, Jle, Test};
                let positive = matches!(jump.mnemonic, Jle | Jg);
                if let ([r, q], true, Test) = (test.compared.as_slice(), positive, test.mnemonic) {
                    if r == q {
                        trip.insert(*r);
                    }
                }
            }
        }
        let starts = cfg
            .blocks
            .iter()
            .enumerate()
            .map(|(b, x)| (x.start, b))
            .collect();
        TripTests { trip, starts }
    }

    /// The successor block `b` branches to for trip count `n`, when its test reads `N`.
    fn successor(&self, function: &Function, cfg: &Cfg, b: usize, n: i64) -> Option<usize> {
        let block = &cfg.blocks[b];
        let instructions = &function.instructions[block.first..block.end];
        let [before @ .., compare, jump] = instructions else {
            return None;
        };
        let (c, &x) = (compare.compared_immediate?, compare.compared.first()?);
        let writes = |i: &&Instruction, r: Register| i.writes.contains(&r);
        let value = match before.iter().rposition(|i| writes(&i, x)) {
            None if self.trip.contains(&x) => n,
            None => return None,
            Some(k) => {
                let (dst, src, d) = before[k].offset?;
                let rewritten = before[..k].iter().any(|i| writes(&i, src));
                if dst != x || !self.trip.contains(&src) || rewritten {
                    return None;
                }
                n + d
            }
        };
        use iced_x86::Mnemonic::{Ja, Jae, Jb, Jbe, Je, Jg, Jge, Jl, Jle, Jne};
        let taken = match jump.mnemonic {
            Jb | Jl => value < c,
            Jbe | Jle => value <= c,
            Ja | Jg => value > c,
            Jae | Jge => value >= c,
            Je => value == c,
            Jne => value != c,
            _ => return None,
        };
        let at = |address: u64| self.starts.get(&address).copied();
        if taken {
            jump.target.and_then(at)
        } else {
            at(jump.address + u64::from(jump.length))
        }
    }
}

/// Source iterations per pass of each of several binary loop copies of one source loop,
/// relative to the narrowest: bytes a pass advances (least over the loop's arrays) over the
/// narrowest copy's, which takes one source iteration per pass (clang's scalar remainder).
/// Unlike the element rule this needs no element size and no subscript: a loop over
/// `v[3*i..3*i+2]` advances 24 bytes per iteration in its scalar copy and 192 in a copy that
/// takes 8. `None` when a copy has no advancing access or the advances do not divide.
pub fn relative_factors(function: &Function, cfg: &Cfg, copies: &[usize]) -> Option<Vec<i64>> {
    let advances: Vec<i64> = copies
        .iter()
        .map(|&l| {
            advancing_arrays(function, cfg, l)
                .keys()
                .map(|(_, advance, _)| advance.abs())
                .min()
        })
        .collect::<Option<_>>()?;
    let narrowest = *advances.iter().min()?;
    // Equal advances: distributed or versioned loops (gcc -O3 splits `a[j] = 1; b[j] = 2`
    // into one loop per array), not a wide copy and its remainder.
    if narrowest == 0 || advances.iter().all(|a| *a == narrowest) {
        return None;
    }
    if advances.iter().any(|a| a % narrowest != 0) {
        return None;
    }
    Some(advances.iter().map(|a| a / narrowest).collect())
}

/// Blocks no path from the entry reaches: the alignment padding (`nop`) optimisers put
/// before loop headers after an unconditional jump. None when the function has indirect jumps
/// (a jump table's targets have no known predecessor).
pub fn padding_blocks(cfg: &Cfg) -> Vec<usize> {
    if cfg.blocks.is_empty() || cfg.blocks.iter().any(|b| b.indirect) {
        return Vec::new();
    }
    let mut seen = vec![false; cfg.blocks.len()];
    let mut work = vec![0];
    while let Some(b) = work.pop() {
        if std::mem::replace(&mut seen[b], true) {
            continue;
        }
        work.extend(cfg.blocks[b].successors.iter().copied());
    }
    (0..cfg.blocks.len()).filter(|&b| !seen[b]).collect()
}

/// Whether a lone copy of factor `k` (no other binary loop and no straight-line pass of the
/// same source loop) is believable: a compiler that unrolls or vectorises needs a remainder
/// unless the trip count is a constant multiple of `k`. A loop over `a[3*i]`, `a[3*i+1]`,
/// `a[3*i+2]` looks like an unroll by 3 to the memory rule; this keeps it at 1.
pub fn lone_copy_plausible(source: &SourceModel, s: usize, k: i64) -> bool {
    let Ok(scop) = &source.loops[s].scop else {
        return false;
    };
    let (Bound::Max(starts) | Bound::Min(starts)) = &scop.start;
    let (Bound::Max(ends) | Bound::Min(ends)) = &scop.end;
    let ([start], [end]) = (starts.as_slice(), ends.as_slice()) else {
        return false;
    };
    let (high, low) = if scop.stride > 0 {
        (end, start)
    } else {
        (start, end)
    };
    let Ok(span) = high.plus_scaled(low, -1) else {
        return false;
    };
    if !span.terms.is_empty() {
        return false;
    }
    let stride = scop.stride.abs();
    let span = span.constant + i64::from(scop.end_inclusive);
    let trip = (span + stride - 1).div_euclid(stride);
    trip > 0 && trip % k == 0
}

/// Whether block `to` is reachable from `from` without passing `stop` (the enclosing loop's
/// header: the next iteration is not this one).
fn reaches_before(cfg: &Cfg, from: usize, to: usize, stop: Option<usize>) -> bool {
    let mut work = vec![from];
    let mut seen = BTreeSet::new();
    while let Some(x) = work.pop() {
        if x == to {
            return true;
        }
        if (Some(x) == stop && x != from) || !seen.insert(x) {
            continue;
        }
        work.extend(cfg.blocks[x].successors.iter().copied());
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::SourceLoop;
    use metron_symbolic::Loop;

    fn source(loops: Vec<(Loop, Option<usize>)>) -> SourceModel {
        SourceModel {
            file: "t.c".into(),
            functions: Vec::new(),
            loops: loops
                .into_iter()
                .enumerate()
                .map(|(k, (scop, parent))| SourceLoop {
                    function: "f".into(),
                    line: k as u32 + 1,
                    end_line: 10,
                    parent,
                    scop: Ok(scop),
                    annotations: Vec::new(),
                    partial: (None, None),
                })
                .collect(),
            ..SourceModel::default()
        }
    }

    fn at(p: &Piecewise, n: i64) -> i64 {
        p.evaluate(&metron_symbolic::binding([("n", n)]))
            .unwrap()
            .to_integer()
            .try_into()
            .unwrap()
    }

    // clang -O2's init loop of stream.c: 16 per pass, a vector remainder of 4, a scalar 1.
    #[test]
    fn cascade_of_a_single_loop_takes_whole_passes() {
        let s = source(vec![(Loop::exclusive("j", "0", "n", 1).unwrap(), None)]);
        let options = CountOptions::default();
        let (copies, entries) = cascade_totals(&s, 0, &[16, 4, 1, 4], &options).unwrap();
        for n in [0, 3, 7, 16, 20000, 20013, 20015] {
            let (wide, vector, scalar) = (n / 16, n / 4 % 4, n % 4);
            assert_eq!(at(&copies[&16], n), wide, "n={n}");
            assert_eq!(at(&copies[&4], n), vector, "n={n}");
            assert_eq!(at(&copies[&1], n), scalar, "n={n}");
            assert_eq!(at(&entries, n), 1);
        }
    }

    // triangular.c's inner loop `for (j = i + 1; j <= n + 2; j++)` unrolled by 4 with a
    // remainder: summed over i, against brute force.
    #[test]
    fn cascade_of_a_triangular_nest_matches_brute_force() {
        let s = source(vec![
            (Loop::inclusive("i", "1", "n", 1).unwrap(), None),
            (Loop::inclusive("j", "i + 1", "n + 2", 1).unwrap(), Some(0)),
        ]);
        let options = CountOptions::default();
        let (copies, entries) = cascade_totals(&s, 1, &[4, 2, 1], &options).unwrap();
        let long = entries_with_at_least(&s, 1, 4, &options).unwrap();
        for n in [1, 2, 5, 30, 31, 33] {
            let trips: Vec<i64> = (1..=n).map(|i| (n + 2 - i).max(0)).collect();
            let sum = |f: &dyn Fn(i64) -> i64| trips.iter().map(|&t| f(t)).sum::<i64>();
            assert_eq!(at(&copies[&4], n), sum(&|t| t / 4), "n={n}");
            assert_eq!(at(&copies[&2], n), sum(&|t| t / 2 % 2), "n={n}");
            assert_eq!(at(&copies[&1], n), sum(&|t| t % 2), "n={n}");
            assert_eq!(at(&entries, n), n);
            assert_eq!(at(&long, n), sum(&|t| i64::from(t >= 4)), "n={n}");
            for r in 0..4 {
                let e = entries_where(&s, 1, 4, Some((4, r)), &options).unwrap();
                let brute = sum(&|t| i64::from(t >= 4 && t % 4 == r));
                assert_eq!(at(&e, n), brute, "n={n} r={r}");
            }
        }
    }

    #[test]
    fn a_lone_copy_needs_a_constant_multiple_trip_count() {
        let s = source(vec![
            (Loop::exclusive("i", "0", "n", 1).unwrap(), None),
            (Loop::exclusive("j", "jj", "jj + 8", 1).unwrap(), Some(0)),
            (Loop::inclusive("k", "1", "6", 1).unwrap(), Some(0)),
        ]);
        assert!(!lone_copy_plausible(&s, 0, 3));
        assert!(lone_copy_plausible(&s, 1, 2));
        assert!(lone_copy_plausible(&s, 1, 8));
        assert!(!lone_copy_plausible(&s, 1, 3));
        assert!(lone_copy_plausible(&s, 2, 3));
        assert!(!lone_copy_plausible(&s, 2, 4));
    }

    /// Copies of source loop `s` (binary loops 0.., each (factor, role)) and straight-line
    /// passes (blocks 100.., each factor).
    fn versioned(s: usize, loops: &[(i64, Role)], blocks: &[i64]) -> SourceCopies {
        SourceCopies {
            factor: loops.iter().map(|(k, _)| *k).collect(),
            remainders: BTreeMap::from([(
                s,
                blocks
                    .iter()
                    .enumerate()
                    .map(|(b, k)| (100 + b, *k))
                    .collect(),
            )]),
            roles: loops
                .iter()
                .enumerate()
                .filter(|(_, (_, r))| *r != Role::Cascade)
                .map(|(l, (_, r))| (l, *r))
                .collect(),
            mapping: (0..loops.len()).map(|l| (l, Some(s))).collect(),
            counted: Default::default(),
        }
    }

    /// clang's scalar code entered with `m` iterations left: a prologue that peels `m mod u`
    /// one at a time, then a loop unrolled by `u`: (prologue passes, unrolled passes).
    fn clang_scalar(m: i64, u: i64) -> (i64, i64) {
        (m % u, m / u)
    }

    /// What clang -O2 runs for trip count `n` of an out-of-line kernel whose arrays do not
    /// overlap: `n < 4` goes to the scalar code; otherwise the vector loop (8 per pass), the
    /// vector epilogue (4, when the loop left 4 or more) and the scalar code with `n mod 4`.
    /// Returns (vector loop, vector epilogue, scalar prologue, scalar unrolled loop).
    fn clang_runs(n: i64, u: i64) -> (i64, i64, i64, i64) {
        if n < 4 {
            let (p, l) = clang_scalar(n, u);
            return (0, 0, p, l);
        }
        let (p, l) = clang_scalar(n % 4, u);
        (n / 8, n / 4 % 2, p, l)
    }

    // clang -O2 scale: the scalar prologue is a loop (1 per pass), the scalar loop unrolled by
    // 4 is as wide as the vector epilogue and never runs on arrays that do not overlap.
    #[test]
    fn a_fallback_as_wide_as_the_narrowest_vector_copy_never_runs() {
        let s = source(vec![(Loop::exclusive("j", "0", "n", 1).unwrap(), None)]);
        let copies = versioned(
            0,
            &[(8, Role::Cascade), (1, Role::Cascade), (4, Role::Never)],
            &[4],
        );
        let (counts, entries) = copies.copy_counts(&s, 0, &CountOptions::default()).unwrap();
        for n in 0..40 {
            let (wide, epilogue, prologue, unrolled) = clang_runs(n, 4);
            assert_eq!(at(&counts[&Copy::Loop(0)], n), wide, "n={n}");
            assert_eq!(at(&counts[&Copy::Block(100)], n), epilogue, "n={n}");
            assert_eq!(at(&counts[&Copy::Loop(1)], n), prologue, "n={n}");
            assert_eq!(at(&counts[&Copy::Loop(2)], n), unrolled, "n={n}");
            assert_eq!(at(&entries, n), 1);
        }
    }

    // clang -O2 triad: the scalar loop is unrolled by 2 behind a one-iteration prologue block;
    // both are cascade steps (2 and 1) after the vector loop (8) and its epilogue (4).
    #[test]
    fn an_unrolled_scalar_remainder_and_its_prologue_are_cascade_steps() {
        let s = source(vec![(Loop::exclusive("j", "0", "n", 1).unwrap(), None)]);
        let copies = versioned(0, &[(8, Role::Cascade), (2, Role::Cascade)], &[4, 1]);
        let (counts, _) = copies.copy_counts(&s, 0, &CountOptions::default()).unwrap();
        for n in 0..40 {
            let (wide, epilogue, prologue, unrolled) = clang_runs(n, 2);
            assert_eq!(at(&counts[&Copy::Loop(0)], n), wide, "n={n}");
            assert_eq!(at(&counts[&Copy::Block(100)], n), epilogue, "n={n}");
            assert_eq!(at(&counts[&Copy::Loop(1)], n), unrolled, "n={n}");
            assert_eq!(at(&counts[&Copy::Block(101)], n), prologue, "n={n}");
        }
    }

    /// What gcc -O3 runs for trip count `n` when its guard sends `n < t` to the scalar
    /// fallback: (vector loop by 2, scalar epilogue, fallback loop).
    fn gcc_runs(n: i64, t: i64) -> (i64, i64, i64) {
        if n < t {
            (0, 0, n.max(0))
        } else {
            (n / 2, n % 2, 0)
        }
    }

    // gcc -O3 copy (`N - 1 <= 2` goes to the fallback: t = 4) and scale (t = 3), in a loop
    // nest too: the inner trip count `i` runs through every small value, each counted exactly.
    #[test]
    fn a_fallback_the_vector_copy_never_reaches_takes_only_short_trip_counts() {
        for t in [3, 4] {
            let alternative = Role::Alternative { threshold: t };
            let loops = [(2, Role::Cascade), (1, alternative)];
            let copies = versioned(0, &loops, &[1]);
            let options = CountOptions::default();
            let flat = source(vec![(Loop::exclusive("j", "0", "n", 1).unwrap(), None)]);
            let (counts, _) = copies.copy_counts(&flat, 0, &options).unwrap();
            for n in 0..30 {
                let (vector, epilogue, fallback) = gcc_runs(n, t);
                assert_eq!(at(&counts[&Copy::Loop(0)], n), vector, "t={t} n={n}");
                assert_eq!(at(&counts[&Copy::Block(100)], n), epilogue, "t={t} n={n}");
                assert_eq!(at(&counts[&Copy::Loop(1)], n), fallback, "t={t} n={n}");
            }
            let nest = source(vec![
                (Loop::exclusive("i", "0", "n", 1).unwrap(), None),
                (Loop::exclusive("j", "0", "i", 1).unwrap(), Some(0)),
            ]);
            let copies = versioned(1, &loops, &[1]);
            let (counts, entries) = copies.copy_counts(&nest, 1, &options).unwrap();
            for n in 0..20 {
                let sum = |f: &dyn Fn((i64, i64, i64)) -> i64| {
                    (0..n).map(|i| f(gcc_runs(i, t))).sum::<i64>()
                };
                assert_eq!(at(&counts[&Copy::Loop(0)], n), sum(&|r| r.0), "n={n}");
                assert_eq!(at(&counts[&Copy::Block(100)], n), sum(&|r| r.1), "n={n}");
                assert_eq!(at(&counts[&Copy::Loop(1)], n), sum(&|r| r.2), "n={n}");
                assert_eq!(at(&entries, n), n);
            }
        }
    }

    // The guard routing per trip count, against the same machine semantics.
    #[test]
    fn routed_passes_follow_the_guards() {
        let clang = [
            (8, Role::Cascade),
            (4, Role::Cascade),
            (1, Role::Cascade),
            (4, Role::Never),
        ];
        let gcc = [
            (2, Role::Cascade),
            (1, Role::Cascade),
            (1, Role::Alternative { threshold: 3 }),
        ];
        for n in 0..40 {
            let (wide, epilogue, prologue, unrolled) = clang_runs(n, 4);
            assert_eq!(
                routed_passes(&clang, n),
                vec![wide, epilogue, prologue, unrolled]
            );
            let (vector, tail, fallback) = gcc_runs(n, 3);
            assert_eq!(routed_passes(&gcc, n), vec![vector, tail, fallback]);
        }
    }

    #[test]
    fn copies_that_do_not_nest_are_an_error() {
        let s = source(vec![(Loop::exclusive("j", "0", "n", 1).unwrap(), None)]);
        let e = cascade_totals(&s, 0, &[6, 4], &CountOptions::default()).unwrap_err();
        assert!(e.contains("do not nest"), "{e}");
    }
}
