//! Unrolled and vectorised binary loops (issue 4, step 5: "detect unrolled and vectorised
//! binary loops from the induction-variable stride, and count `ceil(N/k)` plus the remainder
//! loop"; 004 §III.C maps source iterations onto binary loops one to one, which overcounts
//! such loops `k` times).
//!
//! A compiler splits one source loop into copies that each take `k` source iterations per
//! pass: clang -O2 vectorises by 2 and unrolls the vector body by 2 or 4 (`k` = 4 or 8, 16),
//! runs a vector remainder loop (`k` = 4) and a scalar remainder (`k` = 1); gcc -O3 has one
//! vector copy and a scalar one. `k` is read from how far the loop's memory accesses advance
//! per pass and how many elements of each array one pass touches, which does not depend on
//! which register carries the induction variable (clang counts a separate register down, or
//! compares an end pointer). The copies form a cascade: the widest runs `floor(N/k1)` times,
//! each narrower one the iterations the wider left over that it can take whole:
//! `floor(N/k_i) - (k_{i-1}/k_i) floor(N/k_{i-1})`.

use std::collections::{BTreeMap, BTreeSet};

use metron_symbolic::{CountOptions, Piecewise, Rational};

use crate::binary::Function;
use crate::cfg::Cfg;
use crate::source::SourceModel;

mod cascade;
mod entry;
mod guard;
mod induction;
mod ivar;
pub(crate) mod machine;
mod nesting;
mod outer;
mod remainder;
mod trip_class;
mod unswitch;
use cascade::*;
pub use cascade::{passes_after_peel, passes_where_arm, whole_passes, Copy, Role};
pub use entry::{entry_blocks, must_reach};
use guard::*;
use induction::*;
pub use ivar::{Induction, IvarFactor};
pub use nesting::follow_nesting;
pub use outer::within_wide_parent;
pub use remainder::padding_blocks;
use remainder::*;
pub use trip_class::{
    class_indicator, entries_where, entries_where_arm, entries_with_at_least,
    hoisted_entries_with_at_least, jammed_entries, passes_in_entries_with_at_least, pieces,
    PerEntry,
};
pub use unswitch::unswitched_iterations;

/// The copies of every source loop of one function: each binary loop's factor, and per
/// source loop the straight-line passes beside its loop copies.
pub struct SourceCopies {
    /// Source iterations per pass of each binary loop (1 for an ordinary loop).
    pub factor: Vec<i64>,
    /// Source loop -> (block, factor) of its straight-line passes, for source loops with an
    /// unrolled or vectorised copy.
    pub remainders: BTreeMap<usize, Vec<(usize, i64)>>,
    /// Binary loop -> how it is entered; loops not listed are cascade steps.
    pub roles: BTreeMap<usize, Role>,
    /// Binary loop -> its factor as read from its own induction variable; copies not listed
    /// have the factor of the older rules (memory-access advances, relative to a sibling).
    pub read: BTreeMap<usize, IvarFactor>,
    /// Source loop -> how many groups of copies (under different copies of an unrolled-away
    /// outer loop) share its entries, where more than one (`ivar::entry_groups`).
    groups: BTreeMap<usize, i64>,
    /// Binary loop -> source loop.
    mapping: BTreeMap<usize, Option<usize>>,
    /// `copy_counts` per source loop, counted once (every copy asks).
    counted: std::cell::RefCell<BTreeMap<usize, CopyCounts>>,
}

/// Passes per call of each copy, and the source loop's entries per call.
type CopyCounts = Result<(BTreeMap<Copy, Piecewise>, Piecewise), String>;

