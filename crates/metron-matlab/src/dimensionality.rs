//! Dimensionality in Birkbeck's abstraction (000 §2.1.4, §6.4.1): every variable is a
//! scalar (1), a row (1,*), a column (*,1), or unknown (r_i: anything else or not known).

use std::collections::BTreeMap;

use crate::ast::{walk_stmts, Expr, ExprKind, Program, Scope, StmtKind};

/// Names that must be scalars for the statements before the first compound statement (which
/// run before every loop) to succeed: size arguments of constructors (`zeros(1, n)`; a vector
/// size raises an error), and, backwards through single assignments there (`m = 3*n;
/// zeros(1, m)`), the names an element-wise expression of a scalar is made of.
fn proven_scalars(body: &[crate::ast::Stmt]) -> std::collections::BTreeSet<String> {
    let prelude: Vec<&crate::ast::Stmt> = body
        .iter()
        .take_while(|s| s.bodies().is_empty() && !matches!(s.kind, StmtKind::Other(_)))
        .collect();
    let mut proven = std::collections::BTreeSet::new();
    for s in &prelude {
        for e in s.exprs() {
            e.walk(&mut |x| {
                if let ExprKind::Apply { name, args } = &x.kind {
                    let constructor = matches!(
                        name.as_str(),
                        "zeros" | "ones" | "rand" | "randn" | "false" | "true" | "eye"
                    );
                    if constructor && args.len() >= 2 {
                        for a in args {
                            scalar_operands(a, &mut proven);
                        }
                    }
                }
            });
        }
    }
    // Backwards: `v = e` with v proven scalar and assigned once proves e's operands.
    for s in prelude.iter().rev() {
        if let StmtKind::Assign { lhs, rhs, multi } = &s.kind {
            if let ExprKind::Ident(v) = &lhs.unparen().kind {
                let once = body_assignments(body, v) == 1;
                if multi.is_empty() && once && proven.contains(v) {
                    scalar_operands(rhs, &mut proven);
                }
            }
        }
    }
    proven
}

fn body_assignments(body: &[crate::ast::Stmt], v: &str) -> usize {
    let mut n = 0;
    walk_stmts(body, &mut |s| {
        if let StmtKind::Assign { lhs, multi, .. } = &s.kind {
            let hit = multi.iter().any(|m| m == v)
                || matches!(&lhs.unparen().kind, ExprKind::Ident(x) | ExprKind::Apply { name: x, .. } if x == v);
            n += usize::from(hit);
        }
        if let StmtKind::For { var, .. } = &s.kind {
            n += usize::from(var == v);
        }
    });
    n
}

/// The names in `e` that are scalars whenever `e` is: operands of element-wise operators,
/// and of `*` or `/` by a number (a matrix product of two vectors can be a scalar: not those).
fn scalar_operands(e: &Expr, out: &mut std::collections::BTreeSet<String>) {
    match &e.kind {
        ExprKind::Ident(n) => {
            out.insert(n.clone());
        }
        ExprKind::Paren(x) => scalar_operands(x, out),
        ExprKind::Unary { op, operand } if op == "-" || op == "+" => scalar_operands(operand, out),
        ExprKind::Binary { op, lhs, rhs } => match op.as_str() {
            "+" | "-" | ".*" | "./" => {
                scalar_operands(lhs, out);
                scalar_operands(rhs, out);
            }
            "*" | "/" => {
                if matches!(rhs.unparen().kind, ExprKind::Number(_)) {
                    scalar_operands(lhs, out);
                } else if matches!(lhs.unparen().kind, ExprKind::Number(_)) {
                    scalar_operands(rhs, out);
                }
            }
            _ => {}
        },
        _ => {}
    }
}

