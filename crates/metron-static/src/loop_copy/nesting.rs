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
        source.is_within(*sp, *s)
    });
    if !contradicted {
        shells_to_their_loop(code, cfg, source, mapping);
        enclosing_copies_to_parent(code, cfg, source, mapping);
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
                .filter(|&x| depth(x) == want && source.is_within(x, s))
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

/// A binary loop mapped to source loop `s` that encloses another binary loop mapped to `s`
/// (clang unrolls a constant outer loop away and the middle loop's copies carry the inner
/// loop's lines): the runs of `ivar` decide which is the copy of `s`. When the inner one's
/// passes grow with `s`'s bounds and the outer one's do not, the outer one is a copy of
/// `s`'s parent.
fn enclosing_copies_to_parent(
    function: &Function,
    cfg: &Cfg,
    source: &SourceModel,
    mapping: &mut BTreeMap<usize, Option<usize>>,
) {
    let pairs: Vec<(usize, usize, usize)> = mapping
        .iter()
        .filter_map(|(&inner, s)| Some((inner, (*s)?)))
        .flat_map(|(inner, s)| {
            let mut at = cfg.loops[inner].parent;
            std::iter::from_fn(move || {
                let p = at?;
                at = cfg.loops[p].parent;
                Some(p)
            })
            .map(move |outer| (outer, inner, s))
        })
        .filter(|(outer, _, s)| mapping.get(outer).copied().flatten() == Some(*s))
        .filter(|(_, _, s)| source.loops[*s].parent.is_some())
        .collect();
    for (outer, inner, s) in pairs {
        // A loop holds no copy of itself: with `s` innermost in the source, the inner binary
        // loop cannot be a copy of a loop below `s` whose lines went missing, so the outer one
        // is `s`'s parent's (gcc -O2 on `for (j = i + 1; j < n; j++)` under an `i` loop whose
        // body is only that: the `i` loop's blocks carry the `j` loop's line).
        if !source.loops.iter().any(|x| x.parent == Some(s)) {
            mapping.insert(outer, source.loops[s].parent);
            continue;
        }
        let Some((_, passes)) = super::ivar::pass_growth(function, cfg, source, s, &[outer, inner])
        else {
            continue;
        };
        let grows = |l: usize| passes.get(&l).map(|[a, b]| b > a);
        if grows(inner) == Some(true) && grows(outer) == Some(false) {
            mapping.insert(outer, source.loops[s].parent);
        }
    }
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
/// when its binary parent is a copy of the outer one's parent, or, both outermost, when the
/// machine code shows the unswitching: the shell leaves on a test of values it never changes
/// (the hoisted `N >= 1`, e.g. `cmp $2, edi; jle` for `i < n - 1`).
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
        let outermost = binary_parent.is_none()
            && source.loops[outer].parent.is_none()
            && exits_on_invariant_test(function, cfg, *l);
        if shell
            && (outermost
                || (binary_parent.is_some() && binary_parent == source.loops[outer].parent))
        {
            *slot = Some(outer);
        }
    }
}

/// Whether binary loop `l` has an exit branch whose compare (`cmp`/`test` in the same block)
/// reads only registers the loop never writes, and constants.
fn exits_on_invariant_test(function: &Function, cfg: &Cfg, l: usize) -> bool {
    let natural = &cfg.loops[l];
    let written: std::collections::BTreeSet<iced_x86::Register> = natural
        .blocks
        .iter()
        .flat_map(|&b| cfg.blocks[b].code(function))
        .flat_map(|i| i.writes.iter().copied())
        .collect();
    natural.blocks.iter().any(|&b| {
        let block = &cfg.blocks[b];
        let leaves = block.successors.iter().any(|x| !natural.blocks.contains(x));
        let own = block.code(function);
        let (Some(jump), true) = (own.last(), leaves) else {
            return false;
        };
        let Some(compare) = own.iter().rev().nth(1) else {
            return false;
        };
        let d = &compare.decoded;
        jump.flow == iced_x86::FlowControl::ConditionalBranch
            && matches!(
                d.mnemonic(),
                iced_x86::Mnemonic::Cmp | iced_x86::Mnemonic::Test
            )
            && compare.memory.is_empty()
            && (0..d.op_count()).all(|k| match d.op_kind(k) {
                iced_x86::OpKind::Register => !written.contains(&d.op_register(k).full_register()),
                iced_x86::OpKind::Memory => false,
                _ => true,
            })
    })
}

