//! Blocks outside every loop that run only on one side of a loop's guard (004 §III.C.2 with
//! the binary's structure): an optimising compiler tests `trip >= 1` before a rotated loop
//! and often duplicates the code after it (tail duplication), so a call after the loop sits
//! in two blocks, one reached when the loop ran and one when it did not. Counting both once
//! doubles the call. Which side a block is on is read from the CFG (dominance by the loop's
//! header, or exclusion from it), not from the guard's compare.

use std::collections::{BTreeMap, BTreeSet};

use metron_symbolic::{trip_count, Bound, CountOptions, LoopNest, Piecewise};

use crate::binary::Function;
use crate::cfg::Cfg;
use crate::loop_context::LoopContext;
use crate::source::SourceModel;

/// A rotated loop (its test at the bottom, entered only past a guard) that runs at most
/// once per call.
struct Guarded {
    header: usize,
    /// 1 when the loop runs (at least one iteration), 0 otherwise: per call.
    ran: Piecewise,
}

/// Multiplies the count of each block outside all loops that is still the default 1 by the
/// loops it depends on: `ran` when every path to it passes the loop's header; `1 - ran` when
/// it and the header exclude each other and every path through the function takes one of
/// them (the duplicated tail on the bypass).
pub(crate) fn count_guarded_blocks(
    function: &Function,
    cfg: &Cfg,
    source: &SourceModel,
    mapping: &BTreeMap<usize, Option<usize>>,
    contexts: &[LoopContext],
    options: &CountOptions,
    block_counts: &mut [Piecewise],
) -> BTreeSet<usize> {
    count_inner_guards(cfg, source, mapping, contexts, options, block_counts);
    let loops = guarded_loops(cfg, source, mapping, contexts, options);
    let mut counted = BTreeSet::new();
    if loops.is_empty() {
        return counted;
    }
    let exits: Vec<usize> = (0..cfg.blocks.len())
        .filter(|&b| {
            let last = &function.instructions[cfg.blocks[b].end - 1];
            last.flow == iced_x86::FlowControl::Return
        })
        .collect();
    let one = Piecewise::constant(1);
    for (x, slot) in block_counts.iter_mut().enumerate() {
        if cfg.innermost_loop(x).is_some() || *slot != one {
            continue;
        }
        let mut count = one.clone();
        for g in &loops {
            if cfg.dominates(g.header, x) {
                counted.insert(x);
                count = &count * &g.ran;
            } else if !reaches(cfg, x, g.header, None)
                && !reaches(cfg, g.header, x, None)
                && !exits
                    .iter()
                    .any(|&e| reaches(cfg, 0, e, Some((x, g.header))))
            {
                counted.insert(x);
                count = &count * &(&one - &g.ran);
            }
        }
        *slot = count;
    }
    counted
}

/// Blocks of a loop body that run once per entry of a rotated inner loop: its preheader (it
/// dominates the inner header, and every path from it reaches that header within the
/// iteration) and the code on its exit path (dominated by the inner header, reached by every
/// path out of it). The inner loop is entered only past its `N >= 1` guard, so these blocks
/// run on the entries with at least one iteration, not on every iteration of the body
/// (a `k` loop whose `min` end makes it empty for every `j`: its preheader runs 0 times).
fn count_inner_guards(
    cfg: &Cfg,
    source: &SourceModel,
    mapping: &BTreeMap<usize, Option<usize>>,
    contexts: &[LoopContext],
    options: &CountOptions,
    block_counts: &mut [Piecewise],
) {
    for (c, inner) in cfg.loops.iter().enumerate() {
        let Some(s) = mapping.get(&c).copied().flatten() else {
            continue;
        };
        let copies = mapping.values().filter(|m| **m == Some(s)).count();
        let Some(p) = inner.parent else { continue };
        // Rotated: every exit is taken at a latch (the test at the bottom). A top-tested loop
        // (-O0's `for`, its test in one or more blocks before the body) runs its test on
        // every entry, also with no iteration.
        let top_tested = inner
            .exiting(cfg)
            .iter()
            .any(|&b| !cfg.blocks[b].successors.contains(&inner.header));
        if copies != 1 || source.loops[s].parent.is_none() || top_tested {
            continue;
        }
        let outer = &cfg.loops[p];
        let within = |from: usize, to: usize| {
            crate::loop_copy::must_reach(
                cfg,
                from,
                &BTreeSet::from([to]),
                &outer.blocks,
                outer.header,
            )
        };
        let exits: Vec<usize> = inner
            .blocks
            .iter()
            .flat_map(|&b| cfg.blocks[b].successors.iter().copied())
            .filter(|x| !inner.blocks.contains(x))
            .collect();
        // The exit path: dominated by the inner header, reached by every path out of it.
        let mut guarded = crate::loop_copy::entry_blocks(cfg, p, &[inner.header]);
        guarded.extend(outer.blocks.iter().copied().filter(|&x| {
            cfg.innermost_loop(x) == Some(p)
                && x != outer.header
                && cfg.dominates(inner.header, x)
                && !exits.is_empty()
                && exits.iter().all(|&e| within(e, x))
        }));
        if guarded.is_empty() {
            continue;
        }
        let Ok(ran) = crate::loop_copy::entries_with_at_least(source, s, 1, options) else {
            continue;
        };
        let ran = contexts[c].apply(&ran);
        for x in guarded {
            block_counts[x] = ran.clone();
        }
    }
}

