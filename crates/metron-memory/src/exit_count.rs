//! Trip counts scalar evolution leaves uncomputed (003 §4.1.2) but the exit test states
//! plainly: a loop whose only exit, tested every iteration (it dominates the latch), is `iv PRED bound` (PRED one
//! of `<`, `<=`, `>`, `>=`, `!=`, or a constant), with `iv` an add recurrence
//! `{start,+,c}` of this loop (c a constant, either sign) and `bound` invariant in it. The usual cause is a bound that is a
//! `?:` or an inlined `imin(w - 1, x + r)` recomputed in the header: LLVM leaves the join's
//! phi unknown, metron reads it as a max/min (`condition::conditional_extremes`).

use std::collections::BTreeMap;

use metron_symbolic::{AffineExpr, MaxOfMins};

use crate::ir::{split_top, Function, Inst};
use crate::scev::{loop_symbol, to_bound_in, TripBound};
use crate::tree::Cfg;

/// Backedge-taken count of loop `li` from its exit test, when it has that form, with the
/// stride of its nest loop (as `scev::backedge_count`).
pub fn from_exit_test(
    f: &Function,
    cfg: &Cfg,
    li: usize,
    symbol_of: &dyn Fn(&str) -> Option<String>,
    values: &BTreeMap<String, String>,
) -> Option<(TripBound, i64)> {
    let l = &cfg.loops[li];
    let ExitCompare {
        pred,
        a,
        b,
        stays_if_true,
    } = exit_compare(f, cfg, li)?;
    if pred == "const" {
        // A constant test (indvars folds the exit of a loop it proves unreachable to
        // `br i1 true`): leaving at once is K = 0; never leaving means a run that terminates
        // never enters the loop, so its body is counted 0 times whatever K is taken, and
        // K = 0 is exact there too.
        return Some((TripBound(MaxOfMins::affine(AffineExpr::constant(0))), 1));
    }
    let k = loop_symbol(&f.blocks[l.header].label);
    let form = |v: &str| -> Option<MaxOfMins> {
        let Some(v) = v.strip_prefix('%') else {
            return Some(MaxOfMins::affine(AffineExpr::constant(v.parse().ok()?)));
        };
        let v = v.trim_matches('"');
        if let Some(s) = symbol_of(v) {
            return Some(MaxOfMins::affine(AffineExpr::var(&s)));
        }
        to_bound_in(values.get(v)?, symbol_of, values).ok()
    };
    let (x, y) = (form(&a)?, form(&b)?);
    let step = |m: &MaxOfMins| -> Option<i64> {
        let mut c =
            m.0.iter()
                .flatten()
                .map(|e| e.terms.get(&k).copied().unwrap_or(0));
        let first = c.next()?;
        c.all(|d| d == first).then_some(first)
    };
    // `iv PRED bound` or `bound PRED iv`, turned into "stays while iv < or <= bound"; a
    // down-counting iv (`j >= MAX(i, 2); j--`) is mirrored: -iv <= -bound.
    let (iv, bound, pred, c) = match (step(&x)?, step(&y)?) {
        (s, 0) if s != 0 => (x, y, pred.to_string(), s),
        (0, s) if s != 0 => (y, x, swap(&pred)?.to_string(), s),
        _ => return None,
    };
    let (iv, bound, pred) = if c < 0 {
        (
            iv.scale(-1).ok()?,
            bound.scale(-1).ok()?,
            swap(&pred)?.to_string(),
        )
    } else {
        (iv, bound, pred)
    };
    let c = c.abs();
    // `iv != bound` (unit step, or any step that lands on the bound) leaves at the first k
    // where iv reaches the bound, as `<` does; a loop that would step past it does not
    // terminate without wrapping (undefined for signed C integers), so a terminating run
    // always meets the count of `<`.
    let inclusive = match (pred.as_str(), stays_if_true) {
        ("slt" | "ult" | "ne", true) | ("sge" | "uge" | "eq", false) => false,
        ("sle" | "ule", true) | ("sgt" | "ugt", false) => true,
        _ => return None,
    };
    let start = iv.map(|e| {
        let mut e = e.clone();
        e.terms.remove(&k);
        e
    });
    // The body runs ceil((bound - start) / c) times (`<`; floor(...) + 1 for `<=`) when that
    // is positive: as a nest loop over 0..=Y by c whose body is the header's all-but-last
    // execution, Y = max(0, bound - start + c - 1 (+ 1)).
    let y = bound
        .add(&start.scale(-1).ok()?)
        .ok()?
        .add(&MaxOfMins::affine(AffineExpr::constant(
            c - 1 + i64::from(inclusive),
        )))
        .ok()?;
    let count = y.max(&MaxOfMins::affine(AffineExpr::constant(0))).ok()?;
    Some((TripBound(count), c))
}

/// The single exit test of loop `li`: `a PRED b`, and whether the loop stays when it holds
/// (`pred` is `const` for a constant `br i1 true/false`).
struct ExitCompare {
    pred: String,
    a: String,
    b: String,
    stays_if_true: bool,
}

