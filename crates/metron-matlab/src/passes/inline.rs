//! Range-expression inlining (000 §5.4 "Code generation improvement", Fig. 5.4): a range held
//! in a variable (`I = a:s:b; ... A(I)`) goes back into the index (`A(a:s:b)`), so the slice
//! becomes a plain data copy. Safe when reaching definitions show that exactly the range's
//! definition reaches the use and that every variable the range reads has the same reaching
//! definitions at the use as at the range's definition.

use std::collections::BTreeSet;

use crate::ast::{walk_stmts, Expr, ExprKind, Program, Stmt, StmtKind};
use crate::dataflow::{Def, ReachingDefinitions};
use crate::passes::{finish, Note, PassOutput};
use crate::resolve::Names;
use crate::rewrite::{Overlap, Rewriter};

pub fn run(program: &Program) -> Result<PassOutput, Overlap> {
    let mut rw = Rewriter::default();
    let mut notes = Vec::new();
    for scope in program.scopes() {
        let names = Names::of_scope(&scope);
        let rd = ReachingDefinitions::of_scope(&scope);
        // Range definitions: statement start -> (variable, range expression).
        let mut ranges: Vec<(usize, String, &Expr)> = Vec::new();
        walk_stmts(scope.body, &mut |s| {
            if let StmtKind::Assign { lhs, rhs, multi } = &s.kind {
                if let (ExprKind::Ident(v), true) = (&lhs.unparen().kind, multi.is_empty()) {
                    if is_range(rhs, &names) && pure(rhs, &names) {
                        ranges.push((s.span.start, v.clone(), rhs));
                    }
                }
            }
        });
        walk_stmts(scope.body, &mut |s| {
            for e in index_uses(s, &names) {
                let ExprKind::Ident(v) = &e.kind else {
                    continue;
                };
                let reaching = rd.reaching(s.span.start, v);
                let Some((def_at, _, range)) = ranges.iter().find(|(at, name, _)| {
                    name == v && reaching == [Def { at: *at }].into_iter().collect::<BTreeSet<_>>()
                }) else {
                    continue;
                };
                let unchanged = read_vars(range)
                    .iter()
                    .all(|w| rd.reaching(*def_at, w) == rd.reaching(s.span.start, w));
                if !unchanged {
                    notes.push(Note {
                        line: e.span.line,
                        applied: false,
                        message: format!(
                            "{v} not inlined: a variable of its range changes in between"
                        ),
                    });
                    continue;
                }
                let text = program.text(range.unparen().span).to_string();
                notes.push(Note {
                    line: e.span.line,
                    applied: true,
                    message: format!("inlined range {v} = {text} into the index"),
                });
                rw.replace(e.span, text);
            }
        });
    }
    finish("inline", program, &rw, notes)
}

/// `a:s:b`, or Mc2Mc's `colon(a, b)` / `colon(a, s, b)` when no variable is named colon.
fn is_range(e: &Expr, names: &Names) -> bool {
    match &e.unparen().kind {
        ExprKind::Range { .. } => true,
        ExprKind::Apply { name, args } => {
            name == "colon" && !names.is_variable(name) && (args.len() == 2 || args.len() == 3)
        }
        _ => false,
    }
}

/// Only numbers, variables, arithmetic and size queries: nothing whose re-evaluation differs.
fn pure(e: &Expr, names: &Names) -> bool {
    let mut ok = true;
    e.walk(&mut |x| match &x.kind {
        ExprKind::Apply { name, .. } if names.is_variable(name) => ok = false,
        ExprKind::Apply { name, .. } => {
            // Mc2Mc's call style is arithmetic too (`colon(2, minus(n, 1))`).
            ok &= matches!(name.as_str(), "numel" | "length" | "size")
                || crate::linear::MC2MC_NAMES.contains(&name.as_str());
        }
        ExprKind::Number(_) | ExprKind::Ident(_) | ExprKind::Paren(_) | ExprKind::Range { .. } => {}
        ExprKind::Binary { op, .. } => ok &= matches!(op.as_str(), "+" | "-" | "*" | "/"),
        ExprKind::Unary { op, .. } => ok &= op == "-" || op == "+",
        _ => ok = false,
    });
    ok
}

fn read_vars(e: &Expr) -> Vec<String> {
    let mut out = Vec::new();
    e.walk(&mut |x| match &x.kind {
        ExprKind::Ident(n) => out.push(n.clone()),
        ExprKind::Apply { args, .. } => {
            for a in args {
                if let ExprKind::Ident(n) = &a.kind {
                    out.push(n.clone());
                }
            }
        }
        _ => {}
    });
    out
}

/// Whole-argument identifiers in indices of variables (`A(I)`, `B(I) = ...`, `C(I, 2)`).
fn index_uses<'a>(s: &'a Stmt, names: &Names) -> Vec<&'a Expr> {
    let mut out = Vec::new();
    for e in s.exprs() {
        e.walk(&mut |x| {
            if let ExprKind::Apply { name, args } = &x.kind {
                if names.is_variable(name) {
                    out.extend(args.iter().filter(|a| matches!(a.kind, ExprKind::Ident(_))));
                }
            }
        });
    }
    out
}