/// The function's outermost loops that stand alone: one binary loop for their source loop
/// (no vector or remainder copies, whose guards test other trip counts), not inlined into
/// another loop, and rotated (the header does not exit: it runs only when the loop does).
fn guarded_loops(
    cfg: &Cfg,
    source: &SourceModel,
    mapping: &BTreeMap<usize, Option<usize>>,
    contexts: &[LoopContext],
    options: &CountOptions,
) -> Vec<Guarded> {
    let mut out = Vec::new();
    for (l, natural) in cfg.loops.iter().enumerate() {
        let Some(s) = mapping.get(&l).copied().flatten() else {
            continue;
        };
        let copies = mapping.values().filter(|m| **m == Some(s)).count();
        if natural.parent.is_some()
            || copies != 1
            || source.loops[s].parent.is_some()
            || contexts[l].times.is_some()
            || !contexts[l].inlined.is_empty()
            || natural.exiting(cfg).contains(&natural.header)
            || natural.header == 0
        {
            continue;
        }
        if let Ok(ran) = runs_at_least_once(source, s, options) {
            out.push(Guarded {
                header: natural.header,
                ran,
            });
        }
    }
    out
}

/// Whether a path leads from `from` to `to` without entering the blocks of `avoid`.
fn reaches(cfg: &Cfg, from: usize, to: usize, avoid: Option<(usize, usize)>) -> bool {
    let blocked = |b: usize| avoid.is_some_and(|(a, c)| b == a || b == c);
    if blocked(from) {
        return false;
    }
    let mut seen = BTreeSet::from([from]);
    let mut work = vec![from];
    while let Some(b) = work.pop() {
        if b == to {
            return true;
        }
        for &s in &cfg.blocks[b].successors {
            if !blocked(s) && seen.insert(s) {
                work.push(s);
            }
        }
    }
    false
}

/// 1 when outermost source loop `s` runs at least once, else 0: the loop cut to its first
/// iteration (`for (v = start; v < min(end, start + 1); v++)`), counted by metron-symbolic.
fn runs_at_least_once(
    source: &SourceModel,
    s: usize,
    options: &CountOptions,
) -> Result<Piecewise, String> {
    let mut loops = source.nest_of(s)?;
    let [l] = loops.as_mut_slice() else {
        return Err("not an outermost loop".into());
    };
    let [start] = l.start.exprs() else {
        return Err("a loop start with min/max".into());
    };
    let up = l.stride > 0;
    // The first value past `start` in the loop's direction, inclusive or not like the end.
    let first = match (up, l.end_inclusive) {
        (_, true) => start.clone(),
        (true, false) => start.plus_constant(1).map_err(|e| e.to_string())?,
        (false, false) => start.plus_constant(-1).map_err(|e| e.to_string())?,
    };
    let mut ends = l.end.exprs().to_vec();
    ends.push(first);
    let single = l.end.exprs().len() == 1;
    l.end = match (up, &l.end) {
        (true, Bound::Min(_)) => Bound::Min(ends),
        (true, Bound::Max(_)) if single => Bound::Min(ends),
        (false, Bound::Max(_)) => Bound::Max(ends),
        (false, Bound::Min(_)) if single => Bound::Max(ends),
        _ => return Err("a loop end of the other kind of bound".into()),
    };
    l.stride = l.stride.signum();
    trip_count(&LoopNest::new(loops), options).map_err(|e| e.to_string())
}

