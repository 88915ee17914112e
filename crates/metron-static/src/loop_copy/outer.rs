//! Inner loops of a copy that takes several iterations of an outer source loop per pass
//! (gcc's outer-loop vectorisation of `x2[i] += A[j][i] * y2[j]`: the `i` loop advances two
//! `i`s per pass and the `j` loop inside it runs once per pass, for both lanes). The inner
//! binary loop is entered once per pass of its binary parent, so its source nest is counted
//! with the outer loop stepping `k` times as far (whole passes), read from the binary parent's
//! factor, not from the source.

use metron_symbolic::{trip_count, Bound, CountOptions, LoopNest, Piecewise};

use crate::binary::Function;
use crate::cfg::Cfg;
use crate::source::SourceModel;

use super::induction::{is_vector, own_instructions};
use super::nesting::source_depth;

/// Iterations per call of binary loop `l` (a copy of source loop `s`) and of its entries
/// when a vectorised binary ancestor with `factor > 1` is a copy of an enclosing source loop; `None`
/// when no such ancestor exists.
pub fn within_wide_parent(
    function: &Function,
    cfg: &Cfg,
    source: &SourceModel,
    factor: &[i64],
    mapping: &std::collections::BTreeMap<usize, Option<usize>>,
    (l, s): (usize, usize),
    options: &CountOptions,
) -> Option<(Piecewise, Piecewise)> {
    let mut at = cfg.loops[l].parent;
    while let Some(p) = at {
        let k = factor[p];
        // A vector copy (its lanes are the outer iterations), an unrolled one with a remainder
        // copy beside it, or a scalar copy jammed by a small factor (gcc -O3's `syr2k`: the
        // outer loop by 2, the inner loop doing both). A lone scalar copy's factor read from
        // row-sized strides (floyd_warshall's `k` loop: 50, 60) is no unroll factor: compilers
        // jam by 2 to 8.
        let remainder = |a: usize| mapping.values().filter(|m| **m == Some(a)).count() > 1;
        let vector = || is_vector(&own_instructions(function, cfg, p));
        let wide = |a: usize| k > 1 && (k <= 8 || remainder(a) || vector());
        if let Some(Some(a)) = mapping.get(&p).filter(|a| a.is_some_and(wide)) {
            let depth = source_depth(source, s)?.checked_sub(source_depth(source, *a)?)?;
            if depth == 0 || !source.is_within(s, *a) {
                return None;
            }
            let inner = count_with_wide(source, s, depth, k, options)?;
            let parent = source.loops[s].parent?;
            let entries = count_with_wide(source, parent, depth - 1, k, options)?;
            return Some((inner, entries));
        }
        at = cfg.loops[p].parent;
    }
    None
}

/// The nest down to source loop `s`, with the loop `up` levels above `s` stepping `k` times
/// as far and ending `k - 1` steps earlier (its whole passes).
fn count_with_wide(
    source: &SourceModel,
    s: usize,
    up: usize,
    k: i64,
    options: &CountOptions,
) -> Option<Piecewise> {
    let mut loops = source.nest_of(s).ok()?;
    let at = loops.len().checked_sub(up + 1)?;
    let wide = &mut loops[at];
    let back = (k - 1) * wide.stride;
    let shrink = |e: &metron_symbolic::AffineExpr| e.plus_constant(-back).ok();
    wide.end = match &wide.end {
        Bound::Min(v) => Bound::Min(v.iter().map(shrink).collect::<Option<_>>()?),
        Bound::Max(v) => Bound::Max(v.iter().map(shrink).collect::<Option<_>>()?),
    };
    wide.stride *= k;
    trip_count(&LoopNest::new(loops), options).ok()
}
