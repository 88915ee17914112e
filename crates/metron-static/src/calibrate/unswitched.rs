//! Terms of a loop the compiler unswitched on a test inside it, or whose test it folded into
//! an enclosing loop's bound (`if (j >= m + 2)` in a `k` loop: gcc -O3 stops the `j` loop
//! there): the loop's copies run only where the arm holds. For each arm and each loop on its
//! chain whose counter (and the counters inside it) the arm does not read, the loop's
//! iterations, entries, `k`-wide passes, entries with at least one pass and entries with a
//! remainder (`N mod k != 0`, the scalar epilogue), each counted where the arm holds
//! (004 §III.C.3: the arm's conditions added to the loop's domain).

use metron_symbolic::{CountOptions, Piecewise};

use crate::branch::condition_reads;
use crate::loop_copy::{entries_where_arm, passes_where_arm};
use crate::source::{SourceFunction, SourceModel};

/// Widths of the copies whose passes and remainders are counted.
const WIDTHS: [i64; 3] = [2, 4, 8];

pub(super) fn unswitched_counts(source: &SourceModel, f: &SourceFunction) -> Vec<Piecewise> {
    let options = CountOptions::default();
    let mut out = Vec::new();
    for (at, arm) in crate::branch::arm_conditions(source, &f.name) {
        let chain: Vec<usize> =
            std::iter::successors(Some(at), |&p| source.loops[p].parent).collect();
        for (k, &i) in chain.iter().enumerate() {
            // The arm must hold for whole executions of loop `i`.
            let reads_inside = chain[..=k].iter().any(|&c| {
                source.loops[c]
                    .scop
                    .as_ref()
                    .map_or(true, |l| arm.iter().any(|a| condition_reads(a, &l.var)))
            });
            if reads_inside {
                continue;
            }
            loop_terms(source, i, &arm, &options, &mut out);
        }
    }
    out
}

/// Loop `i`'s iterations, entries, passes and remainder entries where `arm` holds.
pub(super) fn loop_terms(
    source: &SourceModel,
    i: usize,
    arm: &[metron_symbolic::Condition],
    options: &CountOptions,
    out: &mut Vec<Piecewise>,
) {
    out.extend(
        loop_term_list(source, i, arm, options)
            .into_iter()
            .flatten(),
    );
}

/// [`loop_terms`] in a fixed order, with a hole where a term could not be counted (so that
/// the lists of several arms add term by term).
pub(super) fn loop_term_list(
    source: &SourceModel,
    i: usize,
    arm: &[metron_symbolic::Condition],
    options: &CountOptions,
) -> Vec<Option<Piecewise>> {
    let mut out = vec![passes_where_arm(source, i, 1, arm, options).ok()];
    let entries = entries_where_arm(source, i, 1, None, arm, options).ok();
    for w in WIDTHS {
        out.push(passes_where_arm(source, i, w, arm, options).ok());
        // Entries with at least one pass: the `w`-wide copy's preheader (clang's test of
        // `N & -4` against 4 before its 8-wide body, nest 1227).
        out.push(entries_where_arm(source, i, w, None, arm, options).ok());
        // Entries whose trip count leaves a remainder: all entries less the `N mod w == 0`.
        let whole = entries_where_arm(source, i, 1, Some((w, 0)), arm, options).ok();
        out.push(entries.as_ref().zip(whole).map(|(e, z)| e - &z));
    }
    out.push(entries);
    out
}
