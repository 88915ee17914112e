//! Locals a function computes once from its parameters, at the top level of its body before
//! they are read, and never writes again (`m = n % 5;` in the reference BLAS, `int nm1 = n -
//! 1;`): bounds and conditions that name them are counted in them, and each is a derived
//! parameter (`metron_symbolic::LocalValue`) computed from the arguments.

use metron_symbolic::{IntExpr, LocalValue};
use serde_json::Value;

use super::while_loop::writes;
use super::{binary, children, decl_name, integer_type, kind, strip};

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
            if let Some(expr) = int_expr(init, &known) {
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
fn int_expr(e: &Value, known: &[String]) -> Option<IntExpr> {
    let e = strip(e);
    match kind(e) {
        "IntegerLiteral" => Some(IntExpr::Const(e.get("value")?.as_str()?.parse().ok()?)),
        "DeclRefExpr" => {
            let n = decl_name(e)?;
            known.contains(&n).then_some(IntExpr::Var(n))
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