fn exit_compare(f: &Function, cfg: &Cfg, li: usize) -> Option<ExitCompare> {
    let l = &cfg.loops[li];
    let exits = exit_branches(f, cfg, li);
    // The test is evaluated once per iteration k whether it sits in the header (top-tested)
    // or in the latch (bottom-tested, a rotated loop): either way the header runs K + 1 times,
    // K the first k at which the compared value leaves its range, and the backedge is taken K
    // times. Written in the header's k, the compared value of a latch test (`iv.next`) has
    // its start one step on, so one formula serves both. An exit elsewhere need not be
    // evaluated every iteration, so the test must dominate every latch.
    let [(b, Some(cond))] = exits.as_slice() else {
        return None;
    };
    if !l.latches.iter().all(|&t| cfg.dominates(*b, t)) {
        return None;
    }
    let Inst::Br { targets } = &f.blocks[*b].insts.last()?.kind else {
        return None;
    };
    let index = f.block_index();
    let stays_if_true = l.blocks.contains(index.get(targets.first()?.as_str())?);
    if matches!(cond.as_str(), "true" | "false") {
        return Some(ExitCompare {
            pred: "const".into(),
            a: String::new(),
            b: String::new(),
            stays_if_true: false,
        });
    }
    let icmp = f
        .blocks
        .iter()
        .flat_map(|b| &b.insts)
        .find(|i| i.result.as_deref() == Some(cond.trim_start_matches('%')))?;
    let rhs = icmp
        .text
        .split_once(" = ")?
        .1
        .trim()
        .strip_prefix("icmp ")?;
    let args = split_top(rhs);
    let mut words = args.first()?.split_whitespace();
    let pred = words.next()?;
    let _ty = words.next()?;
    let a = words.next()?.to_string();
    let b = args.get(1)?.split_whitespace().last()?.to_string();
    Some(ExitCompare {
        pred: pred.to_string(),
        a,
        b,
        stays_if_true,
    })
}

fn swap(pred: &str) -> Option<&'static str> {
    Some(match pred {
        "slt" => "sgt",
        "sgt" => "slt",
        "sle" => "sge",
        "sge" => "sle",
        "ult" => "ugt",
        "ugt" => "ult",
        "ule" => "uge",
        "uge" => "ule",
        "ne" => "ne",
        "eq" => "eq",
        _ => return None,
    })
}

/// The load an exit test of loop `li` compares (`w >= weight[i]`), through casts and
/// arithmetic: such a loop's trip count is data, not a function of the arguments.
pub fn exit_reads_memory(f: &Function, cfg: &Cfg, li: usize) -> Option<usize> {
    let defs = definitions(f);
    exit_branches(f, cfg, li)
        .iter()
        .find_map(|(_, c)| reads_memory(&defs, c.as_deref()?, false))
}

/// Whether the condition of the conditional `br` ending `block` reads memory or calls
/// anything, through arithmetic, casts and phis (`None`: no `br i1`). A condition that does
/// neither is a function of the loop indices and the arguments, not of data, even where it is
/// not affine (`i < MIN(ii + b, m)` with `ii` stepping by the argument `b`).
pub fn branch_reads_memory(f: &Function, block: usize) -> Option<bool> {
    let rest = f.blocks[block]
        .insts
        .last()?
        .text
        .trim()
        .strip_prefix("br i1 ")?;
    let cond = rest.split(',').next()?.trim();
    Some(reads_memory(&definitions(f), cond, true).is_some())
}

fn definitions(f: &Function) -> BTreeMap<&str, &crate::ir::Instruction> {
    f.blocks
        .iter()
        .flat_map(|b| &b.insts)
        .filter_map(|i| Some((i.result.as_deref()?, i)))
        .collect()
}

/// The line of a load (or call) that `v` is computed from, through at most 64 definitions;
/// phis are followed only with `through_phis` (an exit test's own induction variable is one).
fn reads_memory(
    defs: &BTreeMap<&str, &crate::ir::Instruction>,
    v: &str,
    through_phis: bool,
) -> Option<usize> {
    let mut work = vec![v.trim_start_matches('%').to_string()];
    let mut seen = std::collections::BTreeSet::new();
    while let Some(v) = work.pop() {
        if seen.len() > 64 || !seen.insert(v.clone()) {
            continue;
        }
        let Some(i) = defs.get(v.as_str()) else {
            continue;
        };
        match i.kind {
            Inst::Phi { .. } if !through_phis => continue,
            Inst::Load { .. } | Inst::Atomic { .. } => return Some(i.line),
            Inst::Call { .. } if through_phis => return Some(i.line),
            _ => {}
        }
        let rhs = i.text.split_once(" = ").map_or("", |x| x.1);
        work.extend(
            rhs.split(|c: char| c.is_whitespace() || c == ',' || c == '[' || c == ']')
                .filter_map(|w| w.strip_prefix('%'))
                .map(str::to_string),
        );
    }
    None
}

