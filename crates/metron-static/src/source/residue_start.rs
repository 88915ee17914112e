//! A `for` loop whose start or bound holds a small residue of the outer counters (red-black
//! ordering: `for (j = 1 + (i + colour) % 2; j < n - 1; j += 2)`). `e % k` is no affine
//! expression, but in each residue r it is the constant r: each `e % k` becomes a symbol of
//! its own, `res_LINE_N`, and the loop carries the residues (metron-symbolic's `Residue`),
//! so that every count of a nest holding it is split per residue (004 §III.C.2 counts affine
//! nests; the split is metron-symbolic's `residue`, shared with metron memory).
//!
//! The count is exact while `e >= 0`: C's `%` truncates, the split's remainder is in `[0, k)`.

use metron_symbolic::{AffineExpr, Loop, Residue};
use serde_json::Value;

use super::{affine, binary, children, for_scop, kind, strip, Helpers};

/// Largest modulus split (k residues per loop, the nest's parts multiply).
const MAX_MODULUS: i64 = 8;

/// The loop with each `affine % k` of its init, condition and step (2 <= k <= 8) replaced by
/// a residue symbol, when the rest is an affine `for`.
pub fn residue_scop(inner: &[Value], line: u32, helpers: &Helpers) -> Option<Loop> {
    let mut residues = Vec::new();
    let head: Vec<Value> = inner
        .iter()
        .take(4)
        .map(|v| with_symbols(v, line, &mut residues))
        .collect();
    if residues.is_empty() {
        return None;
    }
    let mut scop = for_scop(&head, &[], helpers).ok()?;
    scop.residues = residues;
    Some(scop)
}

/// `v` with every `affine % k` replaced by a reference to a residue symbol (the same
/// expression twice is one symbol), recorded in `residues`.
fn with_symbols(v: &Value, line: u32, residues: &mut Vec<Residue>) -> Value {
    if let Some((expr, modulus)) = remainder(v) {
        let known = residues
            .iter()
            .find(|r| r.expr == expr && r.modulus == modulus);
        let symbol = match known {
            Some(r) => r.symbol.clone(),
            None => {
                let symbol = format!("res_{line}_{}", residues.len());
                residues.push(Residue {
                    symbol: symbol.clone(),
                    expr,
                    modulus,
                });
                symbol
            }
        };
        return serde_json::json!({
            "kind": "DeclRefExpr",
            "referencedDecl": { "kind": "VarDecl", "name": symbol },
        });
    }
    let mut out = v.clone();
    if let Some(inner) = out.get_mut("inner").and_then(Value::as_array_mut) {
        for c in inner.iter_mut() {
            *c = with_symbols(c, line, residues);
        }
    }
    out
}

/// `affine % k` with a constant 2 <= k <= 8.
fn remainder(v: &Value) -> Option<(AffineExpr, i64)> {
    let s = strip(v);
    if kind(s) != "BinaryOperator" || s.get("opcode")?.as_str()? != "%" {
        return None;
    }
    let (_, l, r) = binary(s)?;
    let k = affine(r).filter(|k| k.terms.is_empty())?.constant;
    ((2..=MAX_MODULUS).contains(&k) && !children(s).is_empty()).then_some(())?;
    Some((affine(l)?, k))
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::source::fixtures::{decl, op};

    fn int(v: i64) -> Value {
        serde_json::json!({"kind": "IntegerLiteral", "value": v.to_string()})
    }

    #[test]
    fn red_black_start_becomes_a_residue() {
        // for (j = 1 + (i + colour) % 2; j < n - 1; j += 2)
        let parity = op("%", op("+", decl("i"), decl("colour")), int(2));
        let init = op("=", decl("j"), op("+", int(1), parity));
        let cond = op("<", decl("j"), op("-", decl("n"), int(1)));
        let step = serde_json::json!({"kind": "CompoundAssignOperator", "opcode": "+=",
            "inner": [decl("j"), int(2)]});
        let inner = [init, Value::Null, cond, step];
        let scop = residue_scop(&inner, 19, &Helpers::default()).unwrap();
        assert_eq!(scop.residues.len(), 1);
        let r = &scop.residues[0];
        assert_eq!((r.symbol.as_str(), r.modulus), ("res_19_0", 2));
        assert_eq!(r.expr.to_string(), "colour + i");
        assert_eq!(scop.start.exprs()[0].to_string(), "res_19_0 + 1");
        assert_eq!(scop.stride, 2);
        // A divisor that is not a small constant stays unusable.
        let wide = op("%", decl("i"), int(64));
        let inner = [
            op("=", decl("j"), wide),
            Value::Null,
            inner[2].clone(),
            inner[3].clone(),
        ];
        assert!(residue_scop(&inner, 19, &Helpers::default()).is_none());
    }
}
