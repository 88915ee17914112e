//! Class inference (what MATLAB calls a value's class: double, single, int*, logical, char).
//! Passes that regroup arithmetic need it: integer arithmetic saturates and rounds at every
//! operation, so `(a+b)+c` and `a+(b+c)` differ for int8 (100+100-100 is 27 or 100), and a
//! loop that accumulates into an integer rounds at every step where `s + sum(x)` rounds once.
//! Flow-insensitive per scope, like [`crate::dimensionality`]: a variable has a class only
//! when every assignment gives it that class. Parameters take the class their call sites in
//! the same file pass, or the one an annotation gives (`% metron: double A B`).

use std::collections::BTreeMap;

use crate::ast::{walk_stmts, Expr, ExprKind, Program, Scope, StmtKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    Double,
    Single,
    Integer,
    Logical,
    Char,
    Unknown,
    /// Not settled yet (optimistic start of the fixpoint: `s = 0; s = s + x(i)` is double).
    Pending,
}

impl Class {
    fn join(self, other: Class) -> Class {
        if self == Class::Pending {
            other
        } else if other == Class::Pending || self == other {
            self
        } else {
            Class::Unknown
        }
    }

    /// Values whose arithmetic is done in double precision (logical and char promote).
    pub fn computes_in_double(self) -> bool {
        matches!(self, Class::Double | Class::Logical | Class::Char)
    }

    /// The class of `a op b` for an arithmetic operator.
    fn arithmetic(a: Class, b: Class) -> Class {
        match (a, b) {
            (Class::Pending, x) | (x, Class::Pending) => x,
            (Class::Unknown, _) | (_, Class::Unknown) => Class::Unknown,
            (Class::Integer, _) | (_, Class::Integer) => Class::Integer,
            (Class::Single, _) | (_, Class::Single) => Class::Single,
            _ => Class::Double,
        }
    }
}

const INTEGER_TYPES: &[&str] = &[
    "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
];

/// Built-ins whose result is double for double (or logical/char) arguments.
const DOUBLE_BUILTINS: &[&str] = &[
    "zeros",
    "ones",
    "rand",
    "randn",
    "eye",
    "linspace",
    "numel",
    "length",
    "size",
    "pi",
    "Inf",
    "inf",
    "NaN",
    "nan",
    "sqrt",
    "exp",
    "log",
    "log2",
    "log10",
    "sin",
    "cos",
    "tan",
    "atan",
    "atan2",
    "asin",
    "acos",
    "sinh",
    "cosh",
    "tanh",
    "abs",
    "floor",
    "ceil",
    "round",
    "fix",
    "mod",
    "rem",
    "sum",
    "prod",
    "cumsum",
    "cumprod",
    "max",
    "min",
    "mean",
    "norm",
    "dot",
    "sign",
    "power",
    "erf",
    "erfc",
    "hypot",
    "double",
    "mtimes",
    "plus",
    "minus",
    "times",
    "rdivide",
    "accumarray",
    "find",
    "colon",
    "realmax",
    "eps",
    "var",
    "std",
    "triu",
    "tril",
    "reshape",
    "repmat",
    "diag",
    "transpose",
    "ctranspose",
    "magic",
    "cumsum",
    "complex",
];

/// Classes of a scope's variables.
#[derive(Debug, Clone, Default)]
pub struct Classes {
    pub of: BTreeMap<String, Class>,
    /// One-assignment user functions of the file (parameters, right-hand side): a call's
    /// class is its body's for the arguments' classes.
    functions: BTreeMap<String, (Vec<String>, Expr)>,
}

fn small_functions(program: &Program) -> BTreeMap<String, (Vec<String>, Expr)> {
    let mut out = BTreeMap::new();
    for f in &program.functions {
        if let ([stmt], [output]) = (f.body.as_slice(), f.outputs.as_slice()) {
            if let StmtKind::Assign { lhs, rhs, multi } = &stmt.kind {
                if multi.is_empty()
                    && matches!(&lhs.unparen().kind, ExprKind::Ident(n) if n == output)
                {
                    out.insert(f.name.clone(), (f.params.clone(), rhs.clone()));
                }
            }
        }
    }
    out
}

