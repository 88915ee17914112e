//! Terms of a nest versioned on an invariant loop's trip class. A loop whose bounds read no
//! counter (`for (l = n + 1; l > 0; l -= 3)` inside loops over `i`, `j`, `k`) has the same
//! trip count `N` on every entry, so a compiler that copies it (unrolled by 2, vectorised)
//! may test `N`'s class once, outside the nest, and run one version of the whole nest per
//! class (gcc -O3's unswitching of the remainder test). Each version's blocks count as the
//! source nest does, times the indicator of its class: 1 where the parameters put `N` in
//! the class, 0 elsewhere (004 §III.C.2 counts, an indicator of the parameters alone).

use metron_symbolic::{CountOptions, Piecewise};

use crate::loop_copy::{class_indicator, entries_with_at_least, passes_after_peel};
use crate::source::{SourceFunction, SourceModel};

/// The classes tested: the remainder of a loop unrolled by 2 or 4, and the thresholds of
/// a copy 2, 4 or 8 wide.
const CLASSES: [(i64, Option<(i64, i64)>); 9] = [
    (1, Some((2, 0))),
    (1, Some((2, 1))),
    (1, Some((4, 0))),
    (1, Some((4, 1))),
    (1, Some((4, 2))),
    (1, Some((4, 3))),
    (2, None),
    (4, None),
    (8, None),
];

/// Each loop's iterations and each arm's count of `f`, times the indicator of each of
/// [`CLASSES`] of each invariant innermost loop nested in another; and each loop's iterations,
/// entries and passes 2 wide, times the indicator of `N >= k` and its complement for each
/// of the binary's `thresholds` (a vectoriser's cost-model versions).
pub(super) fn versioned_counts(
    source: &SourceModel,
    f: &SourceFunction,
    thresholds: &[i64],
) -> Vec<Piecewise> {
    let options = CountOptions::default();
    // The loops a compiler copies (and so tests the class of) are the innermost ones.
    let innermost = |i: usize| !source.loops.iter().any(|o| o.parent == Some(i));
    let invariant: Vec<&metron_symbolic::Loop> = (0..source.loops.len())
        .filter(|&i| innermost(i))
        .map(|i| &source.loops[i])
        .filter(|l| l.function == f.name && l.parent.is_some())
        .filter_map(|l| l.scop.as_ref().ok())
        .filter(|l| l.residues.is_empty() && reads_no_counter(source, l))
        .collect();
    if invariant.is_empty() {
        return Vec::new();
    }
    let mut totals = Vec::new();
    let mut copies = Vec::new();
    for i in (0..source.loops.len()).filter(|&i| source.loops[i].function == f.name) {
        totals.extend(crate::loop_context::source_total(source, i, &options).ok());
        copies.extend(entries_with_at_least(source, i, 1, &options).ok());
        for peeled in [0, 1] {
            copies.extend(passes_after_peel(source, i, 2, peeled, &options).ok());
        }
    }
    let mut counts = totals.clone();
    counts.extend(crate::branch::source_arm_counts(source, &f.name, &options));
    // A cost model's versions: the loop's iterations, entries and passes, in the version
    // past the threshold and in the other one (`N < 15`: 1 less the indicator).
    totals.extend(copies);
    let mut out = Vec::new();
    for l in invariant {
        for (k, modulo) in CLASSES {
            if let Ok(indicator) = class_indicator(l, k, modulo, &options) {
                out.extend(counts.iter().map(|c| &indicator * c));
            }
        }
        for &k in thresholds {
            let Ok(indicator) = class_indicator(l, k, None, &options) else {
                continue;
            };
            let other = &Piecewise::constant(1) - &indicator;
            out.extend(totals.iter().map(|c| &indicator * c));
            out.extend(totals.iter().map(|c| &other * c));
        }
    }
    out
}

/// Whether `l`'s bounds name no loop counter (parameters and constants only).
fn reads_no_counter(source: &SourceModel, l: &metron_symbolic::Loop) -> bool {
    let counters: Vec<&String> = source
        .loops
        .iter()
        .filter_map(|o| o.scop.as_ref().ok().map(|s| &s.var))
        .collect();
    let mut names = l.bound_names();
    names.all(|n| !counters.contains(&n))
}
