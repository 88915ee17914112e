//! Branches (004 §III.C.3): binary blocks joined to the arms of source `if`s and `?:`s, and
//! counted as often as the arm is taken.
//!
//! * An `if` arm is found by lines: a block whose lines all lie in one arm.
//! * A `?:` arm shares its line with other code, so it is found by (line, column): a block
//!   whose DWARF positions all lie in the `?:` and touch one arm's columns only. Arms without
//!   columns of their own are found through the jump that decides the `?:`: gcc gives a
//!   constant arm (`: 100`) the `?:`'s position (the arm opposite to its sibling; both
//!   constants: the -O0 layout, then falls through), clang lowers constant arms to a
//!   `select` (a line-0 fall-through block sets the else value).
//! * The count is the enclosing nest's count with the condition added (affine and modulo
//!   conditions in loop counters and parameters, exactly, through metron-symbolic), the
//!   complement for the else arm (Listing 5's rule, nested arms by inclusion–exclusion), or
//!   `br_prob` times the nest's count for other conditions. Outside any loop the nest is empty
//!   and the count is metron-symbolic's indicator: 1 where the condition holds, 0 elsewhere.
//! * A `?:` in a `for`'s test runs once per header execution (iterations + entries), in its
//!   init once per entry.

use std::collections::{BTreeMap, BTreeSet};

use metron_symbolic::{trip_count, Condition, CountOptions, LoopNest, Piecewise, Rational};

use crate::binary::Function;
use crate::cfg::Cfg;
use crate::loop_context::{lines_of, own_blocks, same_file, source_total, statement_lines_in};
use crate::source::{Arm, LoopPart, Position, SourceModel};

/// What joining blocks to source branches needs from `model_function`.
pub(crate) struct BranchContext<'a> {
    pub function: &'a Function,
    pub cfg: &'a Cfg,
    pub source: &'a SourceModel,
    pub file: &'a str,
    /// Binary loop -> source loop it maps to.
    pub mapping: &'a BTreeMap<usize, Option<usize>>,
    /// Elements per iteration of each binary loop (arms of vectorised loops are not split).
    pub factor: &'a [i64],
    /// Iterations of the caller's binary loop around an inlined loop, per binary loop.
    pub contexts: &'a [crate::loop_context::LoopContext],
}

impl BranchContext<'_> {
    /// Block `b`'s instructions.
    fn code(&self, b: usize) -> &[crate::binary::Instruction] {
        self.cfg.blocks[b].code(self.function)
    }
}

/// One condition on the way from an arm out to its loop: the conjunction (or why there is
/// none), its `br_prob`, and which side the arm is on.
#[derive(Clone)]
struct Guard {
    condition: std::result::Result<Vec<Condition>, String>,
    probability: Option<f64>,
    side: Arm,
    line: u32,
}

/// The probability an arm on data is counted with where none is given (no `br_prob`, no
/// branch profile): even odds. Counting both arms in full is a bound, not an estimate (lcs
/// at gcc -O0 54.6% over, 5.7% at even odds); even odds is off by at most half of an arm.
pub(crate) const EVEN_ODDS: f64 = 0.5;

impl Guard {
    /// The guard's probability: the given one, else [`EVEN_ODDS`] for a condition on data;
    /// `None` for one the model counts.
    fn probability(&self) -> Option<f64> {
        (self.probability).or(self.condition.is_err().then_some(EVEN_ODDS))
    }
}

/// Sets the count of every block that lies in one arm of a branch; returns notes per binary
/// loop for arms that could not be counted.
pub(crate) fn count_branch_arms(
    c: &BranchContext,
    block_counts: &mut [Piecewise],
    options: &CountOptions,
) -> Vec<(usize, String)> {
    let mut notes = Vec::new();
    let conditional_arms = conditional_arms(c);
    let if_arms = if_arms_by_layout(c);
    for (b, count_of_block) in block_counts.iter_mut().enumerate() {
        let l = c.cfg.innermost_loop(b);
        let s = match l {
            Some(l) => match c.mapping.get(&l).copied().flatten() {
                Some(s) if c.factor[l] <= 1 => Some(s),
                Some(s) => {
                    let arms = (&conditional_arms, &if_arms);
                    if let Some(p) = arm_share_in_copy(c, b, Some(s), arms) {
                        *count_of_block = count_of_block.scaled(&p);
                    }
                    continue;
                }
                None => continue,
            },
            None => None,
        };
        let arms = (&conditional_arms, &if_arms);
        if let Some(p) = l.and_then(|_| arm_share_in_copy(c, b, s, arms)) {
            *count_of_block = count_of_block.scaled(&p);
            continue;
        }
        let counted = match conditional_arms.get(&b) {
            Some(&(k, side)) => conditional_count(c.source, s, k, side, options),
            None => if_count(c, b, s, options).or_else(|| {
                let &arm = if_arms.get(&b)?;
                Some(guarded_count(
                    c.source,
                    s,
                    &if_guards(c.source, arm),
                    options,
                ))
            }),
        };
        let count = match counted {
            None => continue,
            Some(Ok(count)) => count,
            Some(Err(why)) => {
                if let Some(l) = l {
                    notes.push((l, why));
                }
                continue;
            }
        };
        *count_of_block = match l {
            Some(l) => c.contexts[l].apply(&count),
            None => count,
        };
    }
    notes
}

