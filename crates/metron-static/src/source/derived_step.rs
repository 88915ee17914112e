//! A `for` loop stepping by a parameter (`for (i = 0; i < n; i += stride)`): its trip count
//! K = max(0, ceil((n - start) / stride)) is no polynomial, so the loop is counted as
//! `K` unit steps of a fresh counter, K being a derived parameter (metron-symbolic's
//! `DerivedTrip`) computed from `n` and `stride` when the count is evaluated. The loop's own
//! counter is renamed, so that code reading it (an inner bound, an `if`) says it is unknown
//! instead of being counted as if `i` ran 0, 1, 2, ...

use metron_symbolic::{AffineExpr, Bound, DerivedTrip, Loop};
use serde_json::Value;

use super::{affine, binary, children, decl_name, init_of, kind, strip, Helpers};

/// The unit-step loop and K's definition, when the loop is `var = affine; var < affine (or
/// <=); var += parameter`.
pub fn derived_scop(inner: &[Value], line: u32, helpers: &Helpers) -> Option<(Loop, DerivedTrip)> {
    let [init, _, cond, inc, ..] = inner else {
        return None;
    };
    let (var, start) = init_of(init, helpers)?;
    let [start] = start.exprs() else { return None };
    let step = parameter_step(inc, &var)?;
    let (op, l, r) = binary(cond)?;
    let (inclusive, bound) = match (op, decl_name(l).as_deref() == Some(&var)) {
        ("<", true) => (false, affine(r)?),
        ("<=", true) => (true, affine(r)?),
        (">", false) if decl_name(r).as_deref() == Some(&var) => (false, affine(l)?),
        (">=", false) if decl_name(r).as_deref() == Some(&var) => (true, affine(l)?),
        _ => return None,
    };
    // K must not change while the loop runs: its inputs are not the loop's counter.
    let names: Vec<&String> = start.names().chain(bound.names()).collect();
    if names.contains(&&var) || step == var {
        return None;
    }
    let trip = DerivedTrip::new(
        format!("trip_{line}"),
        start.clone(),
        bound,
        step,
        inclusive,
    );
    let scop = Loop {
        var: format!("__{var}_step_{line}"),
        start: Bound::single(AffineExpr::constant(0)),
        end: Bound::single(AffineExpr::var(&trip.name)),
        end_inclusive: false,
        stride: 1,
        residues: Vec::new(),
    };
    Some((scop, trip))
}

/// `var += p` or `var = var + p` with `p` a variable: its name.
fn parameter_step(inc: &Value, var: &str) -> Option<String> {
    let v = strip(inc);
    let added = match kind(v) {
        "CompoundAssignOperator" if v.get("opcode")?.as_str()? == "+=" => {
            let [l, r] = children(v) else { return None };
            (decl_name(l)? == var).then_some(r)?
        }
        "BinaryOperator" => {
            let (op, l, r) = binary(v)?;
            (op == "=" && decl_name(l)? == var).then_some(())?;
            let (plus, a, b) = binary(r)?;
            (plus == "+").then_some(())?;
            match (decl_name(a), decl_name(b)) {
                (Some(x), Some(_)) if x == var => b,
                (Some(_), Some(y)) if y == var => a,
                _ => return None,
            }
        }
        _ => return None,
    };
    decl_name(added)
}
