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
use crate::error::{Result, StaticError};
use crate::model::FunctionModel;
use crate::source::SourceModel;

/// How one of the callee's parameters is bound at a call site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Argument {
    /// The argument expression, in the caller's parameters.
    Expr(AffineExpr),
    /// Unknown statically: a program-wide parameter named by the callee's variable and the
    /// call's line (`n_16`).
    Renamed(String),
}

impl Argument {
    /// Its value: an expression under the caller's `local` binding, a renamed parameter from
    /// the user's binding (`n_16`, else `n`).
    pub fn value(&self, local: &Binding, user: &Binding) -> Result<i64> {
        match self {
            Argument::Expr(e) => Ok(e.evaluate(local)?),
            Argument::Renamed(name) => user
                .get(name)
                .or_else(|| fallback_name(name).and_then(|base| user.get(base)))
                .copied()
                .ok_or_else(|| {
                    StaticError::Run(format!(
                        "parameter `{name}` (or `{}`) is not bound; give --param {name}=VALUE",
                        fallback_name(name).unwrap_or(name)
                    ))
                }),
        }
    }

    /// Python (and human) text of the binding.
    pub fn text(&self) -> String {
        match self {
            Argument::Expr(e) => e.to_string(),
            Argument::Renamed(n) => n.clone(),
        }
    }
}