/// Blocks known as arms: (index of the `if` or `?:`, arm), per block.
type ArmMap = BTreeMap<usize, (usize, Arm)>;

/// Arms found by columns (`?:`) and by the layout of an `if`'s jump, per block.
type ArmsOf<'a> = (
    &'a BTreeMap<usize, (usize, Arm)>,
    &'a BTreeMap<usize, (usize, Arm)>,
);

/// The share of its copy's count that block `b`, in a loop copy of source loop `s`, runs
/// where all of it is an arm whose guards all have a probability (data at even odds or
/// given, `br_prob`, a profile): counted on the copy's own count, an arm runs as often as its
/// copy does, not as the whole source nest. In a copy unrolled `k`-fold each unrolled
/// iteration has its own copy of the arm, a `?:`'s found by columns as in any copy (the
/// layout map holds no block there); an arm of a scalar remainder that runs only below 8 columns
/// (threshold at gcc -O3) counted `h w / 2` from the nest, 18% over. `None` for an arm on a
/// condition the model counts: those are left to the nest's count, the copy rules and runs.
fn arm_share_in_copy(
    c: &BranchContext,
    b: usize,
    s: Option<usize>,
    (conditionals, ifs): ArmsOf,
) -> Option<Rational> {
    let guards = match conditionals.get(&b) {
        Some(&(k, side)) => conditional_guards(c.source, k, side),
        None => {
            let lines = arm_lines_of_block(c, b, s);
            let arm = innermost_arm(c.source, s, &lines).or_else(|| ifs.get(&b).copied())?;
            if_guards(c.source, arm)
        }
    };
    share_of(&guards)
}

/// The product of the guards' probabilities for the arm's side; `None` when one has none.
fn share_of(guards: &[Guard]) -> Option<Rational> {
    (guards.iter())
        .map(|g| {
            let p = g.probability()?;
            Some(rational(if g.side == Arm::Then { p } else { 1.0 - p }))
        })
        .product()
}

/// The source loop a block's count comes from (`None`: outside loops), and whether arms are
/// counted there at all (not in vectorised copies).
fn block_source_loop(c: &BranchContext, b: usize) -> Option<Option<usize>> {
    match c.cfg.innermost_loop(b) {
        Some(l) => match c.mapping.get(&l).copied().flatten() {
            Some(s) if c.factor[l] <= 1 => Some(Some(s)),
            _ => None,
        },
        None => Some(None),
    }
}

/// Block `b`'s lines without its source loop's own line (the loop control the optimiser
/// duplicates into each arm).
fn arm_lines_of_block(c: &BranchContext, b: usize, s: Option<usize>) -> BTreeSet<u32> {
    let range = s.map(|s| (c.source.loops[s].line, c.source.loops[s].end_line));
    let mut lines = statement_lines_in(c.function, c.cfg, b, c.file, range);
    if let Some(s) = s {
        lines.remove(&c.source.loops[s].line);
    }
    lines
}

/// `if` arms that lines cannot tell: a block that holds code of both arms (gcc sinks the
/// store both arms end with into one of them) is the arm opposite to its sibling, when the
/// jump that decides the `if` (a conditional jump at its condition's line) leads to both
/// and the block has no other way in.
fn if_arms_by_layout(c: &BranchContext) -> BTreeMap<usize, (usize, Arm)> {
    let mut out = BTreeMap::new();
    for (d, block) in c.cfg.blocks.iter().enumerate() {
        let last = &c.function.instructions[block.end - 1];
        if last.flow != iced_x86::FlowControl::ConditionalBranch || block.successors.len() != 2 {
            continue;
        }
        let Some(s) = block_source_loop(c, d) else {
            continue;
        };
        let Some(at) = position_in(last, c.file) else {
            continue;
        };
        let Some(i) = c.source.ifs.iter().position(|f| {
            f.parent_loop == s && f.line <= at.line && at.line <= f.condition_end_line
        }) else {
            continue;
        };
        let f = &c.source.ifs[i];
        let Some((_, end)) = f.else_lines else {
            continue;
        };
        let (s1, s2) = (block.successors[0], block.successors[1]);
        for (known, other) in [(s1, s2), (s2, s1)] {
            let side = match innermost_arm(c.source, s, &arm_lines_of_block(c, known, s)) {
                Some((k, side)) if k == i => side,
                _ => continue,
            };
            let lines = arm_lines_of_block(c, other, s);
            let alone = c.cfg.only_way_in(other, d);
            let inside = lines.first().is_some_and(|&a| a > f.line)
                && lines.last().is_some_and(|&z| z <= end);
            if alone && inside && innermost_arm(c.source, s, &lines).is_none() {
                out.insert(other, (i, side.opposite()));
            }
        }
    }
    out
}

/// The count of block `b` if its lines lie in one arm of an `if` directly in source loop `s`
/// (or outside any loop when `s` is `None`).
fn if_count(
    c: &BranchContext,
    b: usize,
    s: Option<usize>,
    options: &CountOptions,
) -> Option<std::result::Result<Piecewise, String>> {
    // The loop's own control (`j++; j <= n`, the `for` line) is often duplicated into
    // each arm by the optimiser; it does not decide which arm a block is.
    let (i, side) = innermost_arm(c.source, s, &arm_lines_of_block(c, b, s))?;
    Some(guarded_count(
        c.source,
        s,
        &if_guards(c.source, (i, side)),
        options,
    ))
}