impl SourceCopies {
    /// Factors of the binary loops of `cfg` (mapped to source loops by `mapping`) and the
    /// straight-line passes; `mira_compat` keeps every factor at 1 (004's one-to-one mapping).
    pub fn find(
        function: &Function,
        cfg: &Cfg,
        source: &SourceModel,
        file: &str,
        mapping: &BTreeMap<usize, Option<usize>>,
        mira_compat: bool,
    ) -> SourceCopies {
        // Source iterations per pass of each binary loop: > 1 for unrolled and vectorised copies.
        let mut factor: Vec<i64> = (0..cfg.loops.len())
            .map(|l| {
                if mira_compat {
                    // Mira maps source iterations onto binary loops one to one.
                    return 1;
                }
                let stride = mapping
                    .get(&l)
                    .copied()
                    .flatten()
                    .and_then(|s| source.loops[s].scop.as_ref().ok().map(|x| x.stride))
                    .unwrap_or(1);
                copy_factor(function, cfg, l, stride)
            })
            .collect();
        // Straight-line passes (vector and scalar epilogues) of unrolled/vectorised source loops.
        let mut remainders: BTreeMap<usize, Vec<(usize, i64)>> = BTreeMap::new();
        let mut roles: BTreeMap<usize, Role> = BTreeMap::new();
        let mut read: BTreeMap<usize, IvarFactor> = BTreeMap::new();
        let mut groups: BTreeMap<usize, i64> = BTreeMap::new();
        for s in mapping
            .values()
            .flatten()
            .copied()
            .collect::<BTreeSet<usize>>()
        {
            let copies: Vec<usize> = (0..cfg.loops.len())
                .filter(|o| mapping.get(o).copied().flatten() == Some(s))
                .collect();
            // Several loop copies: relative to the scalar one, which needs no element size.
            if copies.len() > 1 && !mira_compat {
                if let Some(relative) = relative_factors(function, cfg, &copies) {
                    for (&o, k) in copies.iter().zip(relative) {
                        factor[o] = k;
                    }
                    // The narrowest copy may itself be unrolled (clang's scalar remainder by
                    // 2, behind a one-iteration prologue): scaled by a narrower pass.
                    let unit = narrowest_unrolled(function, cfg, source, file, s, &copies, &factor);
                    for &o in &copies {
                        factor[o] *= unit;
                    }
                }
            }
            // Where a copy's own induction variable can be read, it decides.
            if !mira_compat {
                for (o, f) in ivar::ivar_factors(function, cfg, source, s, &copies) {
                    factor[o] = f.factor;
                    read.insert(o, f);
                }
                let mine: Vec<&IvarFactor> = copies.iter().filter_map(|o| read.get(o)).collect();
                if let Some(m) = ivar::entry_groups(&mine)
                    .or_else(|| nesting::unrolled_instances(cfg, source, mapping, s, &copies))
                {
                    groups.insert(s, m);
                }
            }
            if copies.iter().any(|&o| factor[o] > 1) {
                // Each instance of an unrolled-away loop has its remainders and fallbacks at
                // its own level.
                let instances = match groups.contains_key(&s) {
                    true => by_parent(cfg, &copies),
                    false => vec![copies.clone()],
                };
                let (blocks, remainder_seen) = remainders_of(
                    function,
                    cfg,
                    (source, file, s),
                    &instances,
                    &factor,
                    &mut roles,
                );
                // A factor read from the copy's own induction variable stands.
                if let ([lone], false) = (copies.as_slice(), remainder_seen) {
                    if !read.contains_key(lone) && !lone_copy_plausible(source, s, factor[*lone]) {
                        factor[*lone] = 1;
                        continue;
                    }
                }
                remainders.insert(s, blocks);
            }
        }
        SourceCopies {
            factor,
            remainders,
            roles,
            read,
            groups,
            mapping: mapping.clone(),
            counted: Default::default(),
        }
    }

    /// Whether source loop `s`'s copies sit under different copies of an unrolled-away outer
    /// loop, each group taking a share of its entries (counted by `copy_counts`).
    pub fn grouped(&self, s: usize) -> bool {
        self.groups.contains_key(&s)
    }

    /// How binary loop `l`'s factor was found, for the output: read from its induction
    /// variable, or (fallback) from memory-access advances and its siblings.
    pub fn counted_from(&self, l: usize) -> Option<String> {
        if let Some(f) = self.read.get(&l) {
            return Some(format!("induction variable: {f}"));
        }
        let s = self.mapping.get(&l).copied().flatten()?;
        let copied = self
            .mapping
            .iter()
            .any(|(&o, m)| *m == Some(s) && self.factor[o] > 1);
        copied.then(|| {
            format!(
                "memory-access advances (induction variable not read): {} source iterations per pass",
                self.factor[l]
            )
        })
    }

    /// The copies of source loop `s`: its binary loops and straight-line passes, with their
    /// factors and roles.
    fn parts(&self, s: usize) -> Vec<(Copy, i64, Role)> {
        self.mapping
            .iter()
            .filter(|(_, m)| **m == Some(s))
            .map(|(&o, _)| {
                let role = self.roles.get(&o).copied().unwrap_or(Role::Cascade);
                (Copy::Loop(o), self.factor[o], role)
            })
            .chain(
                self.remainders
                    .get(&s)
                    .into_iter()
                    .flatten()
                    .map(|&(b, k)| (Copy::Block(b), k, Role::Cascade)),
            )
            .collect()
    }

