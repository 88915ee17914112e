//! Model-guided reordering of commutative operations (000 §7.1.3): the operands of a chain
//! `e1 + e2 + ... + ek` (or of `.*`) are permuted so that the minimal instruction tree has
//! fewer instruction blocks, e.g. `log(A) + B + C(1:N)` -> `log(A) + C(1:N) + B` (Fig. 7.4).
//! Applied only when the model predicts strictly fewer blocks on the chosen runtime. Note that
//! floating-point addition is not associative: results may differ in the last bits.

use std::collections::BTreeSet;

use crate::ast::{walk_stmts, Expr, ExprKind, Program, StmtKind};
use crate::classes::Classes;
use crate::classification::Classification;
use crate::instruction_tree::{chain_string, Context, InstructionTree};
use crate::passes::{finish, Note, Options, PassError, PassOutput};
use crate::resolve::Names;
use crate::rewrite::{Overlap, Rewriter};

const MAX_OPERANDS: usize = 6;

pub fn run(program: &Program, options: &Options) -> Result<Result<PassOutput, Overlap>, PassError> {
    let classification = Classification::builtin(&options.runtime)?;
    let user: BTreeSet<String> = program.functions.iter().map(|f| f.name.clone()).collect();
    let mut rw = Rewriter::default();
    let mut notes = Vec::new();
    for scope in program.scopes() {
        let names = Names::of_scope(&scope);
        let classes = Classes::of_scope(program, &scope);
        let cx = Context {
            classification: &classification,
            names: Some(&names),
            user_functions: user.clone(),
        };
        walk_stmts(scope.body, &mut |s| {
            let StmtKind::Assign { rhs, .. } = &s.kind else {
                return;
            };
            let root = rhs.unparen();
            let ExprKind::Binary { op, .. } = &root.kind else {
                return;
            };
            if op != "+" && op != ".*" {
                return;
            }
            let mut operands = Vec::new();
            flatten(root, op, &mut operands);
            if operands.len() < 3 || operands.len() > MAX_OPERANDS {
                return;
            }
            // Integer `+` saturates and rounds at each step, so it is not associative
            // (uint8: 200+100-100 is 155 or 200); single and unknown classes may be integers
            // or round differently. Only operands known to compute in double are regrouped.
            if let Some(bad) = operands
                .iter()
                .find(|e| !classes.expr(e).computes_in_double())
            {
                notes.push(Note {
                    line: s.span.line,
                    applied: false,
                    message: format!(
                        "not reordered: `{}` is not known to be double ({:?}); integer arithmetic is not associative",
                        program.text(bad.span),
                        classes.expr(bad)
                    ),
                });
                return;
            }
            let texts: Vec<&str> = operands.iter().map(|e| program.text(e.span)).collect();
            let cost = |order: &[usize]| -> Option<(usize, String)> {
                let text = order
                    .iter()
                    .map(|&k| texts[k])
                    .collect::<Vec<_>>()
                    .join(&format!(" {op} "));
                let chain = model_text(&text, &cx)?;
                Some((chain.len(), chain_string(&chain)))
            };
            let identity: Vec<usize> = (0..operands.len()).collect();
            let Some((base_len, base_chain)) = cost(&identity) else {
                return;
            };
            // Fewest blocks first, then the fewest operands moved (the smallest edit).
            let moved = |p: &[usize]| p.iter().enumerate().filter(|(k, &v)| *k != v).count();
            let mut best: Option<(usize, usize, Vec<usize>, String)> = None;
            permutations(&identity, &mut |p| {
                if let Some((len, chain)) = cost(p) {
                    let key = (len, moved(p));
                    let better = match &best {
                        None => len < base_len,
                        Some(b) => key < (b.0, b.1),
                    };
                    if better {
                        best = Some((len, key.1, p.to_vec(), chain));
                    }
                }
            });
            match best {
                Some((len, _, order, chain)) => {
                    let text = order
                        .iter()
                        .map(|&k| texts[k])
                        .collect::<Vec<_>>()
                        .join(&format!(" {op} "));
                    notes.push(Note {
                        line: s.span.line,
                        applied: true,
                        message: format!(
                            "reordered: chain {base_chain} ({base_len}) -> {chain} ({len})"
                        ),
                    });
                    rw.replace(root.span, text);
                }
                None => notes.push(Note {
                    line: s.span.line,
                    applied: false,
                    message: format!(
                        "no order of the {op} operands shortens the chain {base_chain} on {}",
                        classification.runtime
                    ),
                }),
            }
        });
    }
    Ok(finish("reorder", program, &rw, notes))
}

fn flatten<'e>(e: &'e Expr, op: &str, out: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::Binary { op: o, lhs, rhs } if o == op => {
            flatten(lhs, op, out);
            out.push(rhs);
        }
        _ => out.push(e),
    }
}

fn model_text(text: &str, cx: &Context) -> Option<Vec<crate::instruction_tree::ChainItem>> {
    let source = format!("__r = {text};\n");
    let program = crate::parse(&source, std::path::Path::new("<reorder>")).ok()?;
    let StmtKind::Assign { rhs, .. } = &program.statements.first()?.kind else {
        return None;
    };
    Some(InstructionTree::minimal(rhs, &program.source, cx).chain(cx))
}

/// Heap's algorithm over all orders of `items`.
fn permutations(items: &[usize], f: &mut dyn FnMut(&[usize])) {
    let mut a = items.to_vec();
    let n = a.len();
    let mut c = vec![0; n];
    f(&a);
    let mut i = 0;
    while i < n {
        if c[i] < i {
            if i % 2 == 0 {
                a.swap(0, i);
            } else {
                a.swap(c[i], i);
            }
            f(&a);
            c[i] += 1;
            i = 0;
        } else {
            c[i] = 0;
            i += 1;
        }
    }
}