/// The deepest `if` arm directly inside source loop `s` (outside loops when `None`) that
/// holds all of `lines`.
pub(crate) fn innermost_arm(
    source: &SourceModel,
    s: Option<usize>,
    lines: &BTreeSet<u32>,
) -> Option<(usize, Arm)> {
    let (&low, &high) = (lines.first()?, lines.last()?);
    let inside = |(a, b): (u32, u32)| a <= low && high <= b;
    // `ifs` are in source order; a loop's ifs lie within the loop's lines.
    let (first, last) = match s {
        Some(s) => (source.loops[s].line, source.loops[s].end_line),
        None => (0, high),
    };
    let from = source.ifs.partition_point(|f| f.line < first);
    source.ifs[from..]
        .iter()
        .take_while(|f| f.line <= last)
        .enumerate()
        .map(|(k, f)| (k + from, f))
        .filter(|(_, f)| f.parent_loop == s)
        .flat_map(|(i, _)| {
            let (then, otherwise) = arm_lines(source, i);
            [
                Some(((i, Arm::Then), then)),
                otherwise.map(|e| ((i, Arm::Else), e)),
            ]
        })
        .flatten()
        .filter(|(_, range)| inside(*range))
        // `else if`: the outer else arm and the inner if's then arm can span the same
        // lines; the inner (later) one is the arm.
        .min_by_key(|((i, _), (a, b))| (b - a, std::cmp::Reverse(*i)))
        .map(|(arm, _)| arm)
}

/// The lines of `if` number `i`'s then and else arms. In `} else if (c) {` the line holds the
/// then arm's closing brace and the inner `if`'s test, which runs on the else side: the else
/// arm starts there and the then arm ends before it.
fn arm_lines(source: &SourceModel, i: usize) -> ((u32, u32), Option<(u32, u32)>) {
    let f = &source.ifs[i];
    let Some((e0, e1)) = f.else_lines else {
        return (f.then_lines, None);
    };
    let start = source.ifs[i + 1..]
        .iter()
        .take_while(|g| g.line <= e1)
        .find(|g| g.parent_if == Some((i, Arm::Else)))
        .map_or(e0, |g| g.line.min(e0));
    let (t0, t1) = f.then_lines;
    let then = if start <= t1 && start > t0 {
        (t0, start - 1)
    } else {
        (t0, t1)
    };
    (then, Some((start, e1)))
}

/// The guards from an `if` arm out through its enclosing `if` arms.
fn if_guards(source: &SourceModel, arm: (usize, Arm)) -> Vec<Guard> {
    let mut out = Vec::new();
    let mut at = Some(arm);
    while let Some((i, side)) = at {
        let f = &source.ifs[i];
        out.push(Guard {
            condition: f.condition.clone(),
            probability: f.probability,
            side,
            line: f.line,
        });
        at = f.parent_if;
    }
    out
}

/// Executions per call of an `if` arm inside source loop `s`: the nest's count with the
/// arm's guards added (004 §III.C.3).
pub(crate) fn arm_count(
    source: &SourceModel,
    s: usize,
    arm: (usize, Arm),
    options: &CountOptions,
) -> std::result::Result<Piecewise, String> {
    guarded_count(source, Some(s), &if_guards(source, arm), options)
}

/// Executions per call of a block guarded by `guards` in source loop `s` (none: straight
/// code of the function): with the then-arm conditions `P` and the else arms' conditions
/// `N_k`, inclusion–exclusion over the else arms, `sum over S of N: (-1)^|S| count(P and S)`
/// (004 §III.C.3's complement rule), times the `br_prob` of arms whose condition is not
/// affine. With no loop the nest is empty and each count is an indicator.
fn guarded_count(
    source: &SourceModel,
    s: Option<usize>,
    guards: &[Guard],
    options: &CountOptions,
) -> std::result::Result<Piecewise, String> {
    let mut positive: Vec<Condition> = Vec::new();
    let mut negative: Vec<Vec<Condition>> = Vec::new();
    let mut probability = Rational::from_integer(1.into());
    for g in guards {
        // An annotated probability is the user's word and wins over the condition (a
        // parameter such as `argc` the model could count, but nobody wants to bind); a
        // condition on data without one is even odds (004 §III.C.4 asks for a `br_prob`).
        match (g.probability(), &g.condition) {
            (Some(p), _) => {
                probability *= rational(if g.side == Arm::Then { p } else { 1.0 - p });
            }
            (None, Ok(c)) if g.side == Arm::Then => positive.extend(c.iter().cloned()),
            (None, Ok(c)) => negative.push(c.clone()),
            (None, Err(_)) => {}
        }
    }
    if negative.len() > 6 {
        return Err("too many nested else arms".into());
    }
    let loops = match s {
        Some(i) => source.nest_of(i)?,
        None => Vec::new(),
    };
    let mut total = Piecewise::zero();
    for subset in 0u32..(1 << negative.len()) {
        let mut nest = LoopNest::new(loops.clone());
        nest.conditions = positive.clone();
        for (k, n) in negative.iter().enumerate() {
            if subset & (1 << k) != 0 {
                nest.conditions.extend(n.iter().cloned());
            }
        }
        // Cuts of tile loops the nest counts through a loop inside their tiles.
        nest.conditions = source.conditions_in(&loops, nest.conditions);
        let count = trip_count(&nest, options).map_err(|e| e.to_string())?;
        total = if subset.count_ones() % 2 == 0 {
            &total + &count
        } else {
            &total - &count
        };
    }
    Ok(total.scaled(&probability))
}