/// `assert(isscalar(p))` names `p`.
fn asserted_scalar(e: &Expr) -> Option<String> {
    let ExprKind::Apply { name, args } = &e.kind else {
        return None;
    };
    let [arg, ..] = args.as_slice() else {
        return None;
    };
    let ExprKind::Apply {
        name: test,
        args: inner,
    } = &arg.unparen().kind
    else {
        return None;
    };
    match (name.as_str(), test.as_str(), inner.as_slice()) {
        ("assert", "isscalar", [x]) => match &x.unparen().kind {
            ExprKind::Ident(p) => Some(p.clone()),
            _ => None,
        },
        _ => None,
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Dim {
    Scalar,
    Row,
    Column,
    Unknown,
    /// Not settled yet, only while [`Dimensions::of_scope`] iterates (optimistic start:
    /// `h = 1; while ..., h = 2*h; end` keeps `h` a scalar). Never in a finished result.
    #[serde(skip)]
    Pending,
}

impl Dim {
    fn join(self, other: Dim) -> Dim {
        if self == Dim::Pending {
            other
        } else if other == Dim::Pending || self == other {
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
        Self::with_parameters(scope, BTreeMap::new())
    }

    /// [`Self::of_scope`] with the shapes of parameters known from the rest of the file: an
    /// annotation (`% metron: scalar n`), `assert(isscalar(n))` in the body, or the join of
    /// the shapes every call site in the file passes.
    pub fn of_scope_in(program: &Program, scope: &Scope) -> Dimensions {
        let Some(f) = scope.function else {
            return Self::of_scope(scope);
        };
        let mut known: BTreeMap<String, Dim> = BTreeMap::new();
        let mut joined: Vec<Option<Dim>> = vec![None; f.params.len()];
        for other in program.scopes() {
            if other.function.is_some_and(|g| g.name == f.name) {
                continue;
            }
            let caller = Dimensions::of_scope(&other);
            for call in crate::resolve::calls_to(&other, &f.name) {
                for (k, slot) in joined.iter_mut().enumerate() {
                    let d = call.get(k).map_or(Dim::Unknown, |a| caller.expr(a));
                    *slot = Some(slot.map_or(d, |old| old.join(d)));
                }
            }
        }
        // Only local functions are called from nowhere but this file.
        let local = !crate::resolve::is_entry(program, f);
        for (p, d) in f.params.iter().zip(joined).filter(|_| local) {
            if let Some(d) = d.filter(|d| *d != Dim::Unknown) {
                known.insert(p.clone(), d);
            }
        }
        walk_stmts(scope.body, &mut |s| {
            if let StmtKind::Expr(e) = &s.kind {
                if let Some(p) = asserted_scalar(e) {
                    known.insert(p, Dim::Scalar);
                }
            }
        });
        for p in proven_scalars(scope.body) {
            if f.params.contains(&p) {
                known.insert(p, Dim::Scalar);
            }
        }
        for (name, kind) in crate::resolve::annotations(program, f) {
            let d = match kind.as_str() {
                "scalar" => Dim::Scalar,
                "row" => Dim::Row,
                "column" => Dim::Column,
                _ => continue,
            };
            known.insert(name, d);
        }
        known.retain(|p, _| f.params.contains(p));
        Self::with_parameters(scope, known)
    }

    fn with_parameters(scope: &Scope, known: BTreeMap<String, Dim>) -> Dimensions {
        let mut dims = Dimensions::default();
        let param = |p: &String| known.get(p).copied().unwrap_or(Dim::Unknown);
        if let Some(f) = scope.function {
            for p in &f.params {
                dims.of.insert(p.clone(), param(p));
            }
        }
        for n in crate::resolve::assigned_names(scope.body) {
            dims.of.entry(n).or_insert(Dim::Pending);
        }
        // Iterate to the fixpoint from the optimistic start (shapes only grow to Unknown).
        for _ in 0..8 {
            let mut next: BTreeMap<String, Dim> = BTreeMap::new();
            if let Some(f) = scope.function {
                for p in &f.params {
                    next.insert(p.clone(), param(p));
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
            let settled = next == dims.of;
            dims.of = next;
            if settled {
                break;
            }
        }
        for d in dims.of.values_mut() {
            if *d == Dim::Pending {
                *d = Dim::Unknown;
            }
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
                (Dim::Pending, d) | (d, Dim::Pending) => d,
                (Dim::Scalar, d) | (d, Dim::Scalar) => d,
                (a, b) => a.join(b),
            },
            ExprKind::Apply { name, args } => match name.as_str() {
                // Constructors: the first two arguments are the size; a trailing class name
                // (`zeros(1, n, 'int16')`) does not change the shape (a generator find:
                // `false(1, N)` was taken as element-wise, hence scalar).
                "zeros" | "ones" | "rand" | "randn" | "false" | "true" | "nan" | "NaN" | "inf"
                | "Inf"
                    if args.len() >= 2
                        && args[2..].iter().all(|a| matches!(a.kind, ExprKind::Str))
                        && !self.of.contains_key(name) =>
                {
                    let one =
                        |a: &Expr| matches!(a.unparen().kind, ExprKind::Number(x) if x == 1.0);
                    match (one(&args[0]), one(&args[1])) {
                        (true, true) => Dim::Scalar,
                        (true, false) => Dim::Row,
                        (false, true) => Dim::Column,
                        _ => Dim::Unknown,
                    }
                }
                "zeros" | "ones" | "rand" | "randn" | "false" | "true" | "nan" | "NaN" | "inf"
                | "Inf"
                    if !self.of.contains_key(name) =>
                {
                    // One size argument (`zeros(n)`) is a square matrix, or anything else.
                    match args.as_slice() {
                        [] => Dim::Scalar,
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
