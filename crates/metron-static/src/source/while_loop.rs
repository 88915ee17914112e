//! `while` and `do ... while` loops that are `for` loops written another way: the counter
//! is set by the last statement before the loop, tested by the condition, and stepped by
//! one statement at the top level of the body that nothing else in the body contradicts
//! (004 §III.B's static control part holds for them as for `for`). Anything else (a `break`,
//! a `continue` that skips the step, a second write of the counter, a pointer walk) stays
//! unmodelled, and the binary loop keeps its own trip-count parameter.

use metron_symbolic::{AffineExpr, Bound, Loop};
use serde_json::Value;

use super::{binary, children, decl_name, init_of, kind, step_of, strip, Helpers};

/// A `while`/`do` loop in the shape of a `for` statement's children (clang's: init,
/// condition variable, condition, step, body), whether the body runs before the first
/// test, and the name to give the counter when it is a parameter counted down in place
/// (`while (n--)`: the loop's counter and the size `n` it starts from are two names).
pub struct WhileAsFor {
    pub children: Vec<Value>,
    pub do_while: bool,
    pub counter: Option<String>,
}

/// `node` (a WhileStmt or DoStmt) as a `for` loop, given the statements before it in its
/// block and the function's parameters; `None` when it is not one.
pub fn as_for(
    node: &Value,
    before: &[Value],
    parameters: &[String],
    helpers: &Helpers,
) -> Option<WhileAsFor> {
    let (cond, body, do_while) = match (kind(node), children(node)) {
        ("WhileStmt", [cond, body]) => (cond, body, false),
        ("DoStmt", [body, cond]) => (cond, body, true),
        _ => return None,
    };
    if !do_while {
        if let Some(w) = counting_while(cond, body, before, parameters, helpers) {
            return Some(w);
        }
    }
    let statements = match kind(body) {
        "CompoundStmt" => children(body),
        _ => std::slice::from_ref(body),
    };
    let (op, l, r) = binary(cond)?;
    matches!(op, "<" | "<=" | ">" | ">=" | "!=").then_some(())?;
    let (var, step) = [l, r].into_iter().find_map(|side| {
        let var = decl_name(side)?;
        let steps: Vec<&Value> = statements
            .iter()
            .filter(|s| step_of(s, &var).is_some())
            .collect();
        match steps.as_slice() {
            [one] => Some((var, (*one).clone())),
            _ => None,
        }
    })?;
    // The step is the body's only write of the counter, and every pass reaches it.
    (writes(body, &var) == 1 && !leaves_early(body)).then_some(())?;
    let init = before.iter().rev().find(|s| writes(s, &var) > 0)?;
    init_of(init, helpers)?;
    let children = vec![init.clone(), Value::Null, cond.clone(), step, body.clone()];
    Some(WhileAsFor {
        children,
        do_while,
        counter: None,
    })
}

/// `while (n--)`, `while (k-- > lo)`: the condition counts the counter down as it tests
/// it, and the body never writes it. The counter starts from the last statement before the
/// loop that sets it or, with none, from the parameter of its name.
fn counting_while(
    cond: &Value,
    body: &Value,
    before: &[Value],
    parameters: &[String],
    helpers: &Helpers,
) -> Option<WhileAsFor> {
    let (var, limit, strict) = counting_down(cond)?;
    (writes(body, &var) == 0 && !leaves_early(body) && !controls(body, &var)).then_some(())?;
    let (start, counter) = match before.iter().rev().find(|s| writes(s, &var) > 0) {
        Some(init) => {
            init_of(init, helpers)?;
            (initial_value(init)?.clone(), None)
        }
        None if parameters.contains(&var) => (decl_ref(&var), Some(format!("{var}'"))),
        None => return None,
    };
    let children = counted_down(&var, start, limit, strict, body);
    Some(WhileAsFor {
        children,
        do_while: false,
        counter,
    })
}

/// `for (unsigned i = n; i-- > 0;)`: a `for` loop without a step whose condition counts
/// down, as the `for` loop with the step written out.
pub fn counting_for(inner: &[Value]) -> Option<Vec<Value>> {
    let [init, _, cond, step, body] = inner else {
        return None;
    };
    (kind(step).is_empty()).then_some(())?;
    let (var, limit, strict) = counting_down(cond)?;
    let start = initial_value(init)?;
    (writes(init, &var) == 1 && writes(body, &var) == 0 && !leaves_early(body)).then_some(())?;
    Some(counted_down(&var, start.clone(), limit, strict, body))
}

/// The counter a condition counts down, the limit it compares with, and whether the body
/// sees values strictly above it: `v--` and `v-- != c` / `v-- > c` run the body with
/// `v >= c` (the old value was above `c`); `--v > c` with `v > c`.
fn counting_down(cond: &Value) -> Option<(String, Value, bool)> {
    let cond = strip(cond);
    let post = |v: &Value| -> Option<(String, bool)> {
        let v = strip(v);
        (kind(v) == "UnaryOperator" && v.get("opcode")?.as_str()? == "--").then_some(())?;
        let postfix = v.get("isPostfix").and_then(Value::as_bool).unwrap_or(false);
        Some((decl_name(children(v).first()?)?, !postfix))
    };
    if let Some((var, prefix)) = post(cond) {
        return Some((var, int(0), prefix));
    }
    let (op, l, r) = binary(cond)?;
    let (var, prefix) = post(l)?;
    match (op, prefix) {
        (">" | "!=", false) => Some((var, r.clone(), false)),
        (">", true) => Some((var, r.clone(), true)),
        _ => None,
    }
}