impl Classes {
    pub fn of_scope(program: &Program, scope: &Scope) -> Classes {
        let params = scope
            .function
            .map(|f| parameter_classes(program, f))
            .unwrap_or_default();
        Self::solve(program, scope, params)
    }

    fn solve(program: &Program, scope: &Scope, params: BTreeMap<String, Class>) -> Classes {
        let mut classes = Classes {
            of: params.clone(),
            functions: small_functions(program),
        };
        for n in crate::resolve::assigned_names(scope.body) {
            classes.of.entry(n).or_insert(Class::Pending);
        }
        // Iterate to the fixpoint (classes only grow towards Unknown); a bound for safety.
        for _ in 0..8 {
            let mut next = params.clone();
            walk_stmts(scope.body, &mut |s| match &s.kind {
                StmtKind::Assign { lhs, multi, rhs } => {
                    for m in multi {
                        next.insert(m.clone(), Class::Unknown);
                    }
                    let name = match &lhs.unparen().kind {
                        ExprKind::Ident(n) | ExprKind::Apply { name: n, .. } => n,
                        _ => return,
                    };
                    if !multi.is_empty() {
                        return;
                    }
                    let mut c = classes.expr(rhs);
                    // An element assignment converts double-computing values to the array's
                    // class, so into a double array they keep it double.
                    if matches!(lhs.unparen().kind, ExprKind::Apply { .. })
                        && c.computes_in_double()
                    {
                        c = Class::Double;
                    }
                    let joined = next.get(name).map_or(c, |old| old.join(c));
                    next.insert(name.clone(), joined);
                }
                StmtKind::For { var, iter, .. } => {
                    let c = classes.expr(iter);
                    let joined = next.get(var).map_or(c, |old| old.join(c));
                    next.insert(var.clone(), joined);
                }
                StmtKind::Declare { names } => {
                    for n in names {
                        next.insert(n.clone(), Class::Unknown);
                    }
                }
                _ => {}
            });
            let settled = next == classes.of;
            classes.of = next;
            if settled {
                break;
            }
        }
        for c in classes.of.values_mut() {
            if *c == Class::Pending {
                *c = Class::Unknown;
            }
        }
        classes
    }

    pub fn get(&self, name: &str) -> Class {
        self.of.get(name).copied().unwrap_or(Class::Unknown)
    }

    /// The class of an expression's value.
    pub fn expr(&self, e: &Expr) -> Class {
        match &e.kind {
            ExprKind::Number(_) | ExprKind::End | ExprKind::Colon => Class::Double,
            ExprKind::Str => Class::Char,
            ExprKind::Ident(n) => match self.of.get(n) {
                Some(c) => *c,
                None if n == "true" || n == "false" => Class::Logical,
                None if DOUBLE_BUILTINS.contains(&n.as_str()) => Class::Double,
                None => Class::Unknown,
            },
            ExprKind::Paren(x) | ExprKind::Postfix { operand: x, .. } => self.expr(x),
            ExprKind::Unary { op, operand } => match op.as_str() {
                "~" | "!" => Class::Logical,
                _ => match self.expr(operand) {
                    Class::Logical | Class::Char => Class::Double,
                    c => c,
                },
            },
            ExprKind::Range { start, step, stop } => {
                let mut c = Class::arithmetic(self.expr(start), self.expr(stop));
                if let Some(s) = step {
                    c = Class::arithmetic(c, self.expr(s));
                }
                c
            }
            ExprKind::Binary { op, lhs, rhs } => match op.as_str() {
                "==" | "~=" | "!=" | "<" | "<=" | ">" | ">=" | "&" | "|" | "&&" | "||" => {
                    Class::Logical
                }
                _ => Class::arithmetic(self.expr(lhs), self.expr(rhs)),
            },
            ExprKind::Apply { name, args } => self.apply(name, args),
            ExprKind::Matrix(rows) => {
                let mut c: Option<Class> = None;
                for x in rows.iter().flatten() {
                    let k = self.expr(x);
                    c = Some(match c {
                        None => k,
                        Some(old) if old == k => k,
                        Some(old) => Class::arithmetic(old, k),
                    });
                }
                c.unwrap_or(Class::Double)
            }
            ExprKind::Other(_) => Class::Unknown,
        }
    }

