//! Locals a function computes once from its parameters, at the top level of its body before
//! they are read, and never writes again (`m = n % 5;` in the reference BLAS, `int nm1 = n -
//! 1;`): bounds and conditions that name them are counted in them, and each is a derived
//! parameter (`metron_symbolic::LocalValue`) computed from the arguments.

use metron_symbolic::{IntExpr, LocalValue};
use serde_json::Value;

use super::while_loop::writes;
use super::{binary, children, decl_name, integer_type, kind, size_of, strip};

/// The definitions in `body` (a function's CompoundStmt), in order; each reads only the
/// parameters and the locals defined before it.
pub fn definitions(body: &Value, parameters: &[String]) -> Vec<LocalValue> {
    let mut known: Vec<String> = parameters.to_vec();
    let mut out = Vec::new();
    for statement in children(body) {
        for (name, ty, init) in assignments(statement) {
            if known.contains(&name) || !ty || writes(body, &name) != 1 {
                continue;
            }
            let is_known = |n: &str| known.iter().any(|k| k == n);
            if let Some(expr) = int_expr(init, &is_known) {
                known.push(name.clone());
                out.push(LocalValue::new(name, expr));
            }
        }
    }
    out
}

/// (name, whether its type is an integer, value) of `T v = e;` (each declarator) or `v = e;`.
fn assignments(s: &Value) -> Vec<(String, bool, &Value)> {
    let ty = integer_type;
    match kind(s) {
        "DeclStmt" => children(s)
            .iter()
            .filter(|d| kind(d) == "VarDecl")
            .filter_map(|d| {
                let name = d.get("name")?.as_str()?.to_string();
                Some((name, ty(d), children(d).first()?))
            })
            .collect(),
        _ => binary(s)
            .filter(|(op, _, _)| *op == "=")
            .and_then(|(_, l, r)| Some((decl_name(l)?, ty(strip(l)), r)))
            .into_iter()
            .collect(),
    }
}

/// `e` in `+ - * / %` of integer literals and `known` names (casts looked through).
fn int_expr(e: &Value, known: &dyn Fn(&str) -> bool) -> Option<IntExpr> {
    let e = strip(e);
    if let Some(bytes) = size_of(e) {
        return Some(IntExpr::Const(bytes));
    }
    match kind(e) {
        "IntegerLiteral" => Some(IntExpr::Const(e.get("value")?.as_str()?.parse().ok()?)),
        "DeclRefExpr" => {
            let n = decl_name(e)?;
            known(&n).then_some(IntExpr::Var(n))
        }
        "UnaryOperator" if e.get("opcode")?.as_str()? == "-" => Some(IntExpr::Binary(
            '-',
            Box::new(IntExpr::Const(0)),
            Box::new(int_expr(children(e).first()?, known)?),
        )),
        "BinaryOperator" => {
            let (op, l, r) = binary(e)?;
            let op = match op {
                "+" => '+',
                "-" => '-',
                "*" => '*',
                "/" => '/',
                "%" => '%',
                _ => return None,
            };
            let (l, r) = (int_expr(l, known)?, int_expr(r, known)?);
            Some(IntExpr::Binary(op, Box::new(l), Box::new(r)))
        }
        _ => None,
    }
}

/// A `for` whose start or bound is an integer expression of names that no enclosing loop
/// changes but is not affine (`i < m * n`, `i = n / 3`: the flattened and partial loops of
/// set-up code): the loop with each replaced by a derived value (`start_LINE`, `bound_LINE`)
/// of that expression. `counters`: the enclosing loops' counters.
pub fn bound_as_local(
    inner: &[Value],
    line: u32,
    counters: &[String],
) -> Option<(Vec<Value>, Vec<LocalValue>)> {
    let [init, _, cond, ..] = inner else {
        return None;
    };
    let (var, _, start) = assignments(init).into_iter().next()?;
    let free = |n: &str| n != var && counters.iter().all(|c| c != n);
    let named =
        |name: &str| serde_json::json!({"kind": "DeclRefExpr", "referencedDecl": {"name": name}});
    let mut rewritten = inner.to_vec();
    let mut values = Vec::new();
    if let Some(expr) =
        int_expr(start, &free).filter(|e| !matches!(e, IntExpr::Const(_) | IntExpr::Var(_)))
    {
        let name = format!("start_{line}");
        rewritten[0] = serde_json::json!({"kind": "BinaryOperator", "opcode": "=", "inner": [named(&var), named(&name)]});
        values.push(LocalValue::new(name, expr));
    }
    let (op, l, r) = binary(cond)?;
    let counter_left = decl_name(l).as_deref() == Some(var.as_str());
    let bound = if counter_left { r } else { l };
    if let Some(expr) =
        int_expr(bound, &free).filter(|e| !matches!(e, IntExpr::Const(_) | IntExpr::Var(_)))
    {
        let name = format!("bound_{line}");
        let (l, r) = match counter_left {
            true => (l.clone(), named(&name)),
            false => (named(&name), r.clone()),
        };
        rewritten[2] = serde_json::json!({"kind": "BinaryOperator", "opcode": op, "inner": [l, r]});
        values.push(LocalValue::new(name, expr));
    }
    (!values.is_empty()).then_some((rewritten, values))
}
