//! Binary loops follow the source nest: a loop nested `d` deep in the binary is a copy of a
//! source loop nested `d` deep (within one function, nothing inlined). The line-based mapping
//! can pick the wrong level when the compiler moves an outer loop's code into an inner loop's
//! blocks (clang's vectorised `x` loop carrying the `y` loop's address arithmetic); the loop
//! forest decides: the source loop is moved up to its ancestor, or down to its only
//! descendant, at the binary loop's depth.

use std::collections::BTreeMap;

use crate::binary::Function;
use crate::cfg::Cfg;
use crate::source::SourceModel;

/// Corrects `mapping` (binary loop -> source loop) so that depths agree, when every mapped
/// source loop belongs to one function and the corrected loop is unambiguous.
pub fn follow_nesting(
    code: &Function,
    cfg: &Cfg,
    source: &SourceModel,
    mapping: &mut BTreeMap<usize, Option<usize>>,
) {
    let mapped: Vec<usize> = mapping.values().flatten().copied().collect();
    let Some(&first) = mapped.first() else { return };
    let function = &source.loops[first].function;
    if mapped
        .iter()
        .any(|&s| &source.loops[s].function != function)
    {
        return;
    }
    // Only where the mapping inverts the forest: a binary loop whose source loop encloses its
    // binary parent's (an outer loop unrolled away leaves inner loops shallower in the binary
    // than in the source, and a loop whose lines are missing may share its parent's source
    // loop: neither is a contradiction the depths can resolve, and both are left alone).
    let contradicted = cfg.loops.iter().enumerate().any(|(l, natural)| {
        let (Some(Some(s)), Some(p)) = (mapping.get(&l), natural.parent) else {
            return false;
        };
        let Some(Some(sp)) = mapping.get(&p) else {
            return false;
        };
        is_within(source, *sp, *s)
    });
    if !contradicted {
        shells_to_their_loop(code, cfg, source, mapping);
        return;
    }
    let depth = |s: usize| source_depth(source, s).unwrap_or(0);
    for (l, slot) in mapping.iter_mut() {
        let Some(s) = *slot else { continue };
        let want = cfg.loops[*l].depth;
        let have = depth(s);
        *slot = Some(if have > want {
            let mut at = s;
            for _ in want..have {
                at = source.loops[at].parent.unwrap_or(at);
            }
            at
        } else if have < want {
            let below: Vec<usize> = (0..source.loops.len())
                .filter(|&x| depth(x) == want && is_within(source, x, s))
                .collect();
            match below.as_slice() {
                [only] => *only,
                _ => s,
            }
        } else {
            s
        });
    }
}

/// Whether source loop `x` is nested (at any depth) in source loop `s`.
pub(super) fn is_within(source: &SourceModel, x: usize, s: usize) -> bool {
    let mut at = source.loops[x].parent;
    while let Some(p) = at {
        if p == s {
            return true;
        }
        at = source.loops[p].parent;
    }
    false
}

/// How many source loops enclose source loop `s` (0 for an outermost loop).
pub(super) fn source_depth(source: &SourceModel, s: usize) -> Option<usize> {
    let mut d = 0;
    let mut at = source.loops.get(s)?.parent;
    while let Some(p) = at {
        d += 1;
        at = source.loops[p].parent;
    }
    Some(d)
}

/// An unswitched outer loop's empty version (`unswitch::is_shell`) carries only the inner
/// loop's test, so the lines map it to the inner source loop; it is a copy of the outer one
/// when its binary parent is a copy of the outer one's parent.
fn shells_to_their_loop(
    function: &Function,
    cfg: &Cfg,
    source: &SourceModel,
    mapping: &mut BTreeMap<usize, Option<usize>>,
) {
    let parents: BTreeMap<usize, Option<usize>> = mapping.clone();
    for (l, slot) in mapping.iter_mut() {
        let Some(s) = *slot else { continue };
        let Some(outer) = source.loops[s].parent else {
            continue;
        };
        let shell = super::unswitch::is_shell(function, cfg, *l);
        let binary_parent = cfg.loops[*l]
            .parent
            .and_then(|p| parents.get(&p).copied().flatten());
        if shell && binary_parent.is_some() && binary_parent == source.loops[outer].parent {
            *slot = Some(outer);
        }
    }
}