/// Executions per call of a block in source loop `s` that runs where `conditions` hold.
pub(crate) fn conditioned_count(
    source: &SourceModel,
    s: Option<usize>,
    conditions: Vec<Condition>,
    options: &CountOptions,
) -> std::result::Result<Piecewise, String> {
    let guard = Guard {
        condition: Ok(conditions),
        probability: None,
        side: Arm::Then,
        line: 0,
    };
    guarded_count(source, s, &[guard], options)
}

/// A probability as an exact rational with 6 decimal digits.
fn rational(p: f64) -> Rational {
    let scaled = (p * 1e6).round() as i64;
    Rational::new(scaled.into(), 1_000_000.into())
}

/// Executions per call of each arm of every `if` and `?:` of `function` whose condition the
/// nest counts: the counts a block of an arm runs, whatever block the binary puts it in (the
/// runs' basis for blocks whose arm positions cannot tell, gcc's `?:` arms at the colon).
pub(crate) fn source_arm_counts(
    source: &SourceModel,
    function: &str,
    options: &CountOptions,
) -> Vec<Piecewise> {
    let mut out = Vec::new();
    for (k, f) in source.ifs.iter().enumerate() {
        if f.function != function || f.condition.is_err() {
            continue;
        }
        for side in [Arm::Then, Arm::Else] {
            let guards = if_guards(source, (k, side));
            out.extend(guarded_count(source, f.parent_loop, &guards, options).ok());
            hoisted_counts(source, f.parent_loop, &guards, options, &mut out);
        }
    }
    for (k, q) in source.conditionals.iter().enumerate() {
        if q.function != function || q.condition.is_err() || q.part == LoopPart::Condition {
            continue;
        }
        let s = match q.part {
            LoopPart::Init => q.parent_loop.and_then(|p| source.loops[p].parent),
            _ => q.parent_loop,
        };
        for side in [Arm::Then, Arm::Else] {
            out.extend(conditional_count(source, s, k, side, options).and_then(Result::ok));
            if q.part != LoopPart::Init {
                let guards = conditional_guards(source, k, side);
                hoisted_counts(source, s, &guards, options, &mut out);
            }
        }
    }
    out
}

/// Executions per call of each path through two tests of one loop body (or of the
/// function's straight code): both arms' guards at once. Compilers thread the jump after one
/// test into the next (gcc duplicates the code after an `if` into each arm), so a block runs
/// where two conditions hold a given way, which neither arm's count alone gives.
pub(crate) fn path_counts(
    source: &SourceModel,
    function: &str,
    options: &CountOptions,
) -> Vec<Piecewise> {
    let arms = counted_arms(source, function);
    let mut out = Vec::new();
    for (a, (loop_a, first)) in arms.iter().enumerate() {
        for (loop_b, second) in &arms[a + 1..] {
            if loop_a != loop_b || same_test(first, second) {
                continue;
            }
            let both: Vec<Guard> = first.iter().chain(second).cloned().collect();
            out.extend(guarded_count(source, *loop_a, &both, options).ok());
        }
    }
    out
}

/// Every arm of the `if`s and `?:`s of `function` whose conditions the nest counts: the loop
/// it runs in and its guards.
fn counted_arms(source: &SourceModel, function: &str) -> Vec<(Option<usize>, Vec<Guard>)> {
    let mut out = Vec::new();
    for (k, f) in source.ifs.iter().enumerate() {
        if f.function == function && f.condition.is_ok() && f.probability.is_none() {
            for side in [Arm::Then, Arm::Else] {
                out.push((f.parent_loop, if_guards(source, (k, side))));
            }
        }
    }
    for (k, q) in source.conditionals.iter().enumerate() {
        let counted = q.condition.is_ok() && q.probability.is_none();
        if q.function != function || !counted || q.part != LoopPart::Body {
            continue;
        }
        for side in [Arm::Then, Arm::Else] {
            out.push((q.parent_loop, conditional_guards(source, k, side)));
        }
    }
    out
}

/// Each arm of `function`'s tests inside a loop whose conditions the nest counts, as one
/// conjunction with the loop it runs in: the conditions on the way out to it, an else arm's
/// single condition negated (an else arm of a conjunction, a disjunction, is left out).
pub(crate) fn arm_conditions(source: &SourceModel, function: &str) -> Vec<(usize, Vec<Condition>)> {
    let mut out = Vec::new();
    for (at, guards) in counted_arms(source, function) {
        let conditions: Option<Vec<Vec<Condition>>> = guards
            .iter()
            .map(|g| match (g.condition.as_ref(), g.side) {
                (Ok(c), Arm::Then) => Some(c.clone()),
                (Ok(c), Arm::Else) if c.len() == 1 => Some(vec![c[0].negated()]),
                _ => None,
            })
            .collect();
        if let (Some(at), Some(c)) = (at, conditions) {
            out.push((at, c.concat()));
        }
    }
    out
}

/// Whether two arms' innermost guards are the two sides of one test (their conjunction is
/// empty).
fn same_test(a: &[Guard], b: &[Guard]) -> bool {
    match (a.first(), b.first()) {
        (Some(x), Some(y)) => x.line == y.line && x.condition == y.condition,
        _ => false,
    }
}