    /// Passes per call of every copy of source loop `s`, and the loop's entries per call: the
    /// cascade over the cascade steps, 0 for copies that run only on overlapping arrays, and
    /// for a fallback that bypasses the vector path below a threshold `T`, the trip counts
    /// `n < T` moved from the cascade to it: `sum over n < T of #[N == n] (fallback(n) -
    /// cascade(n))` (each `#[N == n]` an exact count of the nest).
    pub fn copy_counts(
        &self,
        source: &SourceModel,
        s: usize,
        options: &CountOptions,
    ) -> CopyCounts {
        if let Some(done) = self.counted.borrow().get(&s) {
            return done.clone();
        }
        let counts = self
            .count_copies(source, s, options)
            .map(|(mut out, entries)| {
                // Each group of copies takes its share of the entries.
                if let Some(&m) = self.groups.get(&s) {
                    let share = Rational::new(1.into(), m.into());
                    for p in out.values_mut() {
                        *p = p.scaled(&share);
                    }
                }
                (out, entries)
            });
        self.counted.borrow_mut().insert(s, counts.clone());
        counts
    }

    fn count_copies(&self, source: &SourceModel, s: usize, options: &CountOptions) -> CopyCounts {
        let parts = self.parts(s);
        let cascade: Vec<i64> = parts
            .iter()
            .filter(|(_, _, r)| *r == Role::Cascade)
            .map(|(_, k, _)| *k)
            .collect();
        // More wide copies of one width than the instances the copies were grouped in are
        // versions of the loop on a condition in its body (nest_17 gcc -O3: four copies of 2
        // per pass in two groups): which one an entry takes is not read, and giving each its
        // group's share would be a silent multiple of the truth.
        if let Some(&m) = self.groups.get(&s) {
            let mut widths: BTreeMap<i64, i64> = BTreeMap::new();
            for (c, k, r) in &parts {
                if matches!(c, Copy::Loop(_)) && *r == Role::Cascade && *k > 1 {
                    *widths.entry(*k).or_default() += 1;
                }
            }
            if let Some((k, n)) = widths.iter().find(|(_, n)| **n > m) {
                return Err(format!(
                    "{n} copies of {k} iterations per pass in {m} groups: versions of the loop \
                     on a condition that is not read"
                ));
            }
        }
        let (by_factor, entries) = cascade_totals(source, s, &cascade, options)?;
        let mut out: BTreeMap<Copy, Piecewise> = parts
            .iter()
            .map(|(c, k, r)| {
                let p = match r {
                    Role::Cascade => by_factor.get(k).cloned().unwrap_or_else(Piecewise::zero),
                    _ => Piecewise::zero(),
                };
                (*c, p)
            })
            .collect();
        let Some(threshold) = alternative_threshold(&parts) else {
            return Ok((out, entries));
        };
        let roles: Vec<(i64, Role)> = parts.iter().map(|(_, k, r)| (*k, *r)).collect();
        for n in 1..threshold {
            let routed = routed_passes(&roles, n);
            let cascaded = cascade_passes(&roles, n, |r| r == Role::Cascade);
            if routed == cascaded {
                continue;
            }
            let exactly = &entries_with_at_least(source, s, n, options)?
                - &entries_with_at_least(source, s, n + 1, options)?;
            for ((c, _, _), (r, d)) in parts.iter().zip(routed.iter().zip(&cascaded)) {
                if r != d {
                    let slot = out.entry(*c).or_insert_with(Piecewise::zero);
                    let delta = exactly.scaled(&Rational::from_integer((r - d).into()));
                    *slot = &*slot + &delta;
                }
            }
        }
        Ok((out, entries))
    }

