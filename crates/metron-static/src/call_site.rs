//! Interprocedural counting (004 §III.C.5): a call multiplies the callee's model by the
//! executions of the call site, with the callee's parameters bound per call site.
//!
//! Mira names every callee parameter after the call's line (`y_16`) and leaves its value to
//! the user. metron does that only where it must: an argument that is affine in the caller's
//! parameters (`scale(a, 2*n)`, `scale(a, 100)`) is substituted, so the model follows the
//! program; anything else (`atoi(argv[1])`, a loop counter, an annotation variable of the
//! callee) becomes `NAME_LINE`. An unbound `NAME_LINE` falls back to `NAME`, so binding `n`
//! alone still evaluates every call site whose `n` is not known.

use std::collections::{BTreeMap, BTreeSet};

use metron_symbolic::{AffineExpr, Binding};

use crate::binary::{Binary, Function, Instruction};
use crate::error::Result;
pub use crate::inline_frame::{base_name, bind_inlined, fallback_name, inline_levels, Argument};
use crate::model::FunctionModel;
use crate::source::{SourceModel, VaryingArgument};

/// A direct call (or tail jump) from one modelled function to another.
#[derive(Debug, Clone)]
pub struct CallSite {
    /// Caller and callee, as indices into `ProgramModel::functions`.
    pub caller: usize,
    pub callee: usize,
    /// The caller's block holding the call: the call runs as often as the block.
    pub block: usize,
    /// Line of the call in the modelled file.
    pub line: Option<u32>,
    /// The callee's declared parameters and the call's arguments, when the call was found in
    /// the source at that line.
    source: Option<WrittenCall>,
    /// Arguments that change from iteration to iteration of the loops around the call.
    pub per_iteration: Option<PerIteration>,
}

/// A call as written: the callee's declared parameters, the arguments (affine ones), and
/// the arguments that read a counter of an enclosing loop.
type WrittenCall = (Vec<String>, Vec<Option<AffineExpr>>, Vec<VaryingArgument>);

/// A call whose arguments read the counters of the loops around it: the callee's parameters
/// they bind, and that nest (outermost loop first), over which the calls are summed.
#[derive(Debug, Clone)]
pub struct PerIteration {
    pub arguments: Vec<(String, AffineExpr)>,
    pub nest: Vec<metron_symbolic::Loop>,
}

impl CallSite {
    /// How the callee's parameter `p` is bound here; `mira_compat` renames every parameter as
    /// 004 Fig. 5 does.
    pub fn argument(&self, p: &str, mira_compat: bool) -> Argument {
        let renamed = || match self.line {
            Some(l) => Argument::Renamed(metron_symbolic::unknown_bound_parameter(p, l)),
            // No line to name it by: the caller's variable of the same name.
            None => Argument::Expr(AffineExpr::var(p)),
        };
        if mira_compat {
            return renamed();
        }
        let position = |(params, _, _): &WrittenCall| params.iter().position(|q| q == p);
        let given = self
            .source
            .as_ref()
            .and_then(|w| w.1.get(position(w)?)?.clone());
        // A loop counter's value changes from call to call: a name of its own, which the
        // user's value of `p` does not stand for (`n_per_i_18`, not `n_18`).
        let varies = self.source.as_ref().and_then(|w| {
            let i = position(w)?;
            w.2.iter()
                .find(|v| v.position == i)
                .map(|v| v.counter.clone())
        });
        match (given, varies, self.line) {
            (Some(e), _, _) => Argument::Expr(e),
            (None, Some(c), Some(l)) => Argument::Renamed(format!("{p}_per_{c}_{l}")),
            _ => renamed(),
        }
    }

    /// How each of the callee's own parameters is bound here.
    pub fn arguments(
        &self,
        callee_locals: &BTreeSet<String>,
        mira_compat: bool,
    ) -> BTreeMap<String, Argument> {
        callee_locals
            .iter()
            .map(|p| (p.clone(), self.argument(p, mira_compat)))
            .collect()
    }
}

/// Every direct call between the modelled functions, joined to the source call written on
/// the call instruction's line (same callee name; 004 §III.A.2 line mapping). `sources`
/// gives each function's source (translation unit).
pub fn call_sites(
    binary: &Binary,
    sources: &[&SourceModel],
    functions: &[(usize, FunctionModel)],
) -> Vec<CallSite> {
    let index: BTreeMap<u64, usize> = functions
        .iter()
        .enumerate()
        .map(|(k, (i, _))| (binary.functions[*i].address, k))
        .collect();
    let mut out = Vec::new();
    for (k, (i, m)) in functions.iter().enumerate() {
        let f = &binary.functions[*i];
        for (b, block) in m.cfg.blocks.iter().enumerate() {
            for ins in block.code(f) {
                let call_like = ins.flow == iced_x86::FlowControl::Call
                    || ins.flow == iced_x86::FlowControl::UnconditionalBranch;
                // A jump to another function's start is a tail call.
                let Some(&callee) = ins.target.and_then(|t| index.get(&t)) else {
                    continue;
                };
                if !call_like || callee == k {
                    continue;
                }
                let line = line_in(ins, sources[k]);
                let target = &binary.functions[functions[callee].0];
                let written = |l| written_call(sources[k], sources[callee], l, target);
                let source = line.and_then(written);
                let per_iteration = source
                    .as_ref()
                    .zip(line)
                    .and_then(|(w, l)| per_iteration(sources[k], target, l, w));
                out.push(CallSite {
                    caller: k,
                    callee,
                    block: b,
                    line,
                    source,
                    per_iteration,
                });
            }
        }
    }
    out
}