/// Executions per call of arm `side` of `?:` `k` for a block in source loop `s` (`None`:
/// outside loops); `None` when the block is not where the `?:` runs.
fn conditional_count(
    source: &SourceModel,
    s: Option<usize>,
    k: usize,
    side: Arm,
    options: &CountOptions,
) -> Option<std::result::Result<Piecewise, String>> {
    let q = &source.conditionals[k];
    let outer = q.parent_loop.and_then(|p| source.loops[p].parent);
    let expected = match q.part {
        LoopPart::Init => outer,
        _ => q.parent_loop,
    };
    if expected != s {
        return None;
    }
    let guards = conditional_guards(source, k, side);
    let result = match (q.part, q.parent_loop) {
        (LoopPart::Condition, Some(p)) => {
            // Header executions: iterations + entries. The entries are counted in the
            // enclosing nest, where the loop's own counter has no value.
            let var = source.loops[p].scop.as_ref().map(|l| l.var.clone());
            let reads_counter = var.is_ok_and(|v| {
                guards
                    .iter()
                    .filter_map(|g| g.condition.as_ref().ok())
                    .flatten()
                    .any(|c| condition_reads(c, &v))
            });
            if reads_counter {
                Err(format!(
                    "line {}: a `?:` in a loop test that reads the loop's own counter",
                    q.line
                ))
            } else {
                guarded_count(source, Some(p), &guards, options)
                    .and_then(|body| Ok(&body + &guarded_count(source, outer, &guards, options)?))
            }
        }
        _ => guarded_count(source, expected, &guards, options),
    };
    Some(result)
}

/// The guards of arm `side` of `?:` `k`: its own condition, those of the `?:` and `if` arms
/// around it.
fn conditional_guards(source: &SourceModel, k: usize, side: Arm) -> Vec<Guard> {
    let mut guards = Vec::new();
    let mut at = Some((k, side));
    let mut parent_if = None;
    while let Some((i, side)) = at {
        let c = &source.conditionals[i];
        guards.push(Guard {
            condition: c.condition.clone(),
            probability: c.probability,
            side,
            line: c.line,
        });
        parent_if = c.parent_if;
        at = c.parent_conditional;
    }
    if let Some(arm) = parent_if {
        guards.extend(if_guards(source, arm));
    }
    guards
}

/// An arm's count at each loop out from `s` whose counter no guard reads: gcc's unswitching
/// hoists such a test out of the loop (`if (i % 3 == 0)` in a loop over `j`), and each
/// version of the loop is entered as often as the arm holds in the loops around it.
fn hoisted_counts(
    source: &SourceModel,
    s: Option<usize>,
    guards: &[Guard],
    options: &CountOptions,
    out: &mut Vec<Piecewise>,
) {
    let mut at = s;
    while let Some(p) = at {
        let Ok(l) = &source.loops[p].scop else {
            return;
        };
        let mut conditions = guards.iter().filter_map(|g| g.condition.as_ref().ok());
        if conditions.any(|c| c.iter().any(|c| condition_reads(c, &l.var))) {
            return;
        }
        at = source.loops[p].parent;
        out.extend(guarded_count(source, at, guards, options).ok());
    }
}

pub(crate) fn condition_reads(c: &Condition, var: &str) -> bool {
    match c {
        Condition::Affine { lhs, rhs, .. } => {
            lhs.terms.contains_key(var) || rhs.terms.contains_key(var)
        }
        Condition::Modulo { expr, .. } => expr.terms.contains_key(var),
    }
}

/// An instruction's position in `file`, from the innermost inline frame there (a helper's code
/// from a header sits at its call).
fn position_in<'a>(
    ins: &'a crate::binary::Instruction,
    file: &str,
) -> Option<&'a crate::binary::SourceLine> {
    // Line 0 in the innermost frame is code of no line, not code at the inlined call.
    ins.frames.first()?.position.as_ref()?;
    ins.frames
        .iter()
        .filter_map(|f| f.position.as_ref())
        .find(|p| same_file(&p.file, file))
}

/// Positions (line, column) of a block's instructions, each from the innermost inline frame
/// in the modelled file. Frame code says nothing about the arm it was scheduled into
/// (`Instruction::is_frame`: calls.c's `return i < argc ? atoi(argv[i]) : fallback` at gcc
/// -O2 has `sub rsp` on the `{` line in the then arm and `ret` in both), so it is left out.
fn positions(c: &BranchContext, b: usize) -> Vec<Position> {
    let mut out = Vec::new();
    for ins in c.code(b) {
        if ins.is_frame() {
            continue;
        }
        let Some(p) = position_in(ins, c.file) else {
            continue;
        };
        // Column 0 (no column) lies before every range: such a block is not an arm.
        out.push((p.line, p.column));
    }
    out
}

fn within(p: Position, (a, b): (Position, Position)) -> bool {
    a <= p && p <= b
}