/// `for (var = start - 1; var >= limit; var--)` (or `var > limit`) around `body`.
fn counted_down(var: &str, start: Value, limit: Value, strict: bool, body: &Value) -> Vec<Value> {
    let op = if strict { ">" } else { ">=" };
    let init = serde_json::json!({"kind": "DeclStmt", "inner": [
        {"kind": "VarDecl", "name": var, "inner": [bin("-", start, int(1))]}
    ]});
    let step = serde_json::json!({"kind": "UnaryOperator", "opcode": "--", "isPostfix": true,
        "inner": [decl_ref(var)]});
    vec![
        init,
        Value::Null,
        bin(op, decl_ref(var), limit),
        step,
        body.clone(),
    ]
}

/// The value a `T v = e;` or `v = e;` statement gives its variable.
pub fn initial_value(init: &Value) -> Option<&Value> {
    match kind(init) {
        "DeclStmt" => children(children(init).first()?).first(),
        _ => binary(init)
            .filter(|(op, _, _)| *op == "=")
            .map(|(_, _, r)| r),
    }
}

/// Whether a condition or loop bound in `body` names `var` (the counter renamed away from
/// a parameter would then be read as the parameter).
fn controls(body: &Value, var: &str) -> bool {
    match kind(body) {
        "IfStmt" | "ConditionalOperator" | "ForStmt" | "WhileStmt" | "DoStmt" => names(body, var),
        _ => children(body).iter().any(|c| controls(c, var)),
    }
}

fn names(v: &Value, var: &str) -> bool {
    decl_name(v).as_deref() == Some(var) || children(v).iter().any(|c| names(c, var))
}

fn decl_ref(name: &str) -> Value {
    serde_json::json!({"kind": "DeclRefExpr", "referencedDecl": {"name": name}})
}

fn int(v: i64) -> Value {
    serde_json::json!({"kind": "IntegerLiteral", "value": v.to_string()})
}

fn bin(op: &str, l: Value, r: Value) -> Value {
    serde_json::json!({"kind": "BinaryOperator", "opcode": op, "inner": [l, r]})
}

/// A `do` loop's body runs once before the test: the loop runs while the counter has not
/// passed `end`, and at least once (`i < max(n, start + 1)` for `<` counting up).
pub fn at_least_once(mut l: Loop) -> Option<Loop> {
    let [start] = (match &l.start {
        Bound::Max(v) | Bound::Min(v) => v.as_slice(),
    }) else {
        return None;
    };
    // The bound one step past the start, on the side the loop counts towards.
    let once = match (l.stride > 0, l.end_inclusive) {
        (true, false) => start.plus_scaled(&AffineExpr::constant(1), 1).ok()?,
        (false, false) => start.plus_scaled(&AffineExpr::constant(1), -1).ok()?,
        (_, true) => start.clone(),
    };
    l.end = match (l.end, l.stride > 0) {
        (Bound::Max(mut v), true) => {
            v.push(once);
            Bound::Max(v)
        }
        (Bound::Min(mut v), false) => {
            v.push(once);
            Bound::Min(v)
        }
        (Bound::Max(v), false) if v.len() == 1 => Bound::Min(vec![v[0].clone(), once]),
        (Bound::Min(v), true) if v.len() == 1 => Bound::Max(vec![v[0].clone(), once]),
        _ => return None,
    };
    Some(l)
}

/// How many times `v` writes `var` (assignments, compound assignments, `++`/`--`), or
/// takes its address (then anything may write it: counted as two).
pub fn writes(v: &Value, var: &str) -> usize {
    let target = |t: &Value| decl_name(t).as_deref() == Some(var);
    let own = match kind(v) {
        // A declaration writes only with an initialiser (`int i, m;` does not).
        "DeclStmt" => children(v)
            .iter()
            .filter(|d| d.get("name").and_then(Value::as_str) == Some(var))
            .filter(|d| !children(d).is_empty())
            .count(),
        "BinaryOperator" if v.get("opcode").and_then(Value::as_str) == Some("=") => {
            children(v).first().map_or(0, |t| usize::from(target(t)))
        }
        "CompoundAssignOperator" => children(v).first().map_or(0, |t| usize::from(target(t))),
        "UnaryOperator" => {
            let op = v.get("opcode").and_then(Value::as_str).unwrap_or("");
            let on_var = children(v).first().is_some_and(|t| target(strip(t)));
            match op {
                "++" | "--" if on_var => 1,
                "&" if on_var => 2,
                _ => 0,
            }
        }
        _ => 0,
    };
    own + children(v).iter().map(|c| writes(c, var)).sum::<usize>()
}

/// Whether a pass can end before the step: `break`, `continue`, `return`, `goto` (a loop
/// nested inside may break out of itself, not out of this one).
pub fn leaves_early(v: &Value) -> bool {
    match kind(v) {
        "BreakStmt" | "ContinueStmt" | "ReturnStmt" | "GotoStmt" => true,
        "ForStmt" | "WhileStmt" | "DoStmt" => children(v).iter().any(returns),
        _ => children(v).iter().any(leaves_early),
    }
}

fn returns(v: &Value) -> bool {
    matches!(kind(v), "ReturnStmt" | "GotoStmt") || children(v).iter().any(returns)
}
