//! Straight-line passes beside the loop copies (vector and scalar epilogues), the `N < k`
//! bypasses, and the blocks no path reaches (alignment padding).

use std::collections::BTreeSet;

use super::induction::array_access;
use super::induction::invariant_arrays;
use super::induction::own_instructions;
use super::induction::touched_elements;
use crate::binary::{Function, Instruction};
use crate::cfg::Cfg;
use crate::loop_context::same_file;
use crate::source::SourceModel;

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
        let instructions: Vec<&Instruction> = block.code(function).iter().collect();
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
pub(super) fn pass_candidates(
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
        let instructions = block.code(function);
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

/// Blocks from which a copy's header is reachable within one pass of the enclosing loop
/// `level` (not through its header again), outside the copies.
pub(super) fn before_copies(cfg: &Cfg, copies: &[usize], level: Option<usize>) -> BTreeSet<usize> {
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
pub(super) fn after_copies(cfg: &Cfg, copies: &[usize], level: Option<usize>) -> BTreeSet<usize> {
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
        block
            .code(function)
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
            let instructions = block.code(function);
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

/// Whether block `to` is reachable from `from` without passing `stop` (the enclosing loop's
/// header: the next iteration is not this one).
pub(super) fn reaches_before(cfg: &Cfg, from: usize, to: usize, stop: Option<usize>) -> bool {
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