    /// Counts the straight-line passes (their share of the cascade) and the guard blocks
    /// around the copies, per call (times the binary context of inlined loops, `contexts`).
    #[allow(clippy::too_many_arguments)]
    pub fn count_outside_loops(
        &self,
        function: &Function,
        cfg: &Cfg,
        source: &SourceModel,
        file: &str,
        contexts: &[crate::loop_context::LoopContext],
        options: &CountOptions,
        block_counts: &mut [Piecewise],
    ) {
        let (factor, mapping) = (&self.factor, &self.mapping);
        // A straight-line pass runs when the wider copies left enough over: 0 or 1 per entry.
        for (&s, blocks) in &self.remainders {
            let copies: Vec<usize> = (0..cfg.loops.len())
                .filter(|o| mapping.get(o).copied().flatten() == Some(s))
                .collect();
            let factors: Vec<i64> = copies
                .iter()
                .map(|&o| factor[o])
                .chain(blocks.iter().map(|(_, k)| *k))
                .collect();
            let Ok((passes, entries)) = self.copy_counts(source, s, options) else {
                continue;
            };
            let context = copies
                .first()
                .map(|&o| contexts[o].clone())
                .unwrap_or_default();
            for (b, _) in blocks {
                if let Some(p) = passes.get(&Copy::Block(*b)) {
                    block_counts[*b] = context.apply(p);
                }
            }
            // Under an unrolled-away loop each instance's guards run on its share of the
            // entries, as its copies do (`copy_counts`).
            let share = Rational::new(1.into(), self.groups.get(&s).copied().unwrap_or(1).into());
            let in_context = |p: &Piecewise| context.apply(&p.scaled(&share));
            // Blocks before every copy that lead only to copies run on the entries with N >= 1;
            // the guards around the copies on the entries whose trip count routes them there.
            // Under an unrolled-away loop each instance has its own, at its own level.
            let context = GuardContext {
                function,
                cfg,
                source,
                file,
                s,
                options,
            };
            for parts in self.instances(cfg, s) {
                self.count_entry_blocks(cfg, source, s, &parts, options, &in_context, block_counts);
                match guard_counts(&context, &parts, &entries) {
                    Ok(guards) => {
                        for (b, c) in guards {
                            block_counts[b] = in_context(&c);
                        }
                    }
                    Err(_) => {
                        // The `N < k` bypass runs on the entries too short for the narrowest
                        // vector copy.
                        let narrowest = factors.iter().copied().filter(|k| *k > 1).min();
                        let widest = copies.iter().copied().max_by_key(|&o| factor[o]);
                        let (Some(k), Some(w)) = (narrowest, widest) else {
                            continue;
                        };
                        let bypass = bypass_blocks(function, cfg, source, file, s, &copies, w);
                        if let (false, Ok(long)) = (
                            bypass.is_empty(),
                            entries_with_at_least(source, s, k, options),
                        ) {
                            for b in bypass {
                                block_counts[b] = in_context(&(&entries - &long));
                            }
                        }
                    }
                }
            }
        }
    }

    /// The copies of source loop `s`, split by the binary loop they sit in when they are
    /// instances of an unrolled-away loop (`groups`): one list otherwise.
    fn instances(&self, cfg: &Cfg, s: usize) -> Vec<Vec<(Copy, i64, Role)>> {
        let parts = self.parts(s);
        if !self.groups.contains_key(&s) {
            return vec![parts];
        }
        let mut by_level: BTreeMap<Option<usize>, Vec<(Copy, i64, Role)>> = BTreeMap::new();
        for part in parts {
            let level = match part.0 {
                Copy::Loop(l) => cfg.loops[l].parent,
                Copy::Block(b) => cfg.innermost_loop(b),
            };
            by_level.entry(level).or_default().push(part);
        }
        by_level.into_values().collect()
    }
}

impl SourceCopies {
    /// `entry::entry_blocks` of source loop `s`'s copies, counted as its entries with at
    /// least one iteration.
    #[allow(clippy::too_many_arguments)]
    fn count_entry_blocks(
        &self,
        cfg: &Cfg,
        source: &SourceModel,
        s: usize,
        parts: &[(Copy, i64, Role)],
        options: &CountOptions,
        in_context: &dyn Fn(&Piecewise) -> Piecewise,
        block_counts: &mut [Piecewise],
    ) {
        let heads: Vec<usize> = parts
            .iter()
            .map(|(c, _, _)| match c {
                Copy::Loop(l) => cfg.loops[*l].header,
                Copy::Block(b) => *b,
            })
            .collect();
        let Some(level) = parts.iter().find_map(|(c, _, _)| match c {
            Copy::Loop(l) => cfg.loops[*l].parent,
            Copy::Block(_) => None,
        }) else {
            return;
        };
        let blocks = entry_blocks(cfg, level, &heads);
        if blocks.is_empty() {
            return;
        }
        if let Ok(ran) = entries_with_at_least(source, s, 1, options) {
            for b in blocks {
                block_counts[b] = in_context(&ran);
            }
        }
    }
}

