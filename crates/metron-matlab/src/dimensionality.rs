//! Dimensionality in Birkbeck's abstraction (000 §2.1.4, §6.4.1): every variable is a
//! scalar (1), a row (1,*), a column (*,1), or unknown (r_i: anything else or not known).

use std::collections::BTreeMap;

use crate::ast::{walk_stmts, Expr, ExprKind, Scope, StmtKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Dim {
    Scalar,
    Row,
    Column,
    Unknown,
}

impl Dim {
    fn join(self, other: Dim) -> Dim {
        if self == other {
            self
        } else {
            Dim::Unknown
        }
    }

    pub fn transposed(self) -> Dim {
        match self {
            Dim::Row => Dim::Column,
            Dim::Column => Dim::Row,
            d => d,
        }
    }
}

/// Functions whose result is a scalar whatever their arguments' shapes.
const SCALAR_FUNCTIONS: &[&str] = &[
    "numel", "length", "sum", "prod", "norm", "dot", "max", "min", "mean",
];

#[derive(Debug, Clone, Default)]
pub struct Dimensions {
    pub of: BTreeMap<String, Dim>,
}

impl Dimensions {
    /// Flow-insensitive facts for a scope: a variable keeps a shape only when every
    /// assignment of it gives that shape (element assignments `x(i) = ...` keep it).
    pub fn of_scope(scope: &Scope) -> Dimensions {
        let mut dims = Dimensions::default();
        if let Some(f) = scope.function {
            for p in &f.params {
                dims.of.insert(p.clone(), Dim::Unknown);
            }
        }
        // Two rounds so that `n = numel(x)` before `y = zeros(1, n)` settles.
        for _ in 0..2 {
            let mut next: BTreeMap<String, Dim> = BTreeMap::new();
            if let Some(f) = scope.function {
                for p in &f.params {
                    next.insert(p.clone(), Dim::Unknown);
                }
            }
            walk_stmts(scope.body, &mut |s| match &s.kind {
                StmtKind::Assign { lhs, multi, rhs } => {
                    for m in multi {
                        next.insert(m.clone(), Dim::Unknown);
                    }
                    if let ExprKind::Ident(name) = &lhs.unparen().kind {
                        let d = dims.expr(rhs);
                        let joined = next.get(name).map_or(d, |old| old.join(d));
                        next.insert(name.clone(), joined);
                    }
                }
                StmtKind::For { var, iter, .. } => {
                    let d = if matches!(iter.unparen().kind, ExprKind::Range { .. }) {
                        Dim::Scalar
                    } else {
                        Dim::Unknown
                    };
                    let joined = next.get(var).map_or(d, |old| old.join(d));
                    next.insert(var.clone(), joined);
                }
                _ => {}
            });
            dims.of = next;
        }
        dims
    }

    pub fn get(&self, name: &str) -> Dim {
        self.of.get(name).copied().unwrap_or(Dim::Unknown)
    }

    /// The shape of an expression's value.
    pub fn expr(&self, e: &Expr) -> Dim {
        match &e.kind {
            ExprKind::Number(_) | ExprKind::End => Dim::Scalar,
            ExprKind::Ident(n) => self.get(n),
            ExprKind::Paren(x) => self.expr(x),
            ExprKind::Range { .. } => Dim::Row,
            ExprKind::Unary { operand, .. } => self.expr(operand),
            ExprKind::Postfix { operand, .. } => self.expr(operand).transposed(),
            ExprKind::Binary { lhs, rhs, .. } => match (self.expr(lhs), self.expr(rhs)) {
                (Dim::Scalar, d) | (d, Dim::Scalar) => d,
                (a, b) => a.join(b),
            },
            ExprKind::Apply { name, args } => match name.as_str() {
                "zeros" | "ones" | "rand" | "randn" if args.len() == 2 => {
                    let one =
                        |a: &Expr| matches!(a.unparen().kind, ExprKind::Number(x) if x == 1.0);
                    match (one(&args[0]), one(&args[1])) {
                        (true, true) => Dim::Scalar,
                        (true, false) => Dim::Row,
                        (false, true) => Dim::Column,
                        _ => Dim::Unknown,
                    }
                }
                "linspace" => Dim::Row,
                "size" if args.len() == 2 => Dim::Scalar,
                n if SCALAR_FUNCTIONS.contains(&n) && args.len() == 1 => {
                    if n == "numel" || n == "length" || self.expr(&args[0]) != Dim::Unknown {
                        Dim::Scalar
                    } else {
                        Dim::Unknown
                    }
                }
                n if self.of.contains_key(n) => {
                    // An index into a variable: a vector indexed by a vector keeps its
                    // orientation; scalar indices give a scalar.
                    let base = self.get(n);
                    let idx: Vec<Dim> = args.iter().map(|a| self.expr(a)).collect();
                    if idx.iter().all(|d| *d == Dim::Scalar) {
                        Dim::Scalar
                    } else if args.len() == 1 && matches!(base, Dim::Row | Dim::Column) {
                        base
                    } else {
                        Dim::Unknown
                    }
                }
                _ => {
                    // Element-wise built-ins keep the shape of their first argument.
                    match args.first() {
                        Some(a)
                            if crate::classification::Classification::builtin("r2018b")
                                .map(|c| c.is_builtin(name))
                                .unwrap_or(false) =>
                        {
                            self.expr(a)
                        }
                        _ => Dim::Unknown,
                    }
                }
            },
            ExprKind::Matrix(rows) => match (rows.len(), rows.first().map(|r| r.len())) {
                (1, Some(1)) => self.expr(&rows[0][0]),
                (1, Some(_)) if rows[0].iter().all(|x| self.expr(x) == Dim::Scalar) => Dim::Row,
                (n, _)
                    if n > 1
                        && rows
                            .iter()
                            .all(|r| r.len() == 1 && self.expr(&r[0]) == Dim::Scalar) =>
                {
                    Dim::Column
                }
                _ => Dim::Unknown,
            },
            _ => Dim::Unknown,
        }
    }
}
