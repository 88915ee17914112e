//! Repacking of array slices (000 §5.2, Listing 5.3, §6.4.3): read slices on the right-hand
//! side of an assignment move into `tmp_*` variables before it, so that the JIT can merge the
//! remaining operations. Applied only where the execution model predicts a different chain
//! (or with `force`).

use std::collections::BTreeSet;

use crate::ast::{Expr, ExprKind, Program, StmtKind};
use crate::classification::Classification;
use crate::instruction_tree::{chain_string, ChainItem, Context, InstructionTree};
use crate::passes::{finish, Note, Options, PassError, PassOutput};
use crate::resolve::Names;
use crate::rewrite::{line_indent, Overlap, Rewriter};

pub fn run(program: &Program, options: &Options) -> Result<Result<PassOutput, Overlap>, PassError> {
    let classification = Classification::builtin(&options.runtime)?;
    let user: BTreeSet<String> = program.functions.iter().map(|f| f.name.clone()).collect();
    let mut rw = Rewriter::default();
    let mut notes = Vec::new();
    for scope in program.scopes() {
        let names = Names::of_scope(&scope);
        let mut taken: BTreeSet<String> = names.variables.clone();
        let cx = Context {
            classification: &classification,
            names: Some(&names),
            user_functions: user.clone(),
        };
        crate::ast::walk_stmts(scope.body, &mut |s| {
            let StmtKind::Assign { rhs, .. } = &s.kind else {
                return;
            };
            let slices = top_slices(rhs, &names);
            if slices.is_empty() {
                return;
            }
            let Some(indent) = line_indent(&program.source, s.span.start) else {
                notes.push(Note {
                    line: s.span.line,
                    applied: false,
                    message: "repack skipped: statement does not start its line".into(),
                });
                return;
            };
            let mut hoisted = String::new();
            let mut new_rhs = Rewriter::default();
            let base = rhs.span.start;
            for slice in &slices {
                let ExprKind::Apply { name, .. } = &slice.kind else {
                    continue;
                };
                let tmp = fresh(&format!("tmp_{}", name.to_lowercase()), &mut taken);
                hoisted.push_str(&format!("{tmp} = {};\n{indent}", program.text(slice.span)));
                let mut local = slice.span;
                local.start -= base;
                local.end -= base;
                new_rhs.replace(local, tmp);
            }
            let Ok(rhs_text) = new_rhs.apply(program.text(rhs.span)) else {
                return;
            };
            // The model decides: compare the chains before and after (000 §5.2 "Application").
            let before = InstructionTree::minimal(rhs, &program.source, &cx).chain(&cx);
            let after = chain_after(&rhs_text, &names, &slices, &taken, &cx);
            // Copies only move to their own statements; what matters is whether instruction
            // blocks merge (000 §5.2: "creation of new instruction blocks by merging").
            let changed = after
                .as_ref()
                .is_some_and(|a| chain_string(&blocks(a)) != chain_string(&blocks(&before)));
            if changed || options.force {
                rw.insert(s.span.start, hoisted);
                if scope.function.is_none() {
                    // A script's workspace is its output: the temporaries must not leak.
                    let tmps: Vec<String> = slices_tmp_names(&new_rhs);
                    let eol = program.source[s.span.end..]
                        .find('\n')
                        .map(|i| s.span.end + i + 1)
                        .unwrap_or(program.source.len());
                    let nl = if eol == program.source.len() && !program.source.ends_with('\n') {
                        "\n"
                    } else {
                        ""
                    };
                    rw.insert(eol, format!("{nl}{indent}clear {};\n", tmps.join(" ")));
                }
                rw.replace(rhs.span, rhs_text);
                notes.push(Note {
                    line: s.span.line,
                    applied: true,
                    message: format!(
                        "repacked {} slice(s); chain {} -> {}{}",
                        slices.len(),
                        chain_string(&before),
                        after.as_deref().map(chain_string).unwrap_or_default(),
                        if changed {
                            ""
                        } else {
                            " (forced: the model predicts no change)"
                        }
                    ),
                });
            } else {
                notes.push(Note {
                    line: s.span.line,
                    applied: false,
                    message: format!(
                        "repack not applied: the chain stays {} on {} (use --force)",
                        chain_string(&before),
                        classification.runtime
                    ),
                });
            }
        });
    }
    Ok(finish("repack", program, &rw, notes))
}

fn chain_after(
    rhs_text: &str,
    names: &Names,
    _slices: &[&Expr],
    taken: &BTreeSet<String>,
    cx: &Context,
) -> Option<Vec<ChainItem>> {
    let source = format!("__r = {rhs_text};\n");
    let program = crate::parse(&source, std::path::Path::new("<repack>")).ok()?;
    let mut vars = names.variables.clone();
    vars.extend(taken.iter().cloned());
    let names = Names::with(vars);
    let cx2 = Context {
        classification: cx.classification,
        names: Some(&names),
        user_functions: cx.user_functions.clone(),
    };
    let StmtKind::Assign { rhs, .. } = &program.statements.first()?.kind else {
        return None;
    };
    Some(InstructionTree::minimal(rhs, &program.source, &cx2).chain(&cx2))
}

fn slices_tmp_names(rw: &Rewriter) -> Vec<String> {
    rw.edits().iter().map(|e| e.text.clone()).collect()
}

fn blocks(chain: &[ChainItem]) -> Vec<ChainItem> {
    chain
        .iter()
        .filter(|c| matches!(c, ChainItem::Block { .. }))
        .cloned()
        .collect()
}

fn fresh(base: &str, taken: &mut BTreeSet<String>) -> String {
    let mut name = base.to_string();
    let mut k = 2;
    while taken.contains(&name) {
        name = format!("{base}{k}");
        k += 1;
    }
    taken.insert(name.clone());
    name
}

/// Read slices of variables in `e`, outermost only (a slice inside another's index stays).
fn top_slices<'e>(e: &'e Expr, names: &Names) -> Vec<&'e Expr> {
    let mut out = Vec::new();
    collect(e, names, &mut out);
    out
}

fn collect<'e>(e: &'e Expr, names: &Names, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::Apply { name, args } => {
            if names.is_variable(name) {
                // Only array slices (a range or `:` in the index) copy data; `x(i)` does not.
                let mut slicing = false;
                for a in args {
                    a.walk(&mut |x| {
                        slicing |= matches!(x.kind, ExprKind::Range { .. } | ExprKind::Colon)
                    });
                }
                if slicing {
                    out.push(e);
                }
            } else {
                args.iter().for_each(|a| collect(a, names, out));
            }
        }
        // Short circuit: the right operand of `&&`/`||` runs only when the left one lets
        // it, so its slices (which may be out of bounds exactly when the guard is false)
        // must not be evaluated before the statement.
        ExprKind::Binary { op, lhs, .. } if op == "&&" || op == "||" => collect(lhs, names, out),
        ExprKind::Binary { lhs, rhs, .. } => {
            collect(lhs, names, out);
            collect(rhs, names, out);
        }
        ExprKind::Unary { operand, .. } | ExprKind::Postfix { operand, .. } => {
            collect(operand, names, out)
        }
        ExprKind::Paren(x) => collect(x, names, out),
        _ => {}
    }
}
