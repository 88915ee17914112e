//! Terms of the nest's domain cut by conditions a compiler tests that the source does not
//! write: an alias test's range ([`super::alias`]), the piece of a `min`/`max` bound
//! ([`super::bound_piece`]), and each of these together with an arm of the source's own
//! tests (a versioned loop whose body an `i % 3 == 0` unswitches further). Each is counted
//! as conditions added to the domain (004 §III.C.3) at the loop it is attached to and at
//! each loop around it whose counter the conditions can be stated in: the test hoisted out
//! as far as its operands allow.

use metron_symbolic::{Condition, CountOptions, Piecewise};

use crate::branch::condition_reads;
use crate::source::{SourceFunction, SourceModel};

/// A set of iterations of loop `at` and the loops around it: the union of disjoint cases,
/// each a conjunction of conditions on their counters (counted as the sum of the cases).
#[derive(Debug, Clone)]
pub(super) struct Atom {
    pub at: usize,
    pub cases: Vec<Vec<Condition>>,
}

impl Atom {
    fn reads(&self, var: &str) -> bool {
        self.cases.iter().flatten().any(|c| condition_reads(c, var))
    }
}

/// Each range and piece atom of `f`, alone and with each arm of the tests on its chain of
/// loops, counted at its loop and outward.
pub(super) fn conditioned_counts(source: &SourceModel, f: &SourceFunction) -> Vec<Piecewise> {
    let options = CountOptions::default();
    let mut out = Vec::new();
    let mut atoms = super::alias::range_atoms(source, f);
    // The copies of a loop vectorised behind an alias test run where the test went their
    // way: the loop's passes and remainder classes there, as for an unswitched loop.
    for atom in &atoms {
        let terms = (atom.cases.iter())
            .map(|case| super::unswitched::loop_term_list(source, atom.at, case, &options));
        out.extend(sum_cases(terms.collect()));
    }
    atoms.extend(super::bound_piece::piece_atoms(source, f));
    let arms = crate::branch::arm_conditions(source, &f.name);
    for atom in &atoms {
        count_outward(source, atom, &options, &mut out);
        for (arm_loop, arm) in &arms {
            let shallow = match (*arm_loop, atom.at) {
                (x, y) if x == y || source.is_within(x, y) => y,
                (x, y) if source.is_within(y, x) => x,
                _ => continue,
            };
            let both = Atom {
                at: shallow,
                cases: (atom.cases.iter())
                    .map(|case| case.iter().chain(arm).cloned().collect())
                    .collect(),
            };
            count_outward(source, &both, &options, &mut out);
        }
    }
    out
}

/// `atom`'s conditions counted at its loop and at each loop around it, outward while every
/// counter they read is still in the nest.
fn count_outward(
    source: &SourceModel,
    atom: &Atom,
    options: &CountOptions,
    out: &mut Vec<Piecewise>,
) {
    let chain: Vec<usize> =
        std::iter::successors(Some(atom.at), |&p| source.loops[p].parent).collect();
    for (k, &s) in chain.iter().enumerate() {
        // Counters of the loops inside `s` have no value at `s`'s level.
        let inside = chain[..k]
            .iter()
            .filter_map(|&i| source.loops[i].scop.as_ref().ok().map(|l| &l.var));
        if source.loops[s].scop.is_err() || inside.into_iter().any(|v| atom.reads(v)) {
            return;
        }
        let counts = atom.cases.iter().map(|case| {
            vec![crate::branch::conditioned_count(source, Some(s), case.clone(), options).ok()]
        });
        out.extend(sum_cases(counts.collect()));
    }
}

/// The term-by-term sums of the cases' term lists (all in one order), leaving out each term
/// some case could not count.
fn sum_cases(cases: Vec<Vec<Option<Piecewise>>>) -> Vec<Piecewise> {
    let mut cases = cases.into_iter();
    let Some(first) = cases.next() else {
        return Vec::new();
    };
    let sums = cases.fold(first, |sum, case| {
        let pairs = sum.into_iter().zip(case);
        pairs.map(|(a, b)| Some(&a? + &b?)).collect()
    });
    sums.into_iter().flatten().collect()
}
