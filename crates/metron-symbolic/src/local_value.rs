//! A local variable that a function computes from its arguments before its loops and never
//! writes again (`m = n % 5;` in the reference BLAS, `int nm1 = n - 1;`): loop bounds and
//! conditions that name it are counted in it, and its value is computed from the arguments
//! when a count is evaluated, as [`crate::DerivedTrip`]'s is.

use serde::{Deserialize, Serialize};

use crate::derived_trip::{argument, DerivedTripError};

/// An integer expression in C's arithmetic: `/` and `%` truncate toward zero.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum IntExpr {
    Const(i64),
    Var(String),
    /// `+`, `-`, `*`, `/` or `%`, and its operands.
    Binary(char, Box<IntExpr>, Box<IntExpr>),
}

impl IntExpr {
    pub fn evaluate(&self, binding: &crate::Binding) -> Result<i64, DerivedTripError> {
        Ok(match self {
            IntExpr::Const(c) => *c,
            IntExpr::Var(v) => argument(v, binding)?,
            IntExpr::Binary(op, l, r) => {
                let (a, b) = (l.evaluate(binding)?, r.evaluate(binding)?);
                let undefined = || DerivedTripError::Undefined(format!("{self}"));
                match op {
                    '+' => a.checked_add(b),
                    '-' => a.checked_sub(b),
                    '*' => a.checked_mul(b),
                    '/' => a.checked_div(b),
                    '%' => a.checked_rem(b),
                    _ => None,
                }
                .ok_or_else(undefined)?
            }
        })
    }

    /// The names it reads.
    pub fn names(&self) -> Vec<&String> {
        match self {
            IntExpr::Const(_) => Vec::new(),
            IntExpr::Var(v) => vec![v],
            IntExpr::Binary(_, l, r) => l.names().into_iter().chain(r.names()).collect(),
        }
    }
}

impl std::fmt::Display for IntExpr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IntExpr::Const(c) => write!(f, "{c}"),
            IntExpr::Var(v) => write!(f, "{v}"),
            IntExpr::Binary(op, l, r) => write!(f, "({l} {op} {r})"),
        }
    }
}

/// A local's name and the expression that defines it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LocalValue {
    pub name: String,
    pub definition: String,
    pub expr: IntExpr,
}

impl LocalValue {
    pub fn new(name: String, expr: IntExpr) -> LocalValue {
        LocalValue {
            definition: expr.to_string(),
            name,
            expr,
        }
    }

    pub fn value(&self, binding: &crate::Binding) -> Result<i64, DerivedTripError> {
        self.expr.evaluate(binding)
    }

    pub fn inputs(&self) -> Vec<&String> {
        self.expr.names()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bin(op: char, l: IntExpr, r: IntExpr) -> IntExpr {
        IntExpr::Binary(op, Box::new(l), Box::new(r))
    }

    /// C's `/` and `%` truncate toward zero (C11 6.5.5): -7 / 2 = -3, -7 % 5 = -2.
    #[test]
    fn division_and_remainder_truncate_as_in_c() {
        let n = || IntExpr::Var("n".into());
        let m = LocalValue::new("m".into(), bin('%', n(), IntExpr::Const(5)));
        let half = LocalValue::new(
            "h".into(),
            bin('/', bin('-', n(), IntExpr::Const(1)), IntExpr::Const(2)),
        );
        for v in -12..13 {
            let b = crate::binding([("n", v)]);
            assert_eq!(m.value(&b), Ok(v % 5));
            assert_eq!(half.value(&b), Ok((v - 1) / 2));
        }
        assert_eq!(m.definition, "(n % 5)");
        let zero = LocalValue::new("z".into(), bin('/', n(), IntExpr::Const(0)));
        assert!(zero.value(&crate::binding([("n", 3)])).is_err());
    }
}
