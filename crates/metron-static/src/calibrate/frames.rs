//! The source functions whose loops run in one physical function: its own, and those inlined
//! into it (a kernel that clang inlines into `main`). Each term of the basis a refit draws
//! on is a count of one of them, in the physical function's names (004 §III.C.5, as the
//! model binds inlined loops).

use std::collections::BTreeMap;

use metron_symbolic::{AffineExpr, Bound, Piecewise};

use crate::binary::Function;
use crate::inline_frame::{base_name, bind_inlined, inline_levels, line_in_file, Argument};
use crate::source::{SourceCall, SourceFunction, SourceModel};

/// One source function at one inline position: how its parameters are bound, innermost
/// level first (none for the function itself).
#[derive(Debug)]
pub(super) struct Frame<'a> {
    pub function: &'a SourceFunction,
    levels: Vec<BTreeMap<String, Argument>>,
}

/// `f` itself, then every distinct inline position of another function in `physical`.
pub(super) fn frames<'a>(
    source: &'a SourceModel,
    f: &'a SourceFunction,
    physical: &Function,
) -> Vec<Frame<'a>> {
    let mut out = vec![Frame {
        function: f,
        levels: Vec::new(),
    }];
    for ins in &physical.instructions {
        let Some(name) = ins.frames.first().and_then(|fr| fr.function.as_deref()) else {
            continue;
        };
        let name = base_name(name);
        if ins.frames.len() < 2 || name == f.name {
            continue;
        }
        let Some(g) = source.functions.iter().find(|g| g.name == name) else {
            continue;
        };
        let levels = inline_levels(ins, source);
        let known = |fr: &Frame| fr.function.name == g.name && fr.levels == levels;
        if !levels.is_empty() && !out.iter().any(known) {
            out.push(Frame {
                function: g,
                levels,
            });
        }
    }
    out
}

/// `terms` of every frame, each in the physical function's names.
pub(super) fn terms_of(
    source: &SourceModel,
    frames: &[Frame],
    terms: &dyn Fn(&SourceModel, &SourceFunction) -> Vec<Piecewise>,
) -> Vec<Piecewise> {
    let mut out = Vec::new();
    for fr in frames {
        let own = terms(source, fr.function);
        match fr.levels.is_empty() {
            true => out.extend(own),
            false => out.extend(own.iter().map(|c| bind_inlined(c, &fr.levels))),
        }
    }
    out
}

/// `source` with the loops of every function inlined into `physical` also written into `f`
/// at the call, level by level (`daxpy` inlined into `lu_daxpy` inlined into `main`): the
/// callee's parameters replaced by the call's arguments, its counters renamed. A call inside
/// a loop whose arguments read the loop's counters (`daxpy(n - k - 1, ...)` in LINPACK's
/// elimination) runs a different count each time, which no one binding of the callee's
/// parameters gives; in `f`'s nest it is a count like any other. `None` without inlining.
pub(super) fn inlined_source(
    source: &SourceModel,
    f: &SourceFunction,
    physical: &Function,
) -> Option<SourceModel> {
    let mut out = source.clone();
    // Each inlined call chain (outermost call first), and what inlining it gave.
    let mut done: Vec<(Vec<u32>, Inlined)> = Vec::new();
    for ins in &physical.instructions {
        let chain = call_chain(ins, source);
        for depth in 1..=chain.len() {
            let lines: Vec<u32> = chain[..depth].iter().map(|(_, c)| c.line).collect();
            if done.iter().any(|(l, _)| *l == lines) {
                continue;
            }
            let caller = match depth {
                1 => Inlined::default(),
                _ => match done.iter().find(|(l, _)| l[..] == lines[..depth - 1]) {
                    Some((_, i)) => i.clone(),
                    None => break,
                },
            };
            let (g, call) = chain[depth - 1];
            let inlined = inline_loops(&mut out, source, f, g, call, &caller);
            done.push((lines, inlined));
        }
    }
    (!done.is_empty()).then_some(out)
}