/// How many instances of an unrolled-away loop share the entries of source loop `s`'s
/// `copies`: the source loops around `s` that no binary loop is a copy of were fully
/// unrolled, so the code of `s` is repeated once per iteration of them (`T`, their constant
/// trip counts multiplied; nest_9 clang -O2's `for (j = 6; j > 1; j--)` leaves five copies of
/// the `k` loop, each holding its own copies of `l`). Each instance runs `1/T` of the entries
/// when none of the loops from the unrolled ones down to `s` reads an unrolled variable, and
/// the copies sit under exactly `T` distinct instances (binary loops whose source loops are
/// inside the unrolled ones, outermost). `None` otherwise.
pub(super) fn unrolled_instances(
    cfg: &Cfg,
    source: &SourceModel,
    mapping: &BTreeMap<usize, Option<usize>>,
    s: usize,
    copies: &[usize],
) -> Option<i64> {
    let mapped = |x: usize| mapping.values().any(|m| *m == Some(x));
    let mut unrolled = Vec::new();
    let mut below = vec![s];
    let mut at = source.loops[s].parent;
    while let Some(p) = at {
        if mapped(p) {
            if unrolled.is_empty() {
                below.push(p);
            }
        } else {
            unrolled.push(p);
        }
        at = source.loops[p].parent;
    }
    let outermost = *unrolled.last()?;
    let mut instances = 1;
    let mut vars = Vec::new();
    for &u in &unrolled {
        let l = source.loops[u].scop.as_ref().ok()?;
        instances *= constant_trip(l)?;
        vars.push(l.var.clone());
    }
    // Loops between the unrolled ones and `s` (and `s`): their counts must not differ from
    // one instance to the next.
    let reads_unrolled = source.loops.iter().enumerate().any(|(x, sl)| {
        (x == s || (source.is_within(s, x) && source.is_within(x, outermost)))
            && sl
                .scop
                .as_ref()
                .map_or(true, |l| l.bound_names().any(|v| vars.contains(v)))
    });
    let inside = |b: usize| {
        mapping
            .get(&b)
            .copied()
            .flatten()
            .is_some_and(|x| x == outermost || source.is_within(x, outermost))
    };
    let roots: std::collections::BTreeSet<usize> = copies
        .iter()
        .map(|&o| {
            let mut root = o;
            while let Some(p) = cfg.loops[root].parent.filter(|&p| inside(p)) {
                root = p;
            }
            root
        })
        .collect();
    (!reads_unrolled && instances > 1 && roots.len() as i64 == instances).then_some(instances)
}

/// The trip count of a loop whose bounds are constants (at most 64 iterations: a loop the
/// compiler unrolls fully).
fn constant_trip(l: &metron_symbolic::Loop) -> Option<i64> {
    let value = |b: &metron_symbolic::Bound| {
        let cs: Option<Vec<i64>> = b
            .exprs()
            .iter()
            .map(|e| e.terms.is_empty().then_some(e.constant))
            .collect();
        let cs = cs?;
        match b {
            metron_symbolic::Bound::Min(_) => cs.into_iter().min(),
            metron_symbolic::Bound::Max(_) => cs.into_iter().max(),
        }
    };
    let (mut v, end) = (value(&l.start)?, value(&l.end)?);
    let mut n = 0;
    while n <= 64 {
        let runs = match (l.stride > 0, l.end_inclusive) {
            (true, true) => v <= end,
            (true, false) => v < end,
            (false, true) => v >= end,
            (false, false) => v > end,
        };
        if !runs {
            return Some(n);
        }
        n += 1;
        v += l.stride;
    }
    None
}
