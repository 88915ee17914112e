//! Range simplification (000 §5.3): `α*(a:s:b)+β` becomes `(α*a+β):(α*s):(α*b+β)`.
//!
//! Safe only when (checked here): α is a non-zero integer literal (so the element count
//! floor((b-a)/s) and every element stay exact); β is scalar and free of side effects
//! (it is evaluated twice afterwards); outside an index β must be an integer constant
//! (inside an index non-integers fail in both versions alike). A negative α flips the step's
//! sign, which keeps the count and the order of elements.

use crate::ast::{Expr, ExprKind, Program, StmtKind};
use crate::dimensionality::{Dim, Dimensions};
use crate::linear::{format_number, is_integer, linear_form, mc2mc_operator, Linear, MC2MC_NAMES};
use crate::passes::{finish, Note, PassOutput};
use crate::rewrite::{Overlap, Rewriter};

/// `α*(range)+β` found in an expression.
struct Affine<'e> {
    alpha: f64,
    beta: Linear,
    start: &'e Expr,
    step: Option<&'e Expr>,
    stop: &'e Expr,
}

pub fn run(program: &Program) -> Result<PassOutput, Overlap> {
    let mut rw = Rewriter::default();
    let mut notes = Vec::new();
    for scope in program.scopes() {
        let names = crate::resolve::Names::of_scope(&scope);
        if let Some(n) = MC2MC_NAMES.iter().find(|n| names.is_variable(n)) {
            notes.push(Note {
                line: scope.function.map_or(1, |f| f.span.line),
                applied: false,
                message: format!(
                    "ranges not simplified: the variable `{n}` shadows the operator function"
                ),
            });
            continue;
        }
        let dims = Dimensions::of_scope_in(program, &scope);
        crate::ast::walk_stmts(scope.body, &mut |s| {
            let exprs: Vec<&Expr> = match &s.kind {
                StmtKind::Assign { lhs, rhs, .. } => vec![lhs, rhs],
                StmtKind::For { .. } => Vec::new(), // a loop's range is not an array operation
                _ => s.exprs(),
            };
            for e in exprs {
                visit(program, &dims, e, Context::default(), &mut rw, &mut notes);
            }
        });
    }
    finish("range", program, &rw, notes)
}

/// Where an expression stands: inside an index, and as the operand of an operator (where a
/// colon expression, which binds looser than every arithmetic operator, needs parentheses).
#[derive(Clone, Copy, Default)]
struct Context {
    in_index: bool,
    operand: bool,
}

impl Context {
    fn operand(self) -> Context {
        Context {
            operand: true,
            ..self
        }
    }

    fn whole(self, in_index: bool) -> Context {
        Context {
            in_index,
            operand: false,
        }
    }
}

fn visit(
    program: &Program,
    dims: &Dimensions,
    e: &Expr,
    cx: Context,
    rw: &mut Rewriter,
    notes: &mut Vec<Note>,
) {
    if let Some(affine) = match_affine(program, dims, e) {
        match check(&affine, cx.in_index) {
            Ok(()) => {
                let text = render(&affine, program);
                // `2*(1:n) + n` -> `(2:2:2*n) + n`, never `2:2:2*n + n`.
                let text = if cx.operand {
                    format!("({text})")
                } else {
                    text
                };
                notes.push(Note {
                    line: e.span.line,
                    applied: true,
                    message: format!("range simplified: {} -> {}", program.text(e.span), text),
                });
                rw.replace(e.span, text);
            }
            Err(why) => notes.push(Note {
                line: e.span.line,
                applied: false,
                message: format!("range not simplified: {}: {why}", program.text(e.span)),
            }),
        }
        return;
    }
    match &e.kind {
        ExprKind::Apply { name, args } => {
            let index = dims.of.contains_key(name);
            for a in args {
                visit(program, dims, a, cx.whole(index), rw, notes);
            }
        }
        ExprKind::Binary { lhs, rhs, .. } => {
            visit(program, dims, lhs, cx.operand(), rw, notes);
            visit(program, dims, rhs, cx.operand(), rw, notes);
        }
        ExprKind::Unary { operand, .. } | ExprKind::Postfix { operand, .. } => {
            visit(program, dims, operand, cx.operand(), rw, notes)
        }
        ExprKind::Range { start, step, stop } => {
            for x in [Some(start), step.as_ref(), Some(stop)]
                .into_iter()
                .flatten()
            {
                visit(program, dims, x, cx.operand(), rw, notes);
            }
        }
        ExprKind::Paren(x) => visit(program, dims, x, cx.whole(cx.in_index), rw, notes),
        ExprKind::Matrix(rows) => {
            for x in rows.iter().flatten() {
                // In a matrix a space separates elements: keep the operand parenthesised.
                visit(program, dims, x, Context::default().operand(), rw, notes);
            }
        }
        _ => {}
    }
}

/// An operand that is a scalar without side effects: numbers, scalar variables, `end`,
/// `numel(x)`/`length(x)`/`size(x,k)`.
fn scalar_atom(program: &Program, dims: &Dimensions, e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Ident(n) if dims.get(n) == Dim::Scalar => Some(n.clone()),
        ExprKind::End => Some("end".into()),
        ExprKind::Apply { name, args }
            if matches!(name.as_str(), "numel" | "length" | "size")
                && !dims.of.contains_key(name)
                && args.iter().all(|a| {
                    matches!(a.unparen().kind, ExprKind::Ident(_) | ExprKind::Number(_))
                }) =>
        {
            Some(program.text(e.span).to_string())
        }
        _ => None,
    }
}

