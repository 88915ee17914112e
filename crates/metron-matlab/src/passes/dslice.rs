//! Dynamic array slicing (000 §5.1.1, Listing 5.1): read slices `A(from:step:to)` of vectors
//! become `d_slice(A, from, step, to)`, which returns `A` itself when the range covers it and
//! copies otherwise. The helper is appended to the file as a local function (function files
//! only; a script cannot hold one portably).

use crate::ast::{walk_stmts, Expr, ExprKind, Program, StmtKind};
use crate::dimensionality::{Dim, Dimensions};
use crate::passes::{finish, Note, PassOutput};
use crate::rewrite::{Overlap, Rewriter};

pub const HELPER: &str = "d_slice";

fn helper(with_end: bool) -> String {
    let close = if with_end { "end\n" } else { "" };
    format!(
        "\nfunction result = d_slice(array, from, step, to)\n\
         % Dynamic array slicing (000 Listing 5.1): no copy when the range covers the array.\n\
         if from == 1 && step == 1 && numel(array) == to\n  result = array;\nelse\n  result = array(from:step:to);\nend\n{close}"
    )
}

pub fn run(program: &Program) -> Result<PassOutput, Overlap> {
    let mut rw = Rewriter::default();
    let mut notes = Vec::new();
    if program.functions.is_empty() {
        notes.push(Note {
            line: 1,
            applied: false,
            message: "dslice: scripts cannot hold the d_slice helper; not applied".into(),
        });
        return finish("dslice", program, &rw, notes);
    }
    if program.function(HELPER).is_some() {
        notes.push(Note {
            line: 1,
            applied: false,
            message: "dslice: the file already defines d_slice; not applied again".into(),
        });
        return finish("dslice", program, &rw, notes);
    }
    for scope in program.scopes() {
        let dims = Dimensions::of_scope_in(program, &scope);
        walk_stmts(scope.body, &mut |s| {
            let StmtKind::Assign { rhs, .. } = &s.kind else {
                return;
            };
            visit(program, &dims, rhs, &mut rw, &mut notes);
        });
    }
    if !rw.is_empty() {
        let with_end = program
            .functions
            .iter()
            .all(|f| program.text(f.span).trim_end().ends_with("end"));
        let nl = if program.source.ends_with('\n') {
            ""
        } else {
            "\n"
        };
        rw.insert(program.source.len(), format!("{nl}{}", helper(with_end)));
    }
    finish("dslice", program, &rw, notes)
}

fn visit(program: &Program, dims: &Dimensions, e: &Expr, rw: &mut Rewriter, notes: &mut Vec<Note>) {
    if let ExprKind::Apply { name, args } = &e.kind {
        if dims.of.contains_key(name) {
            if let [arg] = args.as_slice() {
                if let ExprKind::Range { start, step, stop } = &arg.unparen().kind {
                    if matches!(dims.get(name), Dim::Row | Dim::Column) {
                        let part = |x: &Expr| {
                            // `end` means numel(A) for a linear index of a vector.
                            let t = program.text(x.span);
                            if matches!(x.kind, ExprKind::End) {
                                format!("numel({name})")
                            } else if mentions_end(x) {
                                format!("({})", t.replace("end", &format!("numel({name})")))
                            } else {
                                t.to_string()
                            }
                        };
                        let step_text = step.as_deref().map(part).unwrap_or_else(|| "1".into());
                        let text = format!(
                            "d_slice({name}, {}, {step_text}, {})",
                            part(start),
                            part(stop)
                        );
                        notes.push(Note {
                            line: e.span.line,
                            applied: true,
                            message: format!("{} -> {text}", program.text(e.span)),
                        });
                        rw.replace(e.span, text);
                        return;
                    }
                    notes.push(Note {
                        line: e.span.line,
                        applied: false,
                        message: format!(
                            "{} kept: {name} is not known to be a vector",
                            program.text(e.span)
                        ),
                    });
                }
            }
        }
    }
    match &e.kind {
        ExprKind::Binary { lhs, rhs, .. } => {
            visit(program, dims, lhs, rw, notes);
            visit(program, dims, rhs, rw, notes);
        }
        ExprKind::Unary { operand, .. }
        | ExprKind::Postfix { operand, .. }
        | ExprKind::Paren(operand) => visit(program, dims, operand, rw, notes),
        ExprKind::Apply { name, args } if !dims.of.contains_key(name) => {
            for a in args {
                visit(program, dims, a, rw, notes);
            }
        }
        _ => {}
    }
}

fn mentions_end(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| found |= matches!(x.kind, ExprKind::End));
    found
}