/// Code the compiler duplicated into exclusive paths (tail duplication after a loop guard,
/// jump threading): blocks outside loops whose instructions come from the same source lines,
/// none reaching another, are copies of code that runs once per call, and at most one of them
/// runs (004 §III.C.2: a block's count is the condition under which control reaches it, and
/// exclusive paths do not add up to more than the paths that reach them). The copies of a
/// call that a loop guard decided (`guarded`: `ran` behind a loop, `1 - ran` on its bypass)
/// keep their counts; the others share what is left, `1 - (their sum)`: clang -O3 duplicates main's tail
/// after gemm.c's init loops into three copies of the call, one behind the last loop (`ni > 0`
/// and `nj > 0`) and two on its bypasses (`ni <= 0`; `ni > 0`, `nj <= 0`), which the CFG
/// alone does not tell apart. Their sum, what a callee called from them sees, is exact.
pub(crate) fn split_duplicated_blocks(
    function: &Function,
    cfg: &Cfg,
    file: &str,
    guarded: &BTreeSet<usize>,
    block_counts: &mut [Piecewise],
) {
    let one = Piecewise::constant(1);
    let apart =
        |a: usize, b: usize| a == b || (!reaches(cfg, a, b, None) && !reaches(cfg, b, a, None));
    for copies in duplicated_groups(function, cfg, file, guarded, block_counts) {
        let (decided, open): (Vec<usize>, Vec<usize>) =
            copies.iter().partition(|x| guarded.contains(x));
        if !open.iter().all(|&a| open.iter().all(|&b| apart(a, b))) {
            continue;
        }
        // The guarded copies on paths apart from every open one (a guarded copy that one of
        // them reaches is another execution, not an alternative).
        let decided: Vec<usize> = decided
            .into_iter()
            .filter(|&d| open.iter().all(|&x| apart(d, x)))
            .collect();
        let exclusive = decided
            .iter()
            .all(|&a| decided.iter().all(|&b| apart(a, b)));
        let known = decided
            .iter()
            .filter(|_| exclusive)
            .fold(Piecewise::zero(), |sum, &x| &sum + &block_counts[x]);
        if open.len() < 2 && known == Piecewise::zero() {
            continue;
        }
        // Which open copy runs is not known; compilers lay the expected path out first, so
        // the first one in address order counts what is left (counts stay integers).
        let first = open.iter().copied().min_by_key(|&x| cfg.blocks[x].start);
        for x in open {
            block_counts[x] = if Some(x) == first {
                &one - &known
            } else {
                Piecewise::zero()
            };
        }
    }
}

/// Groups of two or more blocks outside loops, still counted 1 or (calls) counted by a loop
/// guard, that copy the same code: known by their lines or, for a call, by the callee and the call's
/// line (the argument set-up around it is scheduled differently in each copy).
fn duplicated_groups(
    function: &Function,
    cfg: &Cfg,
    file: &str,
    guarded: &BTreeSet<usize>,
    block_counts: &[Piecewise],
) -> Vec<Vec<usize>> {
    let one = Piecewise::constant(1);
    let mut groups: BTreeMap<(Option<u64>, BTreeSet<u32>), Vec<usize>> = BTreeMap::new();
    for (x, count) in block_counts.iter().enumerate() {
        let block = &cfg.blocks[x];
        let call = block
            .code(function)
            .iter()
            .find(|i| i.flow == iced_x86::FlowControl::Call && i.target.is_some());
        // Only a call is known to be one execution in every copy; copies by lines alone
        // (a `ret`, a loop's exit test) may be parts of one path, so guarded ones stay out.
        let open = *count == one || (call.is_some() && guarded.contains(&x));
        if cfg.innermost_loop(x).is_some() || !open {
            continue;
        }
        let key = match call.and_then(|i| Some((i.target?, i.outer_line()?))) {
            Some((target, at)) => (Some(target), BTreeSet::from([at.line])),
            None => (
                None,
                crate::loop_context::lines_of(function, cfg, &BTreeSet::from([x]), file),
            ),
        };
        if !key.1.is_empty() {
            groups.entry(key).or_default().push(x);
        }
    }
    groups.into_values().filter(|g| g.len() > 1).collect()
}