fn match_affine<'e>(program: &Program, dims: &Dimensions, e: &'e Expr) -> Option<Affine<'e>> {
    let found = affine_rec(program, dims, e)?;
    // A bare range (or one in parentheses) is already simple.
    let bare = matches!(e.unparen().kind, ExprKind::Range { .. });
    (!bare).then_some(found)
}

fn scalar(program: &Program, dims: &Dimensions, e: &Expr) -> Option<Linear> {
    linear_form(e, &program.source, &|x| scalar_atom(program, dims, x))
}

fn affine_rec<'e>(program: &Program, dims: &Dimensions, e: &'e Expr) -> Option<Affine<'e>> {
    match &e.kind {
        ExprKind::Paren(x) => affine_rec(program, dims, x),
        ExprKind::Range { start, step, stop } => Some(Affine {
            alpha: 1.0,
            beta: Linear::constant(0.0),
            start,
            step: step.as_deref(),
            stop,
        }),
        ExprKind::Apply { name, args }
            if name == "colon" && (args.len() == 2 || args.len() == 3) =>
        {
            let (start, step, stop) = match args.as_slice() {
                [a, b] => (a, None, b),
                [a, s, b] => (a, Some(s), b),
                _ => return None,
            };
            Some(Affine {
                alpha: 1.0,
                beta: Linear::constant(0.0),
                start,
                step,
                stop,
            })
        }
        ExprKind::Apply { name, args } if mc2mc_operator(name).is_some() => {
            // Mc2Mc's call style reads as the operator it names (`plus(a, b)` is `a + b`).
            affine_call(program, dims, mc2mc_operator(name)?, args)
        }
        ExprKind::Unary { op, operand } if op == "-" => {
            let a = affine_rec(program, dims, operand)?;
            Some(Affine {
                alpha: -a.alpha,
                beta: a.beta.scale(-1.0),
                ..a
            })
        }
        ExprKind::Binary { op, lhs, rhs } => affine_binary(program, dims, op, lhs, rhs),
        _ => None,
    }
}

fn affine_call<'e>(
    program: &Program,
    dims: &Dimensions,
    op: &str,
    args: &'e [Expr],
) -> Option<Affine<'e>> {
    match (op, args) {
        ("-u", [x]) => {
            let a = affine_rec(program, dims, x)?;
            Some(Affine {
                alpha: -a.alpha,
                beta: a.beta.scale(-1.0),
                ..a
            })
        }
        (op, [l, r]) if op != "-u" => affine_binary(program, dims, op, l, r),
        _ => None,
    }
}

fn affine_binary<'e>(
    program: &Program,
    dims: &Dimensions,
    op: &str,
    lhs: &'e Expr,
    rhs: &'e Expr,
) -> Option<Affine<'e>> {
    match op {
        "+" | "-" => {
            let sign = if op == "-" { -1.0 } else { 1.0 };
            if let Some(a) = affine_rec(program, dims, lhs) {
                let b = scalar(program, dims, rhs)?;
                Some(Affine {
                    beta: a.beta.add(&b.scale(sign)),
                    ..a
                })
            } else {
                let a = affine_rec(program, dims, rhs)?;
                let b = scalar(program, dims, lhs)?;
                Some(Affine {
                    alpha: a.alpha * sign,
                    beta: b.add(&a.beta.scale(sign)),
                    ..a
                })
            }
        }
        "*" | ".*" => {
            let (range_side, factor) = match affine_rec(program, dims, lhs) {
                Some(a) => (a, scalar(program, dims, rhs)?),
                None => (affine_rec(program, dims, rhs)?, scalar(program, dims, lhs)?),
            };
            let c = factor.as_constant()?;
            Some(Affine {
                alpha: range_side.alpha * c,
                beta: range_side.beta.scale(c),
                ..range_side
            })
        }
        _ => None,
    }
}

fn check(a: &Affine, in_index: bool) -> Result<(), String> {
    if a.alpha == 0.0 {
        return Err("α = 0 would turn the range into an empty one".into());
    }
    if !is_integer(a.alpha) {
        return Err(format!(
            "α = {} is not an integer, so the element count and values may change in floating point",
            format_number(a.alpha)
        ));
    }
    if !in_index && !a.beta.as_constant().is_some_and(is_integer) {
        return Err("β is not an integer constant outside an index".into());
    }
    Ok(())
}

fn render(a: &Affine, program: &Program) -> String {
    let part = |e: &Expr| -> Linear {
        linear_form(e, &program.source, &|x| match &x.kind {
            ExprKind::Ident(n) => Some(n.clone()),
            ExprKind::End => Some("end".into()),
            _ => Some(format!("({})", program.text(x.span))),
        })
        .unwrap_or_else(|| Linear::atom(&format!("({})", program.text(e.span))))
    };
    let map = |e: &Expr| part(e).scale(a.alpha).add(&a.beta);
    let start = map(a.start).render_operand();
    let stop = map(a.stop).render_operand();
    let step = match a.step {
        Some(s) => Some(part(s).scale(a.alpha)),
        None if a.alpha != 1.0 => Some(Linear::constant(a.alpha)),
        None => None,
    };
    match step {
        Some(s) => format!("{start}:{}:{stop}", s.render_operand()),
        None => format!("{start}:{stop}"),
    }
}