/// The line of `ins` in the modelled file: its innermost frame there, where the call is written.
pub fn line_in(ins: &Instruction, source: &SourceModel) -> Option<u32> {
    ins.frames.iter().find_map(|fr| {
        fr.position
            .as_ref()
            .filter(|p| std::path::Path::new(&p.file).file_name() == source.file.file_name())
            .map(|p| p.line)
    })
}

/// The callee parameters a call's varying arguments bind, with the nest around the call.
fn per_iteration(
    source: &SourceModel,
    target: &Function,
    line: u32,
    w: &WrittenCall,
) -> Option<PerIteration> {
    let call = source
        .calls
        .iter()
        .find(|c| c.line == line && c.callee == base_name(&target.name))?;
    let nest = source.nest_of(call.in_loop?).ok()?;
    let arguments: Vec<(String, AffineExpr)> =
        w.2.iter()
            .filter_map(|v| Some((w.0.get(v.position)?.clone(), v.value.clone())))
            .collect();
    (!arguments.is_empty()).then_some(PerIteration { arguments, nest })
}

/// The source call of `target` on `line` of the caller's `source`: the callee's declared
/// parameters (defined in `callee_source`, which is `source` but in a multi-file program)
/// and the arguments.
fn written_call(
    source: &SourceModel,
    callee_source: &SourceModel,
    line: u32,
    target: &Function,
) -> Option<WrittenCall> {
    let name = base_name(&target.name);
    let call = source
        .calls
        .iter()
        .find(|c| c.line == line && c.callee == name)?;
    let declared = source
        .functions
        .iter()
        .chain(&callee_source.functions)
        .filter(|f| f.name == name)
        .find(|f| f.parameters.len() == call.arguments.len())?;
    Some((
        declared.parameters.clone(),
        call.arguments.clone(),
        call.varying.clone(),
    ))
}

/// Parameters of each function's model: its own (`local`: counts, call executions and the
/// arguments it passes) and those it passes through from below (`global`: renamed
/// `NAME_LINE` parameters, bound by the user).
#[derive(Debug, Clone, Default)]
pub struct Parameters {
    pub local: BTreeSet<String>,
    pub global: BTreeSet<String>,
}

impl Parameters {
    pub fn all(&self) -> BTreeSet<String> {
        self.local.union(&self.global).cloned().collect()
    }
}

/// Parameters of every function, callees first (a cycle, i.e. recursion, stops the descent).
pub fn parameters(
    functions: &[(usize, FunctionModel)],
    sites: &[CallSite],
    sites_of: &[Vec<usize>],
    mira_compat: bool,
) -> Vec<Parameters> {
    let mut done: Vec<Option<Parameters>> = vec![None; functions.len()];
    let mut on_stack = vec![false; functions.len()];
    let graph = SiteGraph {
        functions,
        sites,
        sites_of,
        mira_compat,
    };
    for k in 0..functions.len() {
        visit(k, &graph, &mut done, &mut on_stack);
    }
    done.into_iter().map(Option::unwrap_or_default).collect()
}

/// Indices of `sites` per calling function (`functions` of them), in order.
pub fn sites_by_caller(sites: &[CallSite], functions: usize) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); functions];
    for (i, s) in sites.iter().enumerate() {
        if let Some(v) = out.get_mut(s.caller) {
            v.push(i);
        }
    }
    out
}

struct SiteGraph<'a> {
    functions: &'a [(usize, FunctionModel)],
    sites: &'a [CallSite],
    sites_of: &'a [Vec<usize>],
    mira_compat: bool,
}

fn visit(
    k: usize,
    g: &SiteGraph,
    done: &mut Vec<Option<Parameters>>,
    on_stack: &mut Vec<bool>,
) -> Parameters {
    let (functions, mira_compat) = (g.functions, g.mira_compat);
    if let Some(p) = &done[k] {
        return p.clone();
    }
    if on_stack[k] {
        return Parameters::default();
    }
    on_stack[k] = true;
    let model = &functions[k].1;
    let mut p = Parameters {
        local: &model.parameters() - &model.renamed,
        global: model.renamed.clone(),
    };
    for s in g.sites_of[k].iter().map(|&i| &g.sites[i]) {
        p.local
            .extend(&model.block_counts[s.block].parameters() - &model.renamed);
        let below = visit(s.callee, g, done, on_stack);
        for q in &below.local {
            match s.argument(q, mira_compat) {
                Argument::Expr(e) => p.local.extend(e.names().cloned()),
                Argument::Renamed(n) => {
                    p.global.insert(n);
                }
            }
        }
        p.global.extend(below.global);
    }
    on_stack[k] = false;
    done[k] = Some(p.clone());
    p
}

/// `binding` with every unbound `NAME_LINE` parameter of `names` set to `NAME`'s value, so
/// that binding `n` alone evaluates every call site whose `n` is not known.
pub fn with_fallbacks<'a>(
    binding: &Binding,
    names: impl IntoIterator<Item = &'a String>,
) -> Binding {
    let mut b = binding.clone();
    for n in names {
        if b.contains_key(n) {
            continue;
        }
        if let Some(v) = fallback_name(n).and_then(|base| binding.get(base)) {
            b.insert(n.clone(), *v);
        }
    }
    b
}

/// The callee's binding at a call site: the user's binding (renamed parameters from below
/// resolve there) with the callee's own parameters bound from the caller's `local` binding.
pub fn callee_binding(
    arguments: &BTreeMap<String, Argument>,
    local: &Binding,
    user: &Binding,
) -> Result<Binding> {
    let mut b = user.clone();
    for (q, a) in arguments {
        b.insert(q.clone(), a.value(local, user)?);
    }
    Ok(b)
}