/// The straight-line passes of source loop `s`'s copies, instance by instance (`instances`:
/// the copies of each), whether a remainder was seen, and the roles of its fallback copies.
fn remainders_of(
    function: &Function,
    cfg: &Cfg,
    (source, file, s): (&SourceModel, &str, usize),
    instances: &[Vec<usize>],
    factor: &[i64],
    roles: &mut BTreeMap<usize, Role>,
) -> (Vec<(usize, i64)>, bool) {
    let (mut blocks, mut remainder_seen) = (Vec::new(), false);
    for mine in instances {
        let f: Vec<i64> = mine.iter().map(|&o| factor[o]).collect();
        let (b, seen) = remainder_blocks(function, cfg, source, file, s, mine, &f);
        for (o, role) in fallback_roles(function, cfg, mine, factor, &b) {
            roles.insert(o, role);
        }
        blocks.extend(b);
        remainder_seen |= seen;
    }
    (blocks, remainder_seen)
}

/// Binary loops `copies` grouped by the binary loop around them.
fn by_parent(cfg: &Cfg, copies: &[usize]) -> Vec<Vec<usize>> {
    let mut out: BTreeMap<Option<usize>, Vec<usize>> = BTreeMap::new();
    for &o in copies {
        out.entry(cfg.loops[o].parent).or_default().push(o);
    }
    out.into_values().collect()
}

#[cfg(test)]
mod tests {
    use super::trip_class::entries_where;
    use super::*;
    use crate::source::SourceLoop;
    use metron_symbolic::Loop;

    fn source(loops: Vec<(Loop, Option<usize>)>) -> SourceModel {
        SourceModel {
            file: "t.c".into(),
            functions: Vec::new(),
            loops: loops
                .into_iter()
                .enumerate()
                .map(|(k, (scop, parent))| SourceLoop {
                    function: "f".into(),
                    line: k as u32 + 1,
                    end_line: 10,
                    parent,
                    scop: Ok(scop),
                    annotations: Vec::new(),
                    partial: (None, None),
                    derived: None,
                    data_bound: None,
                    tile: None,
                    start_from: None,
                })
                .collect(),
            ..SourceModel::default()
        }
    }

    fn at(p: &Piecewise, n: i64) -> i64 {
        p.evaluate(&metron_symbolic::binding([("n", n)]))
            .unwrap()
            .to_integer()
            .try_into()
            .unwrap()
    }

    // clang -O2's init loop of stream.c: 16 per pass, a vector remainder of 4, a scalar 1.
    #[test]
    fn cascade_of_a_single_loop_takes_whole_passes() {
        let s = source(vec![(Loop::exclusive("j", "0", "n", 1).unwrap(), None)]);
        let options = CountOptions::default();
        let (copies, entries) = cascade_totals(&s, 0, &[16, 4, 1, 4], &options).unwrap();
        for n in [0, 3, 7, 16, 20000, 20013, 20015] {
            let (wide, vector, scalar) = (n / 16, n / 4 % 4, n % 4);
            assert_eq!(at(&copies[&16], n), wide, "n={n}");
            assert_eq!(at(&copies[&4], n), vector, "n={n}");
            assert_eq!(at(&copies[&1], n), scalar, "n={n}");
            assert_eq!(at(&entries, n), 1);
        }
    }

    // triangular.c's inner loop `for (j = i + 1; j <= n + 2; j++)` unrolled by 4 with a
    // remainder: summed over i, against brute force.
    #[test]
    fn cascade_of_a_triangular_nest_matches_brute_force() {
        let s = source(vec![
            (Loop::inclusive("i", "1", "n", 1).unwrap(), None),
            (Loop::inclusive("j", "i + 1", "n + 2", 1).unwrap(), Some(0)),
        ]);
        let options = CountOptions::default();
        let (copies, entries) = cascade_totals(&s, 1, &[4, 2, 1], &options).unwrap();
        let long = entries_with_at_least(&s, 1, 4, &options).unwrap();
        for n in [1, 2, 5, 30, 31, 33] {
            let trips: Vec<i64> = (1..=n).map(|i| (n + 2 - i).max(0)).collect();
            let sum = |f: &dyn Fn(i64) -> i64| trips.iter().map(|&t| f(t)).sum::<i64>();
            assert_eq!(at(&copies[&4], n), sum(&|t| t / 4), "n={n}");
            assert_eq!(at(&copies[&2], n), sum(&|t| t / 2 % 2), "n={n}");
            assert_eq!(at(&copies[&1], n), sum(&|t| t % 2), "n={n}");
            assert_eq!(at(&entries, n), n);
            assert_eq!(at(&long, n), sum(&|t| i64::from(t >= 4)), "n={n}");
            for r in 0..4 {
                let e = entries_where(&s, 1, 4, Some((4, r)), &options).unwrap();
                let brute = sum(&|t| i64::from(t >= 4 && t % 4 == r));
                assert_eq!(at(&e, n), brute, "n={n} r={r}");
            }
        }
    }

