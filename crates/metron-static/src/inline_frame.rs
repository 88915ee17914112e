//! Inline frames (004 §III.C.5 for code inlined into its caller): how an inlined function's
//! parameters are bound to the arguments of the call it was inlined at, and the source name
//! of a (demangled, cloned) function. Below the loop counting, which scales inlined loops.

use std::collections::BTreeMap;

use metron_symbolic::{AffineExpr, Binding};

use crate::binary::Instruction;
use crate::error::{Result, StaticError};
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

/// The line of `frame` when it is in `source`'s file (an inline frame's call line).
pub fn line_in_file(frame: &crate::binary::Frame, source: &SourceModel) -> Option<u32> {
    frame
        .position
        .as_ref()
        .filter(|p| std::path::Path::new(&p.file).file_name() == source.file.file_name())
        .map(|p| p.line)
}

/// 004 §III.C.5 for code inlined into its caller: the inline levels of `ins`, innermost
/// first, each binding the inlined function's declared parameters to the arguments of the call
/// it was inlined at (an affine argument in the next function out, else `NAME_LINE`). Names
/// that are not declared parameters (struct members, annotation variables) are left alone.
pub fn inline_levels(ins: &Instruction, source: &SourceModel) -> Vec<BTreeMap<String, Argument>> {
    let in_file = |f: &crate::binary::Frame| line_in_file(f, source);
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

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