/// Blocks that lie in one arm of a `?:`: (index in `conditionals`, arm), the innermost `?:`
/// when they nest.
fn conditional_arms(c: &BranchContext) -> BTreeMap<usize, (usize, Arm)> {
    let mut out = BTreeMap::new();
    if c.source.conditionals.is_empty() {
        return out;
    }
    let all: BTreeSet<usize> = (0..c.cfg.blocks.len()).collect();
    let lines = lines_of(c.function, c.cfg, &all, c.file);
    let (Some(&low), Some(&high)) = (lines.first(), lines.last()) else {
        return out;
    };
    let candidates: Vec<usize> = (0..c.source.conditionals.len())
        .filter(|&k| {
            let q = &c.source.conditionals[k];
            low <= q.whole.0 .0 && q.whole.1 .0 <= high
        })
        .collect();
    if candidates.is_empty() {
        return out;
    }
    let block_positions: Vec<Vec<Position>> =
        (0..c.cfg.blocks.len()).map(|b| positions(c, b)).collect();
    let size = |k: usize| {
        let (a, b) = c.source.conditionals[k].whole;
        (b.0 - a.0, b.1.wrapping_sub(a.1))
    };
    let classify = |b: usize, k: usize| -> Option<Arm> {
        let q = &c.source.conditionals[k];
        let p = &block_positions[b];
        if p.is_empty() || !p.iter().all(|x| within(*x, q.whole)) {
            return None;
        }
        let then = p.iter().any(|x| within(*x, q.then_range));
        let otherwise = p.iter().any(|x| within(*x, q.else_range));
        match (then, otherwise) {
            (true, false) => Some(Arm::Then),
            (false, true) => Some(Arm::Else),
            _ => None,
        }
    };
    for b in 0..c.cfg.blocks.len() {
        let arm = candidates
            .iter()
            .filter_map(|&k| classify(b, k).map(|a| (k, a)))
            .min_by_key(|(k, _)| size(*k));
        if let Some(arm) = arm {
            out.insert(b, arm);
        }
    }
    // An arm without a column of its own (gcc: a constant arm carries the `?:`'s position):
    // the other successor of the jump that decides the `?:`, when its sibling is an arm.
    // Jumps in dominator order, so that a `?:` nested in another's arm (a macro's, at the
    // same position) meets its jump after the enclosing arm is known.
    let mut deciders = BTreeMap::new();
    for d in c.cfg.reverse_postorder() {
        // `?:`s are decided in source order (a macro's: its conditions' `?:`s, itself, then
        // its arms'), so the jump after one that decided `?:` k decides one after k; past the
        // last, the first again (the next iteration, or an unrolled copy).
        let previous = std::iter::successors(c.cfg.idom[d], |&a| c.cfg.idom[a])
            .find_map(|a| deciders.get(&a).copied());
        let from = previous.map_or(0, |p| candidates.partition_point(|&k| k <= p));
        let (earlier, later) = candidates.split_at(from);
        for &k in later.iter().chain(earlier) {
            layout_arms(c, (k, d), &block_positions, &mut out);
            if let Some(k) = decided_by(c, d, &out) {
                deciders.insert(d, k);
                break;
            }
        }
    }
    joins_inside_arms(c, &block_positions, &mut out);
    out
}

/// The `?:` whose arm the jump ending block `d` leads to, from outside that arm.
fn decided_by(c: &BranchContext, d: usize, out: &ArmMap) -> Option<usize> {
    let inside = out.get(&d).map(|&(k, _)| k);
    (c.cfg.blocks[d].successors.iter())
        .filter_map(|s| out.get(s).map(|&(k, _)| k))
        .find(|&k| inside != Some(k))
}

/// What `layout_arms` knows of one jump: the `?:` it may decide, the block ending in it and
/// the positions of every block.
struct Decision<'a> {
    k: usize,
    d: usize,
    block_positions: &'a [Vec<Position>],
    /// A macro's `?:` (`SourceConditional::from_macro`): its arms are told apart by layout
    /// alone, as constant arms are.
    from_macro: bool,
}

impl Decision<'_> {
    fn at_the_conditional(&self, c: &BranchContext, x: Position) -> bool {
        let q = &c.source.conditionals[self.k];
        within(x, q.whole)
            && (self.from_macro || (!within(x, q.then_range) && !within(x, q.else_range)))
    }

    /// A block only this jump reaches, with code at the `?:`'s position and nowhere else.
    fn bare(&self, c: &BranchContext, out: &ArmMap, b: usize) -> bool {
        let p = &self.block_positions[b];
        !out.contains_key(&b)
            && !p.is_empty()
            && c.cfg.only_way_in(b, self.d)
            && p.iter().all(|&x| self.at_the_conditional(c, x))
    }
}

/// The arms of `?:` number `k` that columns cannot tell (constant arms at the `?:`'s
/// position, arms of a macro's `?:`, LLVM's `select` lowering), told apart by the jump that
/// decides the `?:` (ending block `d`) and the layout of its successors.
fn layout_arms(
    c: &BranchContext,
    (k, d): (usize, usize),
    block_positions: &[Vec<Position>],
    out: &mut ArmMap,
) {
    let q = &c.source.conditionals[k];
    let at = Decision {
        k,
        d,
        block_positions,
        from_macro: q.from_macro(),
    };
    let block = &c.cfg.blocks[d];
    let last = &c.function.instructions[block.end - 1];
    if last.flow != iced_x86::FlowControl::ConditionalBranch || block.successors.len() != 2 {
        return;
    }
    let decides = (block_positions[d].last()).is_some_and(|&x| at.at_the_conditional(c, x));
    if !decides || !may_decide(c, k, d, out) {
        return;
    }
    let (s1, s2) = (block.successors[0], block.successors[1]);
    let next = last.address + u64::from(last.length);
    select_lowering(c, &at, (s1, s2), next, out);
    if at.bare(c, out, s1) && at.bare(c, out, s2) {
        both_bare_arms(c, &at, (s1, s2), next, out);
        return;
    }
    constant_arm_beside_the_rest(c, &at, (s1, s2), out);
    arm_beside_the_join(c, &at, (s1, s2), out);
    for (known, other) in [(s1, s2), (s2, s1)] {
        let Some(&(kk, side)) = out.get(&known) else {
            continue;
        };
        if kk == k && at.bare(c, out, other) {
            out.insert(other, (k, side.opposite()));
        }
    }
}

