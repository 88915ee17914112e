//! Variables versus functions (000 §6.3). The grammar parses `a(i)` and `f(x)` alike as
//! `function_call`; a name is a variable in a scope when the scope assigns it, takes it as a
//! parameter, iterates over it or declares it global/persistent (MATLAB's own rule: a name
//! that is assigned anywhere in a function is a variable throughout it).

use std::collections::BTreeSet;

use crate::ast::{walk_stmts, ExprKind, Scope, Stmt, StmtKind};

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Names {
    pub variables: BTreeSet<String>,
}

impl Names {
    pub fn of_scope(scope: &Scope) -> Names {
        let mut variables = BTreeSet::new();
        if let Some(f) = scope.function {
            variables.extend(f.params.iter().cloned());
            variables.extend(f.outputs.iter().cloned());
        }
        variables.extend(assigned_names(scope.body));
        Names { variables }
    }

    pub fn with(variables: impl IntoIterator<Item = String>) -> Names {
        Names {
            variables: variables.into_iter().collect(),
        }
    }

    pub fn is_variable(&self, name: &str) -> bool {
        self.variables.contains(name)
    }
}

/// Names written by the statements (assignment targets, loop variables, declarations).
pub fn assigned_names(body: &[Stmt]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    walk_stmts(body, &mut |s| match &s.kind {
        StmtKind::Assign { lhs, multi, .. } => {
            out.extend(multi.iter().cloned());
            match &lhs.unparen().kind {
                ExprKind::Ident(n) | ExprKind::Apply { name: n, .. } => {
                    out.insert(n.clone());
                }
                _ => {}
            }
        }
        StmtKind::For { var, .. } => {
            out.insert(var.clone());
        }
        StmtKind::Declare { names } => out.extend(names.iter().cloned()),
        _ => {}
    });
    out
}

/// The argument lists of every call of function `name` in the scope (not when the scope has
/// a variable of that name).
pub fn calls_to<'a>(scope: &Scope<'a>, name: &str) -> Vec<&'a [crate::ast::Expr]> {
    if Names::of_scope(scope).is_variable(name) {
        return Vec::new();
    }
    let mut out = Vec::new();
    walk_stmts(scope.body, &mut |s| {
        let mut exprs = s.exprs();
        if let StmtKind::For { iter, .. } = &s.kind {
            exprs = vec![iter];
        }
        for e in exprs {
            e.walk(&mut |x| {
                if let ExprKind::Apply { name: n, args } = &x.kind {
                    if n == name {
                        out.push(args.as_slice());
                    }
                }
            });
        }
    });
    out
}

/// Facts a programmer states in a function's comments, one kind per line:
/// `% metron: scalar n m`, `% metron: double A B`, `% metron: row x` (pairs name, kind).
pub fn annotations(
    program: &crate::ast::Program,
    f: &crate::ast::Function,
) -> Vec<(String, String)> {
    let text = program.text(f.span);
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim_start();
        let Some(rest) = line
            .strip_prefix('%')
            .map(|r| r.trim_start())
            .and_then(|r| r.strip_prefix("metron:"))
        else {
            continue;
        };
        let mut words = rest
            .split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty());
        let Some(kind) = words.next() else { continue };
        for w in words {
            out.push((w.to_string(), kind.to_string()));
        }
    }
    out
}

/// Whether `f` can be called from outside the file: the first function of a function file.
pub fn is_entry(program: &crate::ast::Program, f: &crate::ast::Function) -> bool {
    program.statements.is_empty() && program.functions.first().is_some_and(|g| g.name == f.name)
}