/// The calls `ins` was inlined through, outermost first: (callee, call) pairs of this file.
fn call_chain<'a>(
    ins: &crate::binary::Instruction,
    source: &'a SourceModel,
) -> Vec<(&'a SourceFunction, &'a SourceCall)> {
    let in_file = |fr: &crate::binary::Frame| line_in_file(fr, source);
    let mut out = Vec::new();
    for pair in ins.frames.windows(2).rev() {
        let (Some(callee), Some(caller), Some(line)) = (
            pair[0].function.as_deref().map(base_name),
            pair[1].function.as_deref().map(base_name),
            in_file(&pair[1]),
        ) else {
            break;
        };
        let g = source.functions.iter().find(|g| g.name == callee);
        let call = source
            .calls
            .iter()
            .find(|c| c.line == line && c.callee == callee && c.function == caller);
        match (g, call) {
            (Some(g), Some(call)) => out.push((g, call)),
            _ => break,
        }
    }
    out
}

/// What inlining one call gave: where the callee's loops went, and its names (parameters
/// and counters) in the physical function's.
#[derive(Clone, Default)]
struct Inlined {
    moved: BTreeMap<usize, usize>,
    values: BTreeMap<String, AffineExpr>,
}

/// Appends `g`'s loops to `out` as loops of `f` at `call` (made in a function inlined as
/// `caller` says, or in `f` itself).
fn inline_loops(
    out: &mut SourceModel,
    source: &SourceModel,
    f: &SourceFunction,
    g: &SourceFunction,
    call: &SourceCall,
    caller: &Inlined,
) -> Inlined {
    let mut here = Inlined::default();
    for (k, p) in g.parameters.iter().enumerate() {
        let given = call.arguments.get(k).cloned().flatten();
        let varying = call.varying.iter().find(|v| v.position == k);
        let value = given.or_else(|| varying.map(|v| v.value.clone()));
        if let Some(e) = value.and_then(|e| substituted_expr(&e, &caller.values)) {
            here.values.insert(p.clone(), e);
        }
    }
    // The loop around the call, where the caller's loops went (its own when in `f`).
    let at = call
        .in_loop
        .map(|l| caller.moved.get(&l).copied().unwrap_or(l));
    for (l, lp) in source.loops.iter().enumerate() {
        if lp.function != g.name || lp.derived.is_some() || lp.tile.is_some() {
            continue;
        }
        let parent = match lp.parent {
            None => at,
            Some(p) => match here.moved.get(&p) {
                Some(&q) => Some(q),
                None => continue,
            },
        };
        let Ok(scop) = &lp.scop else { continue };
        let renamed = format!("{}\u{1}{}{}", scop.var, g.name, call.line);
        here.values
            .insert(scop.var.clone(), AffineExpr::var(&renamed));
        let Some(scop) = substituted(scop, &renamed, &here.values) else {
            continue;
        };
        let mut copy = lp.clone();
        copy.function = f.name.clone();
        copy.parent = parent;
        copy.scop = Ok(scop);
        here.moved.insert(l, out.loops.len());
        out.loops.push(copy);
    }
    here
}

/// `l` with counter `var` and every name of `values` in its bounds replaced; `None` for a
/// loop counted per residue (its symbols would need the same).
fn substituted(
    l: &metron_symbolic::Loop,
    var: &str,
    values: &BTreeMap<String, AffineExpr>,
) -> Option<metron_symbolic::Loop> {
    if !l.residues.is_empty() {
        return None;
    }
    let bound = |b: &Bound| -> Option<Bound> {
        let exprs = b
            .exprs()
            .iter()
            .map(|e| substituted_expr(e, values))
            .collect::<Option<Vec<_>>>()?;
        Some(match b {
            Bound::Max(_) => Bound::Max(exprs),
            Bound::Min(_) => Bound::Min(exprs),
        })
    };
    Some(metron_symbolic::Loop {
        var: var.to_string(),
        start: bound(&l.start)?,
        end: bound(&l.end)?,
        ..l.clone()
    })
}

fn substituted_expr(e: &AffineExpr, values: &BTreeMap<String, AffineExpr>) -> Option<AffineExpr> {
    let mut out = AffineExpr::constant(e.constant);
    for (name, &k) in &e.terms {
        let value = values
            .get(name)
            .cloned()
            .unwrap_or_else(|| AffineExpr::var(name));
        out = out.plus_scaled(&value, k).ok()?;
    }
    Some(out)
}