/// LLVM's lowering of a `select` (clang -O0, `i > 0 ? -1.0 : 0.0`): the then value is set
/// before the jump, which goes straight to the join when the condition holds; the
/// fall-through block without any line (line 0), at `next`, sets the else value.
fn select_lowering(
    c: &BranchContext,
    at: &Decision,
    (s1, s2): (usize, usize),
    next: u64,
    out: &mut ArmMap,
) {
    for (x, join) in [(s1, s2), (s2, s1)] {
        let side = &c.cfg.blocks[x];
        if at.block_positions[x].is_empty()
            && !out.contains_key(&x)
            && side.start == next
            && side.predecessors == [at.d]
            && side.successors == [join]
        {
            out.insert(x, (at.k, Arm::Else));
        }
    }
}

/// Both arms bare (gcc's constants at the `?:`'s position, `i > 0 ? -1.0 : 0.0`, told apart
/// only by DWARF discriminators; a macro's arms): the then arm falls through (at `next`), as
/// at -O0, unless what each block computes says otherwise.
fn both_bare_arms(
    c: &BranchContext,
    at: &Decision,
    (s1, s2): (usize, usize),
    next: u64,
    out: &mut ArmMap,
) {
    let (then, otherwise) = if c.cfg.blocks[s1].start == next {
        (s1, s2)
    } else {
        (s2, s1)
    };
    if c.cfg.blocks[then].start != next {
        return;
    }
    let q = &c.source.conditionals[at.k];
    let (then, otherwise) = match q.arm_values.as_ref().filter(|_| at.from_macro) {
        Some((t, e)) if crate::arm_value::swapped((t, e), (c.code(then), c.code(otherwise))) => {
            (otherwise, then)
        }
        _ => (then, otherwise),
    };
    out.insert(then, (at.k, Arm::Then));
    out.insert(otherwise, (at.k, Arm::Else));
}

/// Whether block `d` may hold the jump that decides `?:` number `k`: not when `d` lies in an
/// arm of `k` or joins them (it runs after the decision). A macro's `?:`s all carry the
/// macro's position (`MIN(MIN(a, b), c)` at -O0: the inner `?:` in the outer's condition
/// joins at the outer's compare), so for them `d` must lie in the arm that encloses `k`, or
/// in none when `k` is outermost.
fn may_decide(c: &BranchContext, k: usize, d: usize, out: &ArmMap) -> bool {
    let q = &c.source.conditionals[k];
    let arm = out.get(&d).copied();
    let of_k = |b: &usize| out.get(b).is_some_and(|&(kk, _)| kk == k);
    if of_k(&d) || c.cfg.blocks[d].predecessors.iter().any(of_k) {
        return false;
    }
    !q.from_macro() || arm == q.parent_conditional
}

/// A macro's `?:` nested in an arm of another (`MIN(MIN(a, b), c)`'s then arm) joins inside
/// that arm: a block at the macro's position that only the inner `?:`'s arms lead to lies in
/// the enclosing arm.
fn joins_inside_arms(c: &BranchContext, block_positions: &[Vec<Position>], out: &mut ArmMap) {
    for (b, block) in c.cfg.blocks.iter().enumerate() {
        if out.contains_key(&b) || block.predecessors.is_empty() {
            continue;
        }
        let parents: BTreeSet<Option<(usize, Arm)>> = (block.predecessors.iter())
            .map(|p| {
                out.get(p)
                    .and_then(|&(k, _)| c.source.conditionals[k].parent_conditional)
            })
            .collect();
        let [Some((k, side))] = parents.into_iter().collect::<Vec<_>>()[..] else {
            continue;
        };
        let q = &c.source.conditionals[k];
        let p = &block_positions[b];
        if q.from_macro() && !p.is_empty() && p.iter().all(|&x| within(x, q.whole)) {
            out.insert(b, (k, side));
        }
    }
}

/// An arm whose value is already in a register has no code (`MIN(MIN(a, b), sub)` at clang
/// -O2: when `sub` is the smaller, the jump goes straight to the store after the `?:`). The
/// jump that decides `?:` number `k` (block `d`) then leads to the join, which other blocks
/// reach too, and to a bare block only it reaches: the arm that is not the variable.
fn arm_beside_the_join(
    c: &BranchContext,
    at: &Decision,
    (s1, s2): (usize, usize),
    out: &mut ArmMap,
) {
    let Some(empty) = c.source.conditionals[at.k].variable_arm else {
        return;
    };
    for (arm, join) in [(s1, s2), (s2, s1)] {
        // The join holds code after the `?:`: a jump to a block still inside it (the
        // compare of a `?:` whose condition this one is) decides another `?:`.
        let after = (at.block_positions[join].iter()).any(|&x| !at.at_the_conditional(c, x));
        if at.bare(c, out, arm)
            && after
            && !out.contains_key(&join)
            && !c.cfg.only_way_in(join, at.d)
            && c.cfg.innermost_loop(arm) == c.cfg.innermost_loop(at.d)
        {
            out.insert(arm, (at.k, empty.opposite()));
            return;
        }
    }
}

