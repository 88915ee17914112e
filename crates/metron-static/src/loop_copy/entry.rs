//! The blocks of an enclosing loop body that run once per entry of an inner source loop with
//! at least one iteration, read from the CFG: they dominate every copy of the inner loop (so
//! every entry that runs a copy passes them), and a branch above them can skip every copy
//! (the `N >= 1` test compilers put before a rotated loop and its copies: one side goes on to
//! the next iteration without reaching a copy). An entry with no iteration takes that side.

use std::collections::BTreeSet;

use crate::cfg::Cfg;

/// Blocks of binary loop `level`'s own body (not in a child loop, not its header) that
/// dominate every block of `heads` (the copies' headers and straight-line passes) and are
/// dominated by a branch with a side that skips them all.
pub fn entry_blocks(cfg: &Cfg, level: usize, heads: &[usize]) -> Vec<usize> {
    let outer = &cfg.loops[level];
    let targets: BTreeSet<usize> = heads.iter().copied().collect();
    // A side of a branch in the body that goes on to the next iteration past every copy.
    let skips = |y: usize| {
        y != outer.header
            && outer.blocks.contains(&y)
            && !reaches_any(cfg, y, &targets, &outer.blocks, outer.header)
    };
    let guarded = |x: usize| {
        let mut at = x;
        while let Some(d) = cfg.idom[at] {
            let (body, skipping) = (outer.blocks.contains(&d), &cfg.blocks[d].successors);
            if body && skipping.len() > 1 && skipping.iter().any(|&y| skips(y)) {
                return true;
            }
            if d == outer.header || !body {
                return false;
            }
            at = d;
        }
        false
    };
    outer
        .blocks
        .iter()
        .copied()
        .filter(|&x| cfg.innermost_loop(x) == Some(level) && x != outer.header)
        .filter(|x| !targets.contains(x))
        .filter(|&x| heads.iter().all(|&h| cfg.dominates(x, h)))
        .filter(|&x| guarded(x))
        .collect()
}

/// Whether some path from `from` reaches a block of `to` within `body` before `header`.
fn reaches_any(
    cfg: &Cfg,
    from: usize,
    to: &BTreeSet<usize>,
    body: &BTreeSet<usize>,
    header: usize,
) -> bool {
    let mut seen = BTreeSet::from([from]);
    let mut work = vec![from];
    while let Some(b) = work.pop() {
        if to.contains(&b) {
            return true;
        }
        if b == header || !body.contains(&b) {
            continue;
        }
        for &x in &cfg.blocks[b].successors {
            if seen.insert(x) {
                work.push(x);
            }
        }
    }
    false
}

/// Whether every path from `from` reaches a block of `to` without leaving `body`, passing
/// `header` (the next iteration) or a return.
pub fn must_reach(
    cfg: &Cfg,
    from: usize,
    to: &BTreeSet<usize>,
    body: &BTreeSet<usize>,
    header: usize,
) -> bool {
    let mut seen = BTreeSet::from([from]);
    let mut work = vec![from];
    while let Some(b) = work.pop() {
        if to.contains(&b) {
            continue;
        }
        let left = !body.contains(&b) || cfg.blocks[b].successors.is_empty();
        if (b == header && b != from) || left {
            return false;
        }
        for &x in &cfg.blocks[b].successors {
            if seen.insert(x) {
                work.push(x);
            }
        }
    }
    true
}
