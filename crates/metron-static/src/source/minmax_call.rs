//! Loop bounds that call a small pure function (`k <= imin(w - 1, x + r)` with
//! `static inline int imin(int a, int b) { return a < b ? a : b; }`). A function whose body is
//! one `return` of a `?:` that picks one of its two parameters by comparing them (or of a call
//! to another such function, or to libm's `fmax`/`fmin`) is the min or max of its arguments:
//! the same bound as a `MIN`/`MAX` macro (004 Listing 3), counted by metron-symbolic's min/max
//! splitting. What the body computes is read from the AST, never from the function's name.

use std::collections::BTreeMap;

use metron_symbolic::{AffineExpr, Bound};
use serde_json::Value;

use super::{binary, children, decl_name, kind, strip};

/// Which argument a min/max function returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choice {
    Min,
    Max,
}

/// Functions known to return the min or max of their two arguments, by name.
pub type Helpers = BTreeMap<String, Choice>;

/// libm's (C99 7.12.12): the only library functions taken on trust.
pub fn library() -> Helpers {
    let mut h = Helpers::new();
    for suffix in ["", "f", "l"] {
        h.insert(format!("fmax{suffix}"), Choice::Max);
        h.insert(format!("fmin{suffix}"), Choice::Min);
    }
    h
}

/// `c ? t : f` with `c` comparing `l` and `r`: min or max when the arms are the compared
/// operands (`a < b ? a : b` is min, `a < b ? b : a` is max). `same(x, y)` says whether two
/// operands are the same expression.
pub fn choice_of(
    op: &str,
    (l, r): (&Value, &Value),
    (t, f): (&Value, &Value),
    same: &dyn Fn(&Value, &Value) -> bool,
) -> Option<Choice> {
    let less = match op {
        "<" | "<=" => true,
        ">" | ">=" => false,
        _ => return None,
    };
    if same(l, t) && same(r, f) {
        Some(if less { Choice::Min } else { Choice::Max })
    } else if same(l, f) && same(r, t) {
        Some(if less { Choice::Max } else { Choice::Min })
    } else {
        None
    }
}

/// What a function definition computes, when its body is one `return` of the min or max of
/// its two parameters (`parameters`, in order).
pub fn recognise(parameters: &[String], body: &Value, helpers: &Helpers) -> Option<Choice> {
    let [a, b] = parameters else { return None };
    if kind(body) != "CompoundStmt" {
        return None;
    }
    let [ret] = children(body) else { return None };
    if kind(ret) != "ReturnStmt" {
        return None;
    }
    let value = strip(children(ret).first()?);
    let is_parameter = |v: &Value| decl_name(v).filter(|n| n == a || n == b);
    match kind(value) {
        "ConditionalOperator" => {
            let [c, t, f] = children(value) else {
                return None;
            };
            let (op, l, r) = binary(c)?;
            // Both parameters must be compared, so that the result is one of them.
            let (pl, pr) = (is_parameter(l)?, is_parameter(r)?);
            (pl != pr).then_some(())?;
            let same =
                |x: &Value, y: &Value| decl_name(x).is_some() && decl_name(x) == decl_name(y);
            choice_of(op, (l, r), (t, f), &same)
        }
        "CallExpr" => {
            let (choice, args) = call(value, helpers)?;
            let names: Vec<String> = args.iter().filter_map(is_parameter).collect();
            (names.len() == 2 && names[0] != names[1]).then_some(choice)
        }
        _ => None,
    }
}

/// A call to a min/max function: what it picks and its arguments.
fn call<'a>(v: &'a Value, helpers: &Helpers) -> Option<(Choice, &'a [Value])> {
    let [callee, args @ ..] = children(v) else {
        return None;
    };
    let f = strip(callee);
    if kind(f) != "DeclRefExpr" {
        return None;
    }
    let name = f.get("referencedDecl")?.get("name")?.as_str()?;
    Some((*helpers.get(name)?, args))
}

/// A loop bound written as a call of a min/max function: `Bound::Min`/`Max` of its arguments
/// (nested calls of the same kind flatten: `imin(imin(a, b), c)`), each read by `bound`.
pub fn call_bound(
    v: &Value,
    helpers: &Helpers,
    bound: &dyn Fn(&Value) -> Option<Bound>,
) -> Option<Bound> {
    let (choice, args) = call(v, helpers)?;
    let mut exprs: Vec<AffineExpr> = Vec::new();
    for a in args {
        match (bound(a)?, choice) {
            (b, _) if b.exprs().len() == 1 => exprs.extend(b.exprs().iter().cloned()),
            (Bound::Min(e), Choice::Min) | (Bound::Max(e), Choice::Max) => exprs.extend(e),
            // `min(max(a, b), c)` is not one level; metron-symbolic's `MaxOfMins` would take
            // it, the source loop's `Bound` does not.
            _ => return None,
        }
    }
    (exprs.len() >= 2).then_some(match choice {
        Choice::Min => Bound::Min(exprs),
        Choice::Max => Bound::Max(exprs),
    })
}