    // Trip classes of loops the guards test but whose trip count is not one affine
    // expression: a `min` end (nest_4's `k < MIN(n - 2, j)`, and a bound that crosses over)
    // and a step of 3 counting down, against brute force over the enclosing loop.
    #[test]
    fn trip_classes_of_min_bounded_and_strided_loops_match_brute_force() {
        let options = CountOptions::default();
        let min_end = source(vec![
            (Loop::exclusive("j", "0", "n", 1).unwrap(), None),
            (
                Loop::exclusive("k", "j + 1", "min(n + 3, 2 * j)", 1).unwrap(),
                Some(0),
            ),
        ]);
        let strided = source(vec![
            (Loop::exclusive("j", "0", "n", 1).unwrap(), None),
            (Loop::exclusive("k", "2 * j + 5", "j", -3).unwrap(), Some(0)),
        ]);
        let trip_min = |n: i64, j: i64| (n + 3).min(2 * j) - (j + 1);
        let trip_strided = |_: i64, j: i64| ((2 * j + 5 - j) + 2) / 3;
        type Trip<'a> = &'a dyn Fn(i64, i64) -> i64;
        let cases: [(&SourceModel, Trip); 2] = [(&min_end, &trip_min), (&strided, &trip_strided)];
        for (s, trip) in cases {
            for n in [0, 1, 4, 9, 17] {
                for (k, m) in [(1, 2), (2, 4), (4, 4), (3, 3)] {
                    for r in 0..m {
                        let e = entries_where(s, 1, k, Some((m, r)), &options).unwrap();
                        let brute = (0..n)
                            .map(|j| trip(n, j))
                            .filter(|&t| t >= k && t % m == r)
                            .count() as i64;
                        assert_eq!(at(&e, n), brute, "n={n} k={k} m={m} r={r}");
                    }
                }
            }
        }
    }