/// A literal arm beside an arm without code (`v = v < 0.0f ? 0.0f : v;` at gcc -O2): the jump
/// that decides `?:` number `k` (block `d`) leads to the literal, a bare block at the `?:`'s
/// position, and to the code after the `?:` that only the other side runs (gcc threads the
/// join: the literal's block jumps past it). A block whose only way in is `d`'s jump runs
/// exactly when its side is taken, whatever code it holds.
fn constant_arm_beside_the_rest(
    c: &BranchContext,
    at: &Decision,
    (s1, s2): (usize, usize),
    out: &mut ArmMap,
) {
    let Some(side) = c.source.conditionals[at.k].constant_arm else {
        return;
    };
    for (literal, rest) in [(s1, s2), (s2, s1)] {
        let alone = |b: usize| {
            !out.contains_key(&b)
                && c.cfg.only_way_in(b, at.d)
                && c.cfg.innermost_loop(b) == c.cfg.innermost_loop(at.d)
        };
        // The literal's block sets a value and calls nothing (gcc -O2 puts a `sqrt` error
        // path's call at the `?:` that reads its result), and the rest is code of the file.
        let calls = (c.code(literal).iter()).any(|i| i.flow == iced_x86::FlowControl::Call);
        if at.bare(c, out, literal)
            && !calls
            && !at.bare(c, out, rest)
            && !at.block_positions[rest].is_empty()
            && alone(rest)
        {
            out.insert(literal, (at.k, side));
            out.insert(rest, (at.k, side.opposite()));
            return;
        }
    }
}

/// Loop splitting (gcc -O3 `-fsplit-loops`): a source loop with an affine `if` becomes one
/// binary loop per side of the condition. A copy holding none of the then arm's code runs the
/// iterations where the condition fails, `total - count(then)` (004 §III.C.3's complement
/// rule). `None` when `l` is not such a copy.
pub(crate) fn split_iterations(
    function: &Function,
    cfg: &Cfg,
    source: &SourceModel,
    file: &str,
    s: usize,
    l: usize,
    siblings: &[usize],
) -> Option<Piecewise> {
    let then_arm = |o: usize| {
        own_blocks(cfg, o).into_iter().find_map(|b| {
            let mut lines = lines_of(function, cfg, &BTreeSet::from([b]), file);
            lines.remove(&source.loops[s].line);
            innermost_arm(source, Some(s), &lines)
                .filter(|(i, arm)| *arm == Arm::Then && source.ifs[*i].condition.is_ok())
        })
    };
    if then_arm(l).is_some() {
        return None;
    }
    let arm = siblings.iter().find_map(|&o| then_arm(o))?;
    let options = CountOptions::default();
    let total = source_total(source, s, &options).ok()?;
    let taken = arm_count(source, s, arm, &options).ok()?;
    Some(&total - &taken)
}

/// Blocks of a top-tested loop `l` that run once per test, `iterations + entries` times: the
/// header when it holds the exit test, or (a `?:` in the test, clang -O0's
/// `j < (i < m ? i : m)`) every block on the paths from the header to the exit test, when
/// that test dominates the latches, is not itself a latch, and carries the `for` line.
pub(crate) fn test_blocks(
    function: &Function,
    cfg: &Cfg,
    file: &str,
    l: usize,
    for_line: Option<u32>,
) -> BTreeSet<usize> {
    let natural = &cfg.loops[l];
    let exiting = natural.exiting(cfg);
    let bottom_tested = |e: usize| natural.latches.iter().all(|t| *t == e);
    if exiting.contains(&natural.header) {
        return if bottom_tested(natural.header) {
            BTreeSet::new()
        } else {
            BTreeSet::from([natural.header])
        };
    }
    let Some(for_line) = for_line else {
        return BTreeSet::new();
    };
    let test = exiting.iter().copied().find(|&e| {
        !natural.latches.contains(&e)
            && natural.latches.iter().all(|&t| cfg.dominates(e, t))
            && lines_of(function, cfg, &BTreeSet::from([e]), file).contains(&for_line)
    });
    let Some(test) = test else {
        return BTreeSet::new();
    };
    // Forward from the header without passing the test; keep the blocks that reach it.
    let mut reached = BTreeSet::from([natural.header]);
    let mut work = vec![natural.header];
    while let Some(b) = work.pop() {
        if b == test {
            continue;
        }
        for &s in &cfg.blocks[b].successors {
            if natural.blocks.contains(&s) && s != natural.header && reached.insert(s) {
                work.push(s);
            }
        }
    }
    let mut before = BTreeSet::from([test]);
    let mut work = vec![test];
    while let Some(b) = work.pop() {
        for &p in &cfg.blocks[b].predecessors {
            if reached.contains(&p) && b != natural.header && before.insert(p) {
                work.push(p);
            }
        }
    }
    // Only the test's own code: a rotated loop whose exit test follows the body (gcc -O2's
    // `j` loop around an inner loop) runs its body `iterations` times.
    let only_test = before.iter().all(|&b| {
        cfg.innermost_loop(b) == Some(l)
            && lines_of(function, cfg, &BTreeSet::from([b]), file)
                .iter()
                .all(|x| *x == for_line)
    });
    if only_test {
        before
    } else {
        BTreeSet::new()
    }
}
