//! The cascade of a source loop's copies: the widest runs `floor(N/k1)` passes per entry,
//! each narrower one what the wider left over (`floor(N/k_i) - (k_{i-1}/k_i) floor(N/k_{i-1})`),
//! and the roles of versioned copies (fallbacks behind runtime alias checks).

use std::collections::{BTreeMap, BTreeSet};

use iced_x86::FlowControl;
use metron_symbolic::{trip_count, Bound, CountOptions, LoopNest, Piecewise, Rational};

use super::induction::invariant_arrays;
use super::induction::is_vector;
use super::induction::own_instructions;
use super::induction::touched;
use super::remainder::after_copies;
use super::remainder::before_copies;
use super::remainder::pass_candidates;
use super::remainder::reaches_before;
use crate::binary::{Function, Instruction};
use crate::cfg::Cfg;
use crate::source::SourceModel;

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
        Some(p) => crate::loop_context::source_total(source, p, options)?,
        None => Piecewise::constant(1),
    };
    Ok((out, entries))
}

/// Passes per call of a copy that takes `k` source iterations per pass, summed over the
/// entries: `sum floor(N/k)`.
pub fn whole_passes(
    source: &SourceModel,
    i: usize,
    k: i64,
    options: &CountOptions,
) -> Result<Piecewise, String> {
    passes_after_peel(source, i, k, 0, options)
}

/// Passes of a `k`-wide copy that runs after `peeled` iterations were taken off each entry
/// (a prologue, a peel for alignment): `sum max(0, floor((N - peeled)/k))`.
pub fn passes_after_peel(
    source: &SourceModel,
    i: usize,
    k: i64,
    peeled: i64,
    options: &CountOptions,
) -> Result<Piecewise, String> {
    let mut loops = source.nest_of(i)?;
    if k == 1 && peeled == 0 {
        return trip_count(&LoopNest::new(loops), options).map_err(|e| e.to_string());
    }
    let Some(inner) = loops.last_mut() else {
        return Err("empty loop nest".into());
    };
    *inner = as_passes(inner, k, peeled).ok_or("a bound out of range")?;
    trip_count(&LoopNest::new(loops), options).map_err(|e| e.to_string())
}

/// `k`-wide passes of source loop `i` (from its first iteration) where `arm` holds: the
/// copies of a loop the compiler unswitched on a test it contains.
pub fn passes_where_arm(
    source: &SourceModel,
    i: usize,
    k: i64,
    arm: &[metron_symbolic::Condition],
    options: &CountOptions,
) -> Result<Piecewise, String> {
    let mut loops = source.nest_of(i)?;
    let Some(inner) = loops.last_mut() else {
        return Err("empty loop nest".into());
    };
    if k > 1 {
        *inner = as_passes(inner, k, 0).ok_or("a bound out of range")?;
    }
    let mut nest = LoopNest::new(loops);
    nest.conditions = arm.to_vec();
    trip_count(&nest, options).map_err(|e| e.to_string())
}

/// A loop whose iterations are `l`'s passes `k` wide after `peeled` iterations,
/// `max(0, floor((N - peeled)/k))` of them: the end pulled back by `k - 1 + peeled` steps,
/// the step `k` times as far (for a down-counting loop the same formula moves its lower end
/// up). Its counter's values are not `l`'s: for loops no bound inside reads.
pub fn as_passes(l: &metron_symbolic::Loop, k: i64, peeled: i64) -> Option<metron_symbolic::Loop> {
    let back = (k - 1 + peeled) * l.stride;
    let shrink = |e: &metron_symbolic::AffineExpr| e.plus_constant(-back).ok();
    let ends: Option<Vec<_>> = l.end.exprs().iter().map(shrink).collect();
    let mut out = l.clone();
    out.end = match &l.end {
        Bound::Min(_) => Bound::Min(ends?),
        Bound::Max(_) => Bound::Max(ends?),
    };
    out.stride *= k;
    Some(out)
}

/// Iterations per pass of the narrowest loop copy of source loop `s`, when a scalar
/// straight-line pass of the same source loop does less per pass (clang's one-iteration
/// prologue before its scalar loop unrolled by 2, which peels `M mod 2` iterations): the
/// elements the loop touches per pass over the pass's. 1 otherwise (then the narrowest copy
/// takes one iteration per pass, as `relative_factors` assumes).
pub(super) fn narrowest_unrolled(
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
    let Some((per_pass, arrays)) = touched(&own, &invariant).filter(|e| e.0 > 0) else {
        return 1;
    };
    pass_candidates(function, cfg, source, file, s, copies)
        .into_iter()
        .filter_map(|b| {
            let block = &cfg.blocks[b];
            let instructions: Vec<&Instruction> = block.code(function).iter().collect();
            if is_vector(&instructions) {
                return None;
            }
            // A pass over fewer arrays (a store-only tail) is no measure of a whole one.
            touched(&instructions, &invariant)
                .filter(|t| t.1 == arrays)
                .map(|t| t.0)
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
pub(super) fn fallback_roles(
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
        let instructions: Vec<&Instruction> = block.code(function).iter().collect();
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
pub(super) fn guard_threshold(
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
        let instructions = block.code(function);
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
pub(super) fn cascade_passes(
    parts: &[(i64, Role)],
    n: i64,
    takes: impl Fn(Role) -> bool,
) -> Vec<i64> {
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

/// One copy of a source loop: a binary loop, or a straight-line pass (a block).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Copy {
    Loop(usize),
    Block(usize),
}
