//! Loops unswitched on an inner loop's `N >= 1` (gcc -O2 hoists the inner loop's guard out
//! of the outer loop when the inner trip count does not depend on the outer counter:
//! fdtd2d's `for (i ...) for (j = 0; j < ny; j++)` becomes an `i` loop with the `j` loop in
//! it, run when `ny >= 1`, and an empty `i` loop, run otherwise). The empty version is a
//! loop with no loop and no memory access inside: a shell of the outer source loop, whatever
//! line its test carries. The version holding the inner loop runs the outer iterations whose
//! inner loop runs, the shell the others (004 §III.C.3's complement rule).

use std::collections::BTreeMap;

use metron_symbolic::{CountOptions, Piecewise};

use crate::binary::Function;
use crate::cfg::Cfg;
use crate::source::SourceModel;

use super::induction::own_instructions;
use super::trip_class::entries_with_at_least;

/// Whether binary loop `l` is an empty shell: no loop inside it, no memory access.
pub fn is_shell(function: &Function, cfg: &Cfg, l: usize) -> bool {
    let nested = cfg.loops.iter().any(|x| x.parent == Some(l));
    !nested
        && own_instructions(function, cfg, l)
            .iter()
            .all(|i| i.memory.is_empty())
}

/// Iterations per call of binary loop `l`, one of two copies (`siblings`) of source loop
/// `s`: one holding a binary copy of an inner source loop `c`, the other a shell. `None` when
/// the copies are not such a pair.
pub fn unswitched_iterations(
    function: &Function,
    cfg: &Cfg,
    source: &SourceModel,
    mapping: &BTreeMap<usize, Option<usize>>,
    (l, s): (usize, usize),
    siblings: &[usize],
    options: &CountOptions,
) -> Option<Piecewise> {
    let [a, b] = siblings else { return None };
    let inner_of = |o: usize| {
        cfg.loops.iter().enumerate().find_map(|(x, n)| {
            let c = mapping.get(&x).copied().flatten()?;
            (n.parent == Some(o) && source.loops[c].parent == Some(s)).then_some(c)
        })
    };
    let (full, c, shell) = match (inner_of(*a), inner_of(*b)) {
        (Some(c), None) if is_shell(function, cfg, *b) => (*a, c, *b),
        (None, Some(c)) if is_shell(function, cfg, *a) => (*b, c, *a),
        _ => return None,
    };
    let ran = entries_with_at_least(source, c, 1, options).ok()?;
    if l == full {
        return Some(ran);
    }
    (l == shell).then_some(())?;
    let nest = metron_symbolic::LoopNest::new(source.nest_of(s).ok()?);
    let every = metron_symbolic::trip_count(&nest, options).ok()?;
    Some(&every - &ran)
}