    // The bounds the cut cannot tighten by itself, split into pieces: a `max` end counting up
    // (nest_1's `k < MAX(j + 2, i + 2)`), a `min` end counting down, a `max` start (nest_3's
    // `j = MAX(i + 1, 1)`) and a `min` of constants (nest_5's), against brute force.
    #[test]
    fn trip_classes_of_max_bounded_and_two_start_loops_match_brute_force() {
        let options = CountOptions::default();
        let nest = |start: &str, end: &str, step: i64| {
            source(vec![
                (Loop::exclusive("j", "0", "n", 1).unwrap(), None),
                (Loop::exclusive("k", start, end, step).unwrap(), Some(0)),
            ])
        };
        let up = |a: i64, b: i64| (b - a).max(0);
        type Trip = Box<dyn Fn(i64, i64) -> i64>;
        let cases: [(SourceModel, Trip); 4] = [
            (
                nest("0 - 1", "max(j + 2, 7 - j)", 1),
                Box::new(move |_, j| up(-1, (j + 2).max(7 - j))),
            ),
            (
                nest("2 * j", "min(j - 3, 1)", -1),
                Box::new(move |_, j| up((j - 3).min(1), 2 * j)),
            ),
            (
                nest("max(j + 1, 3)", "n + 1", 1),
                Box::new(move |n, j| up((j + 1).max(3), n + 1)),
            ),
            (
                nest("min(0, 2)", "n - j", 1),
                Box::new(move |n, j| up(0, n - j)),
            ),
        ];
        for (s, trip) in &cases {
            for n in [0, 1, 4, 9, 17] {
                for (k, m) in [(1, 1), (2, 4), (4, 4), (3, 3)] {
                    for r in 0..m {
                        let e = entries_where(s, 1, k, Some((m, r)), &options).unwrap();
                        let all = entries_with_at_least(s, 1, k, &options).unwrap();
                        let trips = (0..n).map(|j| trip(n, j)).filter(|&t| t >= k);
                        assert_eq!(at(&all, n), trips.clone().count() as i64, "n={n} k={k}");
                        let brute = trips.filter(|&t| t % m == r).count() as i64;
                        assert_eq!(at(&e, n), brute, "n={n} k={k} m={m} r={r}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_lone_copy_needs_a_constant_multiple_trip_count() {
        let s = source(vec![
            (Loop::exclusive("i", "0", "n", 1).unwrap(), None),
            (Loop::exclusive("j", "jj", "jj + 8", 1).unwrap(), Some(0)),
            (Loop::inclusive("k", "1", "6", 1).unwrap(), Some(0)),
        ]);
        assert!(!lone_copy_plausible(&s, 0, 3));
        assert!(lone_copy_plausible(&s, 1, 2));
        assert!(lone_copy_plausible(&s, 1, 8));
        assert!(!lone_copy_plausible(&s, 1, 3));
        assert!(lone_copy_plausible(&s, 2, 3));
        assert!(!lone_copy_plausible(&s, 2, 4));
    }

    /// Copies of source loop `s` (binary loops 0.., each (factor, role)) and straight-line
    /// passes (blocks 100.., each factor).
    fn versioned(s: usize, loops: &[(i64, Role)], blocks: &[i64]) -> SourceCopies {
        SourceCopies {
            factor: loops.iter().map(|(k, _)| *k).collect(),
            remainders: BTreeMap::from([(
                s,
                blocks
                    .iter()
                    .enumerate()
                    .map(|(b, k)| (100 + b, *k))
                    .collect(),
            )]),
            read: BTreeMap::new(),
            groups: BTreeMap::new(),
            roles: loops
                .iter()
                .enumerate()
                .filter(|(_, (_, r))| *r != Role::Cascade)
                .map(|(l, (_, r))| (l, *r))
                .collect(),
            mapping: (0..loops.len()).map(|l| (l, Some(s))).collect(),
            counted: Default::default(),
        }
    }

    /// clang's scalar code entered with `m` iterations left: a prologue that peels `m mod u`
    /// one at a time, then a loop unrolled by `u`: (prologue passes, unrolled passes).
    fn clang_scalar(m: i64, u: i64) -> (i64, i64) {
        (m % u, m / u)
    }

    /// What clang -O2 runs for trip count `n` of an out-of-line kernel whose arrays do not
    /// overlap: `n < 4` goes to the scalar code; otherwise the vector loop (8 per pass), the
    /// vector epilogue (4, when the loop left 4 or more) and the scalar code with `n mod 4`.
    /// Returns (vector loop, vector epilogue, scalar prologue, scalar unrolled loop).
    fn clang_runs(n: i64, u: i64) -> (i64, i64, i64, i64) {
        if n < 4 {
            let (p, l) = clang_scalar(n, u);
            return (0, 0, p, l);
        }
        let (p, l) = clang_scalar(n % 4, u);
        (n / 8, n / 4 % 2, p, l)
    }

    // clang -O2 scale: the scalar prologue is a loop (1 per pass), the scalar loop unrolled by
    // 4 is as wide as the vector epilogue and never runs on arrays that do not overlap.
    #[test]
    fn a_fallback_as_wide_as_the_narrowest_vector_copy_never_runs() {
        let s = source(vec![(Loop::exclusive("j", "0", "n", 1).unwrap(), None)]);
        let copies = versioned(
            0,
            &[(8, Role::Cascade), (1, Role::Cascade), (4, Role::Never)],
            &[4],
        );
        let (counts, entries) = copies.copy_counts(&s, 0, &CountOptions::default()).unwrap();
        for n in 0..40 {
            let (wide, epilogue, prologue, unrolled) = clang_runs(n, 4);
            assert_eq!(at(&counts[&Copy::Loop(0)], n), wide, "n={n}");
            assert_eq!(at(&counts[&Copy::Block(100)], n), epilogue, "n={n}");
            assert_eq!(at(&counts[&Copy::Loop(1)], n), prologue, "n={n}");
            assert_eq!(at(&counts[&Copy::Loop(2)], n), unrolled, "n={n}");
            assert_eq!(at(&entries, n), 1);
        }
    }

    // clang -O2 triad: the scalar loop is unrolled by 2 behind a one-iteration prologue block;
    // both are cascade steps (2 and 1) after the vector loop (8) and its epilogue (4).
    #[test]
    fn an_unrolled_scalar_remainder_and_its_prologue_are_cascade_steps() {
        let s = source(vec![(Loop::exclusive("j", "0", "n", 1).unwrap(), None)]);
        let copies = versioned(0, &[(8, Role::Cascade), (2, Role::Cascade)], &[4, 1]);
        let (counts, _) = copies.copy_counts(&s, 0, &CountOptions::default()).unwrap();
        for n in 0..40 {
            let (wide, epilogue, prologue, unrolled) = clang_runs(n, 2);
            assert_eq!(at(&counts[&Copy::Loop(0)], n), wide, "n={n}");
            assert_eq!(at(&counts[&Copy::Block(100)], n), epilogue, "n={n}");
            assert_eq!(at(&counts[&Copy::Loop(1)], n), unrolled, "n={n}");
            assert_eq!(at(&counts[&Copy::Block(101)], n), prologue, "n={n}");
        }
    }

    /// What gcc -O3 runs for trip count `n` when its guard sends `n < t` to the scalar
    /// fallback: (vector loop by 2, scalar epilogue, fallback loop).
    fn gcc_runs(n: i64, t: i64) -> (i64, i64, i64) {
        if n < t {
            (0, 0, n.max(0))
        } else {
            (n / 2, n % 2, 0)
        }
    }

    // gcc -O3 copy (`N - 1 <= 2` goes to the fallback: t = 4) and scale (t = 3), in a loop
    // nest too: the inner trip count `i` runs through every small value, each counted exactly.
    #[test]
    fn a_fallback_the_vector_copy_never_reaches_takes_only_short_trip_counts() {
        for t in [3, 4] {
            let alternative = Role::Alternative { threshold: t };
            let loops = [(2, Role::Cascade), (1, alternative)];
            let copies = versioned(0, &loops, &[1]);
            let options = CountOptions::default();
            let flat = source(vec![(Loop::exclusive("j", "0", "n", 1).unwrap(), None)]);
            let (counts, _) = copies.copy_counts(&flat, 0, &options).unwrap();
            for n in 0..30 {
                let (vector, epilogue, fallback) = gcc_runs(n, t);
                assert_eq!(at(&counts[&Copy::Loop(0)], n), vector, "t={t} n={n}");
                assert_eq!(at(&counts[&Copy::Block(100)], n), epilogue, "t={t} n={n}");
                assert_eq!(at(&counts[&Copy::Loop(1)], n), fallback, "t={t} n={n}");
            }
            let nest = source(vec![
                (Loop::exclusive("i", "0", "n", 1).unwrap(), None),
                (Loop::exclusive("j", "0", "i", 1).unwrap(), Some(0)),
            ]);
            let copies = versioned(1, &loops, &[1]);
            let (counts, entries) = copies.copy_counts(&nest, 1, &options).unwrap();
            for n in 0..20 {
                let sum = |f: &dyn Fn((i64, i64, i64)) -> i64| {
                    (0..n).map(|i| f(gcc_runs(i, t))).sum::<i64>()
                };
                assert_eq!(at(&counts[&Copy::Loop(0)], n), sum(&|r| r.0), "n={n}");
                assert_eq!(at(&counts[&Copy::Block(100)], n), sum(&|r| r.1), "n={n}");
                assert_eq!(at(&counts[&Copy::Loop(1)], n), sum(&|r| r.2), "n={n}");
                assert_eq!(at(&entries, n), n);
            }
        }
    }

    // The guard routing per trip count, against the same machine semantics.
    #[test]
    fn routed_passes_follow_the_guards() {
        let clang = [
            (8, Role::Cascade),
            (4, Role::Cascade),
            (1, Role::Cascade),
            (4, Role::Never),
        ];
        let gcc = [
            (2, Role::Cascade),
            (1, Role::Cascade),
            (1, Role::Alternative { threshold: 3 }),
        ];
        for n in 0..40 {
            let (wide, epilogue, prologue, unrolled) = clang_runs(n, 4);
            assert_eq!(
                routed_passes(&clang, n),
                vec![wide, epilogue, prologue, unrolled]
            );
            let (vector, tail, fallback) = gcc_runs(n, 3);
            assert_eq!(routed_passes(&gcc, n), vec![vector, tail, fallback]);
        }
    }

    #[test]
    fn copies_that_do_not_nest_are_an_error() {
        let s = source(vec![(Loop::exclusive("j", "0", "n", 1).unwrap(), None)]);
        let e = cascade_totals(&s, 0, &[6, 4], &CountOptions::default()).unwrap_err();
        assert!(e.contains("do not nest"), "{e}");
    }
}
