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