/// `n` for `n_16`: the variable a call-site parameter was named after.
pub fn fallback_name(name: &str) -> Option<&str> {
    let (base, line) = name.rsplit_once('_')?;
    (!base.is_empty() && !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit()))
        .then_some(base)
}

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
    source: Option<(Vec<String>, Vec<Option<AffineExpr>>)>,
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
        let given = self.source.as_ref().and_then(|(params, args)| {
            let i = params.iter().position(|q| q == p)?;
            args.get(i)?.clone()
        });
        given.map_or_else(renamed, Argument::Expr)
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
/// the call instruction's line (same callee name; 004 §III.A.2 line mapping).
pub fn call_sites(
    binary: &Binary,
    source: &SourceModel,
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
            for ins in &f.instructions[block.first..block.end] {
                let call_like = ins.flow == iced_x86::FlowControl::Call
                    || ins.flow == iced_x86::FlowControl::UnconditionalBranch;
                // A jump to another function's start is a tail call.
                let Some(&callee) = ins.target.and_then(|t| index.get(&t)) else {
                    continue;
                };
                if !call_like || callee == k {
                    continue;
                }
                let line = line_in(ins, source);
                let target = &binary.functions[functions[callee].0];
                out.push(CallSite {
                    caller: k,
                    callee,
                    block: b,
                    line,
                    source: line.and_then(|l| written_call(source, l, target)),
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

/// The source call of `target` on `line`: the callee's declared parameters and the arguments.
fn written_call(
    source: &SourceModel,
    line: u32,
    target: &Function,
) -> Option<(Vec<String>, Vec<Option<AffineExpr>>)> {
    let name = base_name(&target.name);
    let call = source
        .calls
        .iter()
        .find(|c| c.line == line && c.callee == name)?;
    let declared = source
        .functions
        .iter()
        .filter(|f| f.name == name)
        .find(|f| f.parameters.len() == call.arguments.len())?;
    Some((declared.parameters.clone(), call.arguments.clone()))
}

/// The unqualified name of a demangled function: `waxpby` for `void waxpby<double>(int, ...)`,
/// `operator()` for `matvec_ell<double>::operator()(double const*, double*) const`.
pub fn base_name(demangled: &str) -> &str {
    // A clone (`kernel.constprop.0`) counts in its source function's loops and parameters.
    let demangled = crate::binary::split_clone(demangled).0;
    let mut depth = 0i32;
    let mut end = demangled.len();
    let bytes = demangled.as_bytes();
    // The parameter list: the first `(` outside template arguments not part of `operator()`.
    for (i, &c) in bytes.iter().enumerate() {
        match c {
            b'<' => depth += 1,
            b'>' => depth -= 1,
            b'(' if depth == 0 && !demangled[..i].ends_with("operator") => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    let mut head = &demangled[..end];
    // Drop trailing template arguments, then qualifiers and a return type.
    if head.ends_with('>') {
        let mut d = 0i32;
        for (i, c) in head.char_indices().rev() {
            match c {
                '>' => d += 1,
                '<' => {
                    d -= 1;
                    if d == 0 {
                        head = &head[..i];
                        break;
                    }
                }
                _ => {}
            }
        }
    }
    let head = head.rsplit("::").next().unwrap_or(head);
    head.rsplit(' ').next().unwrap_or(head)
}

/// 004 §III.C.5 for code inlined into its caller: the inline levels of `ins`, innermost
/// first, each binding the inlined function's declared parameters to the arguments of the call
/// it was inlined at (an affine argument in the next function out, else `NAME_LINE`). Names
/// that are not declared parameters (struct members, annotation variables) are left alone.
pub fn inline_levels(ins: &Instruction, source: &SourceModel) -> Vec<BTreeMap<String, Argument>> {
    let in_file = |f: &crate::binary::Frame| {
        f.position
            .as_ref()
            .filter(|p| std::path::Path::new(&p.file).file_name() == source.file.file_name())
            .map(|p| p.line)
    };
    let mut levels = Vec::new();
    for pair in ins.frames.windows(2) {
        let (Some(callee), Some(line)) = (pair[0].function.as_deref(), in_file(&pair[1])) else {
            break;
        };
        let name = base_name(callee);
        let declared = source.functions.iter().filter(|f| f.name == name);
        let call = source
            .calls
            .iter()
            .find(|c| c.line == line && c.callee == name);
        let Some(params) = declared
            .clone()
            .find(|f| call.is_some_and(|c| c.arguments.len() == f.parameters.len()))
            .or_else(|| declared.clone().next())
            .map(|f| &f.parameters)
        else {
            break;
        };
        let level = params
            .iter()
            .enumerate()
            .filter(|(_, p)| !p.is_empty())
            .map(|(i, p)| {
                let given = call.and_then(|c| c.arguments.get(i).cloned().flatten());
                let argument = given.map_or_else(
                    || Argument::Renamed(metron_symbolic::unknown_bound_parameter(p, line)),
                    Argument::Expr,
                );
                (p.clone(), argument)
            })
            .collect();
        levels.push(level);
    }
    levels
}

/// `count` (in the innermost inlined function's parameters) in the physical function's
/// parameters: each level's bindings substituted simultaneously, innermost level first.
pub fn bind_inlined(
    count: &metron_symbolic::Piecewise,
    levels: &[BTreeMap<String, Argument>],
) -> metron_symbolic::Piecewise {
    use metron_symbolic::{LinExpr, Rational};
    let mut out = count.clone();
    for level in levels {
        let used = out.parameters();
        let bound: Vec<(&String, &Argument)> =
            level.iter().filter(|(p, _)| used.contains(*p)).collect();
        // Through fresh names, so that `n -> 2*n` and swapped arguments substitute at once.
        for (p, _) in &bound {
            out = out.rename_parameter(p, &format!("{p}\u{1}inlined"));
        }
        for (p, a) in &bound {
            let value = match a {
                Argument::Renamed(n) => LinExpr::symbol(n),
                Argument::Expr(e) => {
                    e.terms
                        .iter()
                        .fold(LinExpr::integer(e.constant), |acc, (n, k)| {
                            acc.plus(
                                &LinExpr::symbol(n).scaled(&Rational::from_integer((*k).into())),
                            )
                        })
                }
            };
            out = out.substitute(&format!("{p}\u{1}inlined"), &value);
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inlined_counts_take_the_call_sites_arguments() {
        use metron_symbolic::{trip_count, CountOptions, Loop, LoopNest};
        // for (i = 0; i < n; i++) for (j = 0; j < m; j++): n*m where n > 0 and m > 0.
        let nest = LoopNest::new(vec![
            Loop::exclusive("i", "0", "n", 1).unwrap(),
            Loop::exclusive("j", "0", "m", 1).unwrap(),
        ]);
        let count = trip_count(&nest, &CountOptions::default()).unwrap();
        let value = |p: &metron_symbolic::Piecewise, b: &[(&str, i64)]| {
            p.evaluate(&metron_symbolic::binding(b.iter().copied()))
                .unwrap()
                .to_string()
        };
        // f(2*k, 7) inlined, then k bound to `n_40` one level out; `m` swapped with `n`.
        let inner = BTreeMap::from([
            ("n".to_string(), Argument::Expr(AffineExpr::term("k", 2))),
            ("m".to_string(), Argument::Expr(AffineExpr::constant(7))),
        ]);
        let outer = BTreeMap::from([("k".to_string(), Argument::Renamed("k_40".into()))]);
        let bound = bind_inlined(&count, &[inner, outer]);
        assert_eq!(bound.parameters(), BTreeSet::from(["k_40".to_string()]));
        assert_eq!(value(&bound, &[("k_40", 3)]), "42");
        assert_eq!(value(&bound, &[("k_40", 0)]), "0");
        let swapped = BTreeMap::from([
            ("n".to_string(), Argument::Expr(AffineExpr::var("m"))),
            ("m".to_string(), Argument::Expr(AffineExpr::term("n", 2))),
        ]);
        let bound = bind_inlined(&count, &[swapped]);
        assert_eq!(value(&bound, &[("n", 3), ("m", 5)]), "30");
    }

    #[test]
    fn base_names_of_demangled_functions() {
        assert_eq!(base_name("copy"), "copy");
        assert_eq!(
            base_name("void waxpby<double>(int, double, double const*)"),
            "waxpby"
        );
        assert_eq!(
            base_name("matvec_ell<double>::operator()(double const*, double*) const"),
            "operator()"
        );
        assert_eq!(base_name("A::foo(double*, double*)"), "foo");
        assert_eq!(base_name("double dot<double>(int, double const*)"), "dot");
        assert_eq!(base_name("norms.constprop.0"), "norms");
        assert_eq!(base_name("kernel.isra.0.part.0"), "kernel");
        assert_eq!(
            base_name("dot(int, double const*) [clone .constprop.0]"),
            "dot"
        );
    }

    #[test]
    fn call_site_parameters_fall_back_to_the_variable() {
        assert_eq!(fallback_name("n_16"), Some("n"));
        assert_eq!(fallback_name("max_iter_40"), Some("max_iter"));
        assert_eq!(fallback_name("max_iter"), None);
        assert_eq!(fallback_name("_16"), None);
        let user = metron_symbolic::binding([("n", 5), ("y_16", 7)]);
        let local = metron_symbolic::binding([("m", 3)]);
        let r = |n: &str| Argument::Renamed(n.into()).value(&local, &user).unwrap();
        assert_eq!((r("y_16"), r("n_40")), (7, 5));
        assert!(Argument::Renamed("z_3".into())
            .value(&local, &user)
            .is_err());
        let two_m_plus_1 = AffineExpr::term("m", 2).plus_constant(1).unwrap();
        assert_eq!(
            Argument::Expr(two_m_plus_1).value(&local, &user).unwrap(),
            7
        );
    }
}