/// The blocks of loop `li` with a successor outside it, with the `i1` value their conditional
/// `br` tests (`None` for another terminator).
fn exit_branches(f: &Function, cfg: &Cfg, li: usize) -> Vec<(usize, Option<String>)> {
    let l = &cfg.loops[li];
    l.blocks
        .iter()
        .copied()
        .filter(|&b| cfg.succ[b].iter().any(|s| !l.blocks.contains(s)))
        .map(|b| {
            let c = f.blocks[b].insts.last().and_then(|t| {
                let rest = t.text.trim().strip_prefix("br i1 ")?;
                Some(rest.split(',').next()?.trim().to_string())
            });
            (b, c)
        })
        .collect()
}

// A step that is an argument: the count is a derived parameter, defined in metron-symbolic
// (metron static derives the same count from source loops).
pub use metron_symbolic::derived_trip::{argument, evaluate};
pub use metron_symbolic::{DerivedTrip as DerivedParameter, DerivedTripError as DerivedError};

/// The derived trip parameter of loop `li` when its exit test compares `{start,+,%step}`
/// (scalar evolution's add recurrence with an argument as step) with a bound, start and
/// bound affine in the arguments.
pub fn derived_trip(
    f: &Function,
    cfg: &Cfg,
    li: usize,
    symbol_of: &dyn Fn(&str) -> Option<String>,
    values: &BTreeMap<String, String>,
) -> Option<DerivedParameter> {
    let l = &cfg.loops[li];
    let header = &f.blocks[l.header].label;
    let e = exit_compare(f, cfg, li)?;
    // Only arguments: an outer loop's k in start or bound would make K vary per iteration.
    let free = |m: MaxOfMins| -> Option<AffineExpr> {
        let [t] = m.0.as_slice() else { return None };
        let [a] = t.as_slice() else { return None };
        a.terms
            .keys()
            .all(|v| !v.starts_with("k_"))
            .then(|| a.clone())
    };
    let operand = |v: &str| -> Option<String> {
        let v = v.strip_prefix('%')?.trim_matches('"');
        values.get(v).cloned()
    };
    let bound_form = |v: &str| -> Option<AffineExpr> {
        let Some(name) = v.strip_prefix('%') else {
            return Some(AffineExpr::constant(v.parse().ok()?));
        };
        if let Some(s) = symbol_of(name.trim_matches('"')) {
            return Some(AffineExpr::var(&s));
        }
        free(to_bound_in(&operand(v)?, symbol_of, values).ok()?)
    };
    let (rec, bound, pred) = match (add_recurrence(&operand(&e.a)?, header), bound_form(&e.b)) {
        (Some(r), Some(b)) => (r, b, e.pred.clone()),
        _ => (
            add_recurrence(&operand(&e.b)?, header)?,
            bound_form(&e.a)?,
            swap(&e.pred)?.to_string(),
        ),
    };
    let inclusive = match (pred.as_str(), e.stays_if_true) {
        ("slt" | "ult" | "ne", true) | ("sge" | "uge" | "eq", false) => false,
        ("sle" | "ule", true) | ("sgt" | "ugt", false) => true,
        _ => return None,
    };
    let start = free(to_bound_in(&rec.0, symbol_of, values).ok()?)?;
    let step = free(to_bound_in(&rec.1, symbol_of, values).ok()?)?;
    let step = match step.terms.iter().next() {
        Some((v, 1)) if step.terms.len() == 1 && step.constant == 0 => v.clone(),
        _ => return None,
    };
    let name = format!("q_{}", metron_symbolic::identifier(header));
    Some(DerivedParameter::new(name, start, bound, step, inclusive))
}

/// `{start,+,step}<%header>` split into start and step (texts), for this loop only.
fn add_recurrence(text: &str, header: &str) -> Option<(String, String)> {
    let t = text.trim();
    let inner = t.strip_prefix('{')?;
    let mut depth = 0;
    let close = inner.char_indices().find_map(|(i, c)| {
        match c {
            '{' | '(' => depth += 1,
            ')' => depth -= 1,
            '}' if depth == 0 => return Some(i),
            '}' => depth -= 1,
            _ => {}
        }
        None
    })?;
    let rest = &inner[close + 1..];
    if !rest.ends_with(&format!("<%{header}>")) {
        return None;
    }
    let parts = split_top(&inner[..close]);
    let [start, plus, step] = parts.as_slice() else {
        return None;
    };
    (plus.trim() == "+").then(|| (start.trim().to_string(), step.trim().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_recurrence_of_this_loop_only() {
        let t = "{(sext i32 %stride to i64),+,(sext i32 %stride to i64)}<%for.body>";
        assert_eq!(
            add_recurrence(t, "for.body"),
            Some((
                "(sext i32 %stride to i64)".into(),
                "(sext i32 %stride to i64)".into()
            ))
        );
        assert_eq!(add_recurrence(t, "for.inner"), None);
        assert_eq!(
            add_recurrence("{0,+,{1,+,1}<%a>}<%b>", "b").map(|r| r.1),
            Some("{1,+,1}<%a>".into())
        );
    }
}