    fn apply(&self, name: &str, args: &[Expr]) -> Class {
        if let Some(c) = self.of.get(name) {
            return *c; // an index into a variable keeps its class
        }
        if let Some((params, body)) = self.functions.get(name) {
            let inner = Classes {
                of: params
                    .iter()
                    .zip(args)
                    .map(|(p, a)| (p.clone(), self.expr(a)))
                    .collect(),
                functions: BTreeMap::new(),
            };
            return if params.len() == args.len() {
                inner.expr(body)
            } else {
                Class::Unknown
            };
        }
        if INTEGER_TYPES.contains(&name) {
            return Class::Integer;
        }
        match name {
            "double" => return Class::Double,
            "single" => return Class::Single,
            "logical" | "true" | "false" | "isempty" | "any" | "all" | "isnan" | "isinf"
            | "isscalar" => return Class::Logical,
            _ => {}
        }
        if !DOUBLE_BUILTINS.contains(&name) {
            return Class::Unknown; // a user function or an unknown built-in
        }
        // A class name among the arguments (`zeros(n, 'int8')`) makes the result that class.
        if args.iter().any(|a| matches!(a.kind, ExprKind::Str)) {
            return Class::Unknown;
        }
        // Sizes and counts: double whatever the arguments' classes.
        if matches!(
            name,
            "zeros"
                | "ones"
                | "rand"
                | "randn"
                | "eye"
                | "numel"
                | "length"
                | "size"
                | "find"
                | "Inf"
                | "inf"
                | "NaN"
                | "nan"
        ) {
            return Class::Double;
        }
        args.iter()
            .map(|a| match self.expr(a) {
                k if k.computes_in_double() => Class::Double,
                k => k,
            })
            .fold(Class::Double, Class::arithmetic)
    }
}

/// Parameter classes: an annotation `% metron: double A B` in the function wins; otherwise
/// the join over the call sites in the file (positional), Unknown without call sites.
fn parameter_classes(program: &Program, f: &crate::ast::Function) -> BTreeMap<String, Class> {
    let mut out: BTreeMap<String, Class> = f
        .params
        .iter()
        .map(|p| (p.clone(), Class::Unknown))
        .collect();
    let mut joined: Vec<Option<Class>> = vec![None; f.params.len()];
    for scope in program.scopes() {
        if scope.function.is_some_and(|g| g.name == f.name) {
            continue;
        }
        let caller = Classes::caller(program, &scope);
        for call in crate::resolve::calls_to(&scope, &f.name) {
            for (k, slot) in joined.iter_mut().enumerate() {
                let c = call.get(k).map_or(Class::Unknown, |a| caller.expr(a));
                *slot = Some(slot.map_or(c, |old| old.join(c)));
            }
        }
    }
    let local = !crate::resolve::is_entry(program, f);
    for (p, c) in f.params.iter().zip(joined).filter(|_| local) {
        if let Some(c) = c {
            out.insert(p.clone(), c);
        }
    }
    for (name, annotated) in crate::resolve::annotations(program, f) {
        if let Some(c) = match annotated.as_str() {
            "double" => Some(Class::Double),
            "single" => Some(Class::Single),
            "logical" => Some(Class::Logical),
            t if INTEGER_TYPES.contains(&t) => Some(Class::Integer),
            _ => None,
        } {
            out.insert(name, c);
        }
    }
    out
}

impl Classes {
    /// Classes in a calling scope, without looking at its own callers (no recursion):
    /// its parameters are unknown unless annotated.
    fn caller(program: &Program, scope: &Scope) -> Classes {
        let mut params = BTreeMap::new();
        if let Some(f) = scope.function {
            for p in &f.params {
                params.insert(p.clone(), Class::Unknown);
            }
            for (name, t) in crate::resolve::annotations(program, f) {
                if t == "double" {
                    params.insert(name, Class::Double);
                }
            }
        }
        Self::solve(program, scope, params)
    }
}
