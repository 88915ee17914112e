//! A `for` loop without an initialisation that goes on with the counter an earlier loop left
//! (`for (i = 0; i + 3 < n; i += 4) ...; for (; i < n; i++) ...`: the remainder of a loop
//! unrolled by hand), or that a plain assignment before it set. The first kind starts at
//! the earlier loop's exit value, a derived parameter (`metron_symbolic::ExitValue`).

use metron_symbolic::{Bound, ExitValue, Loop};
use serde_json::Value;

use super::while_loop::{initial_value, leaves_early, writes};
use super::{binary, decl_name, kind};

/// Where a loop without initialisation starts.
pub enum Start {
    /// A statement before it sets the counter (`i = 2 * k;`): the loop's own init.
    Set(Value),
    /// An earlier loop left it: the index of that loop in the model.
    After(usize),
}

/// The counter of a `for` loop (clang's children: init, condition variable, condition,
/// step, body) without an initialisation, and where it starts, from the statements before
/// it; `loop_of` finds the model's loop of an earlier `for` statement.
pub fn start_of(
    inner: &[Value],
    before: &[Value],
    loop_of: &dyn Fn(&Value) -> Option<usize>,
) -> Option<(String, Start)> {
    let [init, _, cond, step, _body, ..] = inner else {
        return None;
    };
    kind(init).is_empty().then_some(())?;
    let (_, l, r) = binary(cond)?;
    let var = [l, r]
        .into_iter()
        .filter_map(decl_name_of_side)
        .find(|v| super::step_of(step, v).is_some())?;
    let writer = before.iter().rev().find(|s| writes(s, &var) > 0)?;
    let start = match kind(writer) {
        "ForStmt" => {
            // A pass of the earlier loop that leaves early leaves the counter anywhere.
            (!super::children(writer).last().is_some_and(leaves_early)).then_some(())?;
            Start::After(loop_of(writer)?)
        }
        _ => {
            initial_value(writer)?;
            Start::Set(writer.clone())
        }
    };
    Some((var, start))
}

/// The counter named on one side of a comparison (`i`, `i + 3`).
fn decl_name_of_side(v: &Value) -> Option<String> {
    decl_name(v).or_else(|| {
        let (op, l, _) = binary(v)?;
        matches!(op, "+" | "-").then_some(())?;
        decl_name(l)
    })
}

/// The exit value of `earlier` (one affine start and end), named `name`.
pub fn exit_of(earlier: &Loop, name: String) -> Option<ExitValue> {
    let single = |b: &Bound| match b {
        Bound::Max(v) | Bound::Min(v) if v.len() == 1 => Some(v[0].clone()),
        _ => None,
    };
    earlier.residues.is_empty().then_some(())?;
    Some(ExitValue::new(
        name,
        single(&earlier.start)?,
        single(&earlier.end)?,
        earlier.stride,
        earlier.end_inclusive,
    ))
}

/// The init statement `var = name` that starts a loop at a derived value.
pub fn init_at(var: &str, name: &str) -> Value {
    serde_json::json!({"kind": "BinaryOperator", "opcode": "=", "inner": [
        {"kind": "DeclRefExpr", "referencedDecl": {"name": var}},
        {"kind": "DeclRefExpr", "referencedDecl": {"name": name}}
    ]})
}
