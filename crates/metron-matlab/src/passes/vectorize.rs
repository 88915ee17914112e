//! Loop vectorisation (000 §5.4, §6.4.1): Allen-Kennedy on innermost `for` loops whose
//! bodies are assignments with affine one-dimensional subscripts. Dependence graph, SCCs
//! (Kosaraju), π-graph in topological order; acyclic single statements become array
//! statements (with `.'` where rows and columns mix, Listing 6.4), reductions `s = s + e`
//! become `s = s + sum(E)`, cyclic π-nodes stay in a loop. Optional profile-guided
//! versioning keeps the original loop for small trip counts (§5.4).

use std::collections::BTreeSet;

use crate::ast::{Expr, ExprKind, Program, Scope, Span, Stmt, StmtKind};
use crate::classification::Classification;
use crate::dependence::{test, Bounds, Direction, Graph, PiNode, Subscript};
use crate::dimensionality::{Dim, Dimensions};
use crate::linear::{is_integer, linear_form, Linear};
use crate::passes::{finish, Note, Options, PassOutput};
use crate::resolve::{assigned_names, Names};
use crate::rewrite::{line_indent, Overlap, Rewriter};

pub fn run(program: &Program, options: &Options) -> Result<PassOutput, Overlap> {
    let mut rw = Rewriter::default();
    let mut notes = Vec::new();
    for scope in program.scopes() {
        let cx = LoopContext {
            program,
            names: Names::of_scope(&scope),
            dims: Dimensions::of_scope_in(program, &scope),
            options,
            scope,
            temps: Default::default(),
            class_guards: Default::default(),
        };
        cx.statement_list(scope.body, &mut rw, &mut notes);
    }
    finish("vectorize", program, &rw, notes)
}

/// A loop's vector form and, with versioning, the guard that chooses it.
struct Vectorised {
    text: String,
    note: String,
    guard: Option<Guard>,
}

/// `trips >= p` (000 §5.4), with the names it reads.
struct Guard {
    condition: String,
    reads: BTreeSet<String>,
}

/// Consecutive versioned loops of one statement list that share a guard. In an interpreter
/// the guard itself costs about a third of a microsecond per evaluation (Octave 7), which is
/// measurable in calls of a few microseconds; one `if` around the whole run of loops pays
/// it once.
struct VersionedRun {
    first: usize,
    last: usize,
    loops: Vec<(usize, Vectorised)>,
}

impl LoopContext<'_> {
    fn statement_list(&self, list: &[Stmt], rw: &mut Rewriter, notes: &mut Vec<Note>) {
        let mut run: Option<VersionedRun> = None;
        for (k, s) in list.iter().enumerate() {
            let vectorised = match &s.kind {
                StmtKind::For { var, iter, body }
                    if body
                        .iter()
                        .all(|b| matches!(b.kind, StmtKind::Assign { .. })) =>
                {
                    match self.vectorize(s, var, iter, body) {
                        Ok(v) => Some(v),
                        Err(why) => {
                            notes.push(Note {
                                line: s.span.line,
                                applied: false,
                                message: format!("loop over {var} not vectorised: {why}"),
                            });
                            None
                        }
                    }
                }
                StmtKind::For { var, iter, body } if matches!(body.as_slice(), [b] if matches!(b.kind, StmtKind::If { .. })) => {
                    match self.if_convert(s, var, iter, &body[0]) {
                        Ok(v) => Some(v),
                        Err(why) => {
                            notes.push(Note {
                                line: s.span.line,
                                applied: false,
                                message: format!("loop over {var} not if-converted: {why}"),
                            });
                            None
                        }
                    }
                }
                StmtKind::For { var, body, .. } => {
                    notes.push(Note {
                        line: s.span.line,
                        applied: false,
                        message: format!(
                            "loop over {var} not vectorised: its body holds {} (inner loops are tried on their own)",
                            describe_body(body)
                        ),
                    });
                    None
                }
                _ => None,
            };
            match vectorised {
                Some(v) if v.guard.is_some() => {
                    let joins = run.as_ref().is_some_and(|r| self.can_join(list, r, k, &v));
                    if !joins {
                        if let Some(r) = run.take() {
                            self.emit_run(list, r, rw, notes);
                        }
                        run = Some(VersionedRun {
                            first: k,
                            last: k,
                            loops: Vec::new(),
                        });
                    }
                    if let Some(r) = run.as_mut() {
                        r.last = k;
                        r.loops.push((k, v));
                    }
                }
                Some(v) => {
                    rw.replace(s.span, v.text);
                    notes.push(Note {
                        line: s.span.line,
                        applied: true,
                        message: v.note,
                    });
                }
                None => {
                    for b in s.bodies() {
                        self.statement_list(b, rw, notes);
                    }
                }
            }
        }
        if let Some(r) = run.take() {
            self.emit_run(list, r, rw, notes);
        }
    }

    /// The loop at `k` may share the run's `if` when its guard is the same text, and the
    /// statements since the run's last loop are simple (no nested bodies, so no other edit
    /// of this pass lies inside them) and assign none of the names the guard reads, so the
    /// guard has the same value at every loop of the run.
    fn can_join(&self, list: &[Stmt], run: &VersionedRun, k: usize, v: &Vectorised) -> bool {
        let (Some(guard), Some((_, first))) = (&v.guard, run.loops.first()) else {
            return false;
        };
        let Some(run_guard) = &first.guard else {
            return false;
        };
        let between = &list[run.last + 1..k];
        guard.condition == run_guard.condition
            && between.iter().all(|s| s.bodies().is_empty())
            && assigned_names(between).is_disjoint(&guard.reads)
    }

    fn emit_run(&self, list: &[Stmt], run: VersionedRun, rw: &mut Rewriter, notes: &mut Vec<Note>) {
        let source = &self.program.source;
        let start = list[run.first].span.start;
        let end = list[run.last].span.end;
        let Some(indent) = line_indent(source, start) else {
            return;
        };
        let original = &source[start..end];
        let mut vector = String::new();
        let mut pos = start;
        for (k, v) in &run.loops {
            let span = list[*k].span;
            vector.push_str(&source[pos..span.start]);
            vector.push_str(&v.text);
            pos = span.end;
        }
        vector.push_str(&source[pos..end]);
        let Some(condition) = run.loops[0].1.guard.as_ref().map(|g| g.condition.clone()) else {
            return;
        };
        let lines: Vec<usize> = run.loops.iter().map(|(k, _)| list[*k].span.line).collect();
        rw.replace(
            Span {
                start,
                end,
                ..list[run.first].span
            },
            format!(
                "if {condition}\n{indent}  {}\n{indent}else\n{indent}  {}\n{indent}end",
                indent_lines(&vector),
                indent_lines(original)
            ),
        );
        for (k, v) in run.loops {
            let shared = if lines.len() > 1 {
                format!(
                    "; one guard for the loops at lines {}",
                    lines
                        .iter()
                        .map(|l| l.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            } else {
                String::new()
            };
            notes.push(Note {
                line: list[k].span.line,
                applied: true,
                message: format!("{}{shared}", v.note),
            });
        }
    }
}

/// A built-in that maps elements to elements (so it accepts the whole range at once).
fn elementwise_call(classification: &Classification, name: &str, args: usize) -> bool {
    classification.mode(name, false) == crate::classification::CompilationMode::Combinable
        || matches!(
            name,
            "sqrt"
                | "log"
                | "log10"
                | "log2"
                | "acos"
                | "asin"
                | "exp"
                | "abs"
                | "floor"
                | "ceil"
                | "round"
                | "fix"
                | "sign"
                | "erf"
                | "erfc"
        )
        || (args == 2 && matches!(name, "max" | "min" | "mod" | "rem" | "atan2" | "hypot"))
}

fn elementwise_op(op: &str) -> Option<&'static str> {
    match op {
        "*" => Some(".*"),
        "/" => Some("./"),
        "^" => Some(".^"),
        "\\" => Some(".\\"),
        _ => None,
    }
}

fn describe_body(body: &[Stmt]) -> String {
    let mut kinds: Vec<&str> = body
        .iter()
        .filter_map(|b| match &b.kind {
            StmtKind::Assign { .. } => None,
            StmtKind::For { .. } => Some("a loop"),
            StmtKind::While { .. } => Some("a while loop"),
            StmtKind::If { .. } => Some("an if statement beside other statements"),
            StmtKind::Expr(_) => Some("a call statement"),
            _ => Some("a statement other than an assignment"),
        })
        .collect();
    kinds.dedup();
    kinds.join(", ")
}

/// Two more spaces after every line break, except on lines left empty.
fn indent_lines(text: &str) -> String {
    text.split('\n')
        .enumerate()
        .map(|(k, l)| {
            if k == 0 || l.trim().is_empty() {
                l.trim_end().to_string()
            } else {
                format!("  {l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

struct LoopContext<'a> {
    program: &'a Program,
    names: Names,
    dims: Dimensions,
    options: &'a Options,
    scope: Scope<'a>,
    /// Scalar expansion: loop-private temporaries `t = e` (defined before every use in the
    /// iteration, dead after the loop) read as their definition `e` in the vector form.
    temps: std::cell::RefCell<std::collections::BTreeMap<String, Expr>>,
    /// Variables whose class is unknown but must be double for a regrouped reduction: the
    /// vector form runs under `if isa(v, 'double') && ...`, the loop otherwise (dynamic
    /// code selection, 000 §5.1.1 / §6.4.1).
    class_guards: std::cell::RefCell<BTreeSet<String>>,
}

/// One array or scalar access in the loop body.
#[derive(Debug, Clone)]
struct Access {
    array: String,
    /// One subscript per dimension; `None`: not affine in the loop variable: assume anything.
    subscript: Option<Vec<Subscript>>,
    write: bool,
    stmt: usize,
}

enum Shape {
    /// `s = s + e` or `s = s - e`.
    Reduction {
        var: String,
        op: String,
        term: Expr,
    },
    /// `h(p(i)) = h(p(i)) + e`: a reduction through an index array (a histogram, a
    /// scatter-add), vectorised with `accumarray`.
    Scatter {
        array: String,
        index: Expr,
        op: String,
        term: Expr,
    },
    Element,
}

struct LoopRange {
    lower: Linear,
    step: i64,
    upper: Linear,
    /// If-conversion: the iterations a branch runs, as a vector expression (`I__(m__)`);
    /// subscripts map it instead of the whole range.
    values: Option<String>,
}

impl LoopRange {
    fn bounds(&self) -> Bounds {
        let as_int = |l: &Linear| l.as_constant().filter(|c| is_integer(*c)).map(|c| c as i64);
        Bounds {
            lower: as_int(&self.lower),
            upper: as_int(&self.upper),
            step: self.step,
        }
    }

    /// The values `c*i+d` takes over the loop, as a simple range (000 §5.3 form).
    fn image(&self, s: &Subscript) -> String {
        let c = s.coeff as f64;
        if let Some(values) = &self.values {
            return Linear::atom(values).scale(c).add(&s.offset).render();
        }
        let start = self.lower.scale(c).add(&s.offset);
        let stop = self.upper.scale(c).add(&s.offset);
        let step = s.coeff * self.step;
        if step == 1 {
            format!("{}:{}", start.render_operand(), stop.render_operand())
        } else {
            format!(
                "{}:{}:{}",
                start.render_operand(),
                Linear::constant(step as f64).render_operand(),
                stop.render_operand()
            )
        }
    }
}

impl LoopContext<'_> {
    fn text(&self, e: &Expr) -> &str {
        self.program.text(e.span)
    }

    fn linear(&self, e: &Expr) -> Linear {
        linear_form(e, &self.program.source, &|x| match &x.kind {
            ExprKind::Ident(n) => Some(n.clone()),
            _ => Some(format!("({})", self.text(x))),
        })
        .unwrap_or_else(|| Linear::atom(&format!("({})", self.text(e))))
    }

    fn loop_range(&self, iter: &Expr) -> Result<LoopRange, String> {
        let ExprKind::Range { start, step, stop } = &iter.unparen().kind else {
            return Err("the loop does not iterate over a range".into());
        };
        let step = match step {
            None => 1,
            Some(s) => match self.linear(s).as_constant() {
                Some(c) if is_integer(c) && c != 0.0 => c as i64,
                _ => return Err("the loop step is not a non-zero integer constant".into()),
            },
        };
        Ok(LoopRange {
            lower: self.linear(start),
            step,
            upper: self.linear(stop),
            values: None,
        })
    }

    fn subscript(&self, e: &Expr, var: &str) -> Option<Subscript> {
        let form = linear_form(e, &self.program.source, &|x| match &x.kind {
            ExprKind::Ident(n) if n == var || self.dims.get(n) == Dim::Scalar => Some(n.clone()),
            _ => None,
        })?;
        let c = form.coefficient(var);
        is_integer(c).then(|| Subscript {
            coeff: c as i64,
            offset: form.without(var),
        })
    }

    fn subscripts(&self, args: &[Expr], var: &str) -> Option<Vec<Subscript>> {
        args.iter().map(|a| self.subscript(a, var)).collect()
    }

    /// An indexed read or write over the whole iteration space: exactly one subscript varies
    /// with the loop (affinely) and becomes a range, the others stay as they are and must be
    /// scalar. `None`: the element is the same in every iteration. The result's shape: a
    /// vector's own for one subscript, a column for the first of two, a row for the second.
    fn indexed_image(
        &self,
        name: &str,
        args: &[Expr],
        var: &str,
        range: &LoopRange,
    ) -> Result<Option<(String, Dim)>, String> {
        let varying: Vec<usize> = (0..args.len())
            .filter(|&k| mentions(&args[k], var))
            .collect();
        let [k] = varying.as_slice() else {
            return match varying.len() {
                0 => Ok(None),
                _ => Err(format!(
                    "{name}: the loop variable {var} is in more than one subscript (a diagonal)"
                )),
            };
        };
        let k = *k;
        let sub = self
            .subscript(&args[k], var)
            .filter(|s| s.coeff != 0)
            .ok_or_else(|| format!("subscript of {name} is not affine in {var}"))?;
        let dim = match (args.len(), k) {
            (1, _) => self.orientation(name),
            (2, 0) => Dim::Column,
            (2, _) => Dim::Row,
            _ => return Err(format!("{name} has more than two subscripts")),
        };
        let mut parts = Vec::new();
        for (j, a) in args.iter().enumerate() {
            if j == k {
                parts.push(range.image(&sub));
            } else if matches!(a.kind, ExprKind::End)
                || self.subscript(a, var).is_some_and(|s| s.coeff == 0)
            {
                parts.push(self.text(a).to_string());
            } else {
                return Err(format!(
                    "subscript `{}` of {name} is not known to be a scalar",
                    self.text(a)
                ));
            }
        }
        Ok(Some((format!("{name}({})", parts.join(", ")), dim)))
    }

    /// `sum(A(i, :))` (a row sum, the loop variable in the first subscript) or
    /// `sum(A(:, j))`: the array, its two subscripts, and the dimension summed over.
    fn line_sum<'e>(
        &self,
        e: &'e Expr,
        var: &str,
    ) -> Option<(&'e str, &'e [Expr], usize, &'e str)> {
        let ExprKind::Apply { name, args } = &e.kind else {
            return None;
        };
        if !matches!(name.as_str(), "sum" | "prod" | "max" | "min" | "mean")
            || self.names.is_variable(name)
        {
            return None;
        }
        let [inner] = args.as_slice() else {
            return None;
        };
        let ExprKind::Apply {
            name: array,
            args: subs,
        } = &inner.unparen().kind
        else {
            return None;
        };
        if !self.names.is_variable(array) {
            return None;
        }
        match subs.as_slice() {
            [i, c] if matches!(c.kind, ExprKind::Colon) && mentions(i, var) => {
                Some((array.as_str(), subs.as_slice(), 2, name.as_str()))
            }
            [c, j] if matches!(c.kind, ExprKind::Colon) && mentions(j, var) => {
                Some((array.as_str(), subs.as_slice(), 1, name.as_str()))
            }
            _ => None,
        }
    }

    /// A user function small enough to inline into a vector statement: one output, one
    /// assignment of an element-wise expression of its parameters. Its parameters and its
    /// right-hand side.
    fn inlinable(&self, name: &str) -> Option<(&[String], &Expr)> {
        if self.names.is_variable(name) {
            return None;
        }
        let f = self.program.function(name)?;
        let [out] = f.outputs.as_slice() else {
            return None;
        };
        let [stmt] = f.body.as_slice() else {
            return None;
        };
        let StmtKind::Assign { lhs, rhs, multi } = &stmt.kind else {
            return None;
        };
        if !multi.is_empty() || !matches!(&lhs.unparen().kind, ExprKind::Ident(n) if n == out) {
            return None;
        }
        let classification = Classification::builtin("r2018b").ok()?;
        let mut ok = true;
        rhs.walk(&mut |x| match &x.kind {
            ExprKind::Ident(n) => ok &= f.params.contains(n),
            ExprKind::Apply { name: g, args } => {
                // The body's calls must still be calls at the call site (a caller's variable
                // `max` would turn `max(s - k, 0)` into an index: found by the generator).
                ok &= !f.params.contains(g)
                    && !self.names.is_variable(g)
                    && self.program.function(g).is_none()
                    && elementwise_call(&classification, g, args.len());
            }
            ExprKind::Number(_)
            | ExprKind::Binary { .. }
            | ExprKind::Unary { .. }
            | ExprKind::Paren(_) => {}
            _ => ok = false,
        });
        ok.then_some((f.params.as_slice(), rhs))
    }

    /// The inlined body of a call, parameters replaced by the (vectorised) argument texts and
    /// operators made element-wise.
    fn inline_call(&self, params: &[String], body: &Expr, args: &[String]) -> Option<String> {
        if params.len() != args.len() {
            return None;
        }
        let mut rw = Rewriter::default();
        let base = body.span.start;
        let local = |span: Span| Span {
            start: span.start - base,
            end: span.end - base,
            ..span
        };
        let mut bad = false;
        body.walk(&mut |x| match &x.kind {
            ExprKind::Ident(n) => {
                let k = params.iter().position(|p| p == n);
                match k {
                    Some(k) => rw.replace(local(x.span), format!("({})", args[k])),
                    None => bad = true,
                }
            }
            ExprKind::Binary { op, lhs, rhs } => {
                if let Some(new_op) = elementwise_op(op) {
                    let gap = Span {
                        start: lhs.span.end,
                        end: rhs.span.start,
                        ..x.span
                    };
                    let between = &self.program.source[gap.start..gap.end];
                    rw.replace(local(gap), between.replacen(op.as_str(), new_op, 1));
                }
            }
            _ => {}
        });
        if bad {
            return None;
        }
        rw.apply(self.text(body)).ok().map(|t| format!("({t})"))
    }

    /// An indirect read `x(p(i))` of a vector: `x(p(I))`, shaped like `x` (a vector indexed
    /// by a vector keeps its orientation). Dependences on `x` are tested as "anything".
    fn gather(
        &self,
        name: &str,
        args: &[Expr],
        var: &str,
        range: &LoopRange,
    ) -> Option<Option<(String, Dim)>> {
        let [index] = args else {
            return None;
        };
        let ExprKind::Apply { name: inner, .. } = &index.unparen().kind else {
            return None;
        };
        let dim = self.orientation(name);
        if !self.names.is_variable(inner) || !matches!(dim, Dim::Row | Dim::Column) {
            return None;
        }
        let text = self.vector_expr(index, var, range, Dim::Row).ok()?;
        Some(Some((format!("{name}({text})"), dim)))
    }

    /// `f(args)` for a built-in `f`, or `builtin('f', args)` when a variable of the scope
    /// is named `f` (an accumulator called `sum`).
    fn builtin_call(&self, f: &str, args: &str) -> String {
        if self.names.is_variable(f) {
            format!("builtin('{f}', {args})")
        } else {
            format!("{f}({args})")
        }
    }

    fn vectorize(
        &self,
        s: &Stmt,
        var: &str,
        iter: &Expr,
        body: &[Stmt],
    ) -> Result<Vectorised, String> {
        let range = self.loop_range(iter)?;
        let written = assigned_names(body);
        let mut reasons = self.loop_reasons(var, &range, &written);
        let indent = line_indent(&self.program.source, s.span.start)
            .ok_or("the loop does not start its line")?
            .to_string();
        let temps = self.private_temporaries(s, var, body);
        let kept: Vec<Stmt> = body
            .iter()
            .filter(|b| !temps.iter().any(|(t, _)| assigns(b, t)))
            .cloned()
            .collect();
        *self.temps.borrow_mut() = temps.into_iter().collect();
        self.class_guards.borrow_mut().clear();
        let result = self.vectorize_kept(var, iter, &kept, range, &written, &mut reasons, indent);
        self.temps.borrow_mut().clear();
        result
    }

    /// Temporaries `t = e` of the body that scalar expansion may replace by `e`: assigned
    /// once, not in terms of themselves, not read before their definition, dead after the
    /// loop, and `e` reads nothing the body writes later.
    fn private_temporaries(&self, lp: &Stmt, var: &str, body: &[Stmt]) -> Vec<(String, Expr)> {
        let mut out = Vec::new();
        for (k, b) in body.iter().enumerate() {
            let StmtKind::Assign { lhs, rhs, multi } = &b.kind else {
                continue;
            };
            let ExprKind::Ident(t) = &lhs.unparen().kind else {
                continue;
            };
            let once = body.iter().filter(|o| assigns(o, t)).count() == 1;
            let read_before = body[..k]
                .iter()
                .any(|o| o.exprs().iter().any(|e| mentions(e, t)));
            let outputs = self.scope.function.is_some_and(|f| f.outputs.contains(t));
            let later_writes = assigned_names(&body[k + 1..]);
            let stable = later_writes.iter().all(|w| !mentions(rhs, w));
            if multi.is_empty()
                && t != var
                && once
                && !read_before
                && !mentions(rhs, t)
                && !outputs
                && stable
                && !self.mentioned_outside(lp, t)
            {
                out.push((t.clone(), rhs.clone()));
            }
        }
        out
    }

    #[allow(clippy::too_many_arguments)]
    fn vectorize_kept(
        &self,
        var: &str,
        iter: &Expr,
        body: &[Stmt],
        range: LoopRange,
        written: &BTreeSet<String>,
        reasons: &mut Vec<String>,
        indent: String,
    ) -> Result<Vectorised, String> {
        let written = &{
            let mut w = written.clone();
            for t in self.temps.borrow().keys() {
                w.remove(t);
            }
            w
        };
        let shapes: Vec<Shape> = body.iter().map(|b| self.shape(b, body)).collect();
        let mut accesses = Vec::new();
        for (k, stmt) in body.iter().enumerate() {
            if let Err(why) =
                self.collect_accesses(k, stmt, &shapes[k], var, written, &mut accesses)
            {
                reasons.push(format!("S{}: {why}", k + 1));
            }
        }
        if !reasons.is_empty() {
            return Err(reasons.join("; "));
        }
        let graph = self.graph(body.len(), &accesses, range.bounds());
        let pi = graph.pi_nodes();
        if pi.iter().all(|p| p.cyclic) {
            return Err(format!(
                "every statement lies on a dependence cycle (π-nodes: {})",
                describe(&pi)
            ));
        }
        if !self.temps.borrow().is_empty() && pi.iter().any(|p| p.cyclic) {
            return Err(
                "a statement stays in a loop, which would need the expanded temporaries".into(),
            );
        }
        let mut out = String::new();
        let mut first = true;
        for node in &pi {
            let lead = if first { String::new() } else { indent.clone() };
            first = false;
            if node.cyclic {
                out.push_str(&format!("{lead}for {var} = {}\n", self.text(iter)));
                for &k in &node.statements {
                    out.push_str(&format!(
                        "{indent}  {};\n",
                        self.program.text(body[k].span).trim_end_matches(';')
                    ));
                }
                out.push_str(&format!("{indent}end\n"));
            } else {
                let k = node.statements[0];
                let text = self.vector_statement(&body[k], &shapes[k], var, &range)?;
                if still_mentions(&text, var) {
                    // Every use of the loop variable must have become a range; a left-over
                    // one would read the variable's value before the loop (or `1i` for `j`).
                    return Err(format!("{var} would remain in `{text}`"));
                }
                out.push_str(&format!("{lead}{text};\n"));
            }
        }
        let out = out.trim_end_matches('\n').to_string();
        let note = format!(
            "vectorised (π-nodes in order: {}; accesses tested: {})",
            describe(&pi),
            accesses.len()
        );
        let guard = self.options.version_threshold.map(|p| {
            // trips = floor((U-L)/s)+1 >= p  <=>  (U-L)/s >= p-1 (p-1 is an integer)  <=>
            // U-L >= s(p-1) for s > 0, U-L <= s(p-1) for s < 0. With the constants moved to the
            // right the guard is one comparison (`n >= 6` for 2:n-1): every operator costs
            // an interpreter about half a microsecond, a call such as numel(L:s:U) ten.
            let span = range.upper.sub(&range.lower);
            let bound = Linear::constant(range.step as f64 * (p as f64 - 1.0) - span.constant);
            let variable = Linear {
                constant: 0.0,
                terms: span.terms.clone(),
            };
            let op = if range.step > 0 { ">=" } else { "<=" };
            let condition = format!("{} {op} {}", variable.render(), bound.render());
            let reads = range
                .lower
                .terms
                .iter()
                .chain(&range.upper.terms)
                .flat_map(|atom| identifiers(&atom.0))
                .collect();
            Guard { condition, reads }
        });
        let note = match self.options.version_threshold {
            Some(p) => format!("{note}; versioned at p = {p} (000 §5.4)"),
            None => note,
        };
        // The loop variable does not exist before the loop: its class is the class of the
        // range, so the bounds' variables are checked instead.
        let checks: Vec<String> = self
            .class_guards
            .borrow()
            .iter()
            .flat_map(|v| {
                if v == var {
                    range
                        .lower
                        .terms
                        .iter()
                        .chain(&range.upper.terms)
                        .flat_map(|atom| identifiers(&atom.0))
                        .filter(|n| self.names.is_variable(n))
                        .collect()
                } else {
                    vec![v.clone()]
                }
            })
            .collect::<BTreeSet<String>>()
            .into_iter()
            .collect();
        let (guard, note) = if checks.is_empty() {
            (guard, note)
        } else {
            let test = checks
                .iter()
                .map(|v| format!("isa({v}, 'double')"))
                .collect::<Vec<_>>()
                .join(" && ");
            let mut reads: BTreeSet<String> = checks.iter().cloned().collect();
            let condition = match guard {
                Some(g) => {
                    reads.extend(g.reads);
                    format!("{} && {test}", g.condition)
                }
                None => test,
            };
            (
                Some(Guard { condition, reads }),
                format!(
                    "{note}; the loop stays for classes other than double ({})",
                    checks.join(", ")
                ),
            )
        };
        Ok(Vectorised {
            text: out,
            note,
            guard,
        })
    }

    /// If-conversion with logical masks: `for i, if c(i), y(i) = e1(i); else y(i) = e2(i);
    /// end, end` becomes `m = c(I); y(I(m)) = e1(I(m)); y(I(~m)) = e2(I(~m))`. Each branch
    /// runs only on its own iterations (a guarded read never runs where the guard fails),
    /// and any dependence carried between iterations keeps the loop.
    fn if_convert(
        &self,
        s: &Stmt,
        var: &str,
        iter: &Expr,
        stmt: &Stmt,
    ) -> Result<Vectorised, String> {
        let StmtKind::If { clauses } = &stmt.kind else {
            return Err("not an if statement".into());
        };
        let range = self.loop_range(iter)?;
        let body = std::slice::from_ref(stmt);
        let written = assigned_names(body);
        let mut reasons = self.loop_reasons(var, &range, &written);
        // Only `if`/`else`: an `elseif` has its own condition, so its branch is not the
        // complement of the first (a corpus find: clip_saxpy's `elseif y(k) < -1`).
        if clauses.len() > 2 || clauses.get(1).is_some_and(|c| c.0.is_some()) {
            reasons.push("an elseif chain".into());
        }
        let cond = clauses[0].0.as_ref().ok_or("an if without a condition")?;
        let mut short_circuit = false;
        cond.walk(&mut |x| {
            short_circuit |=
                matches!(&x.kind, ExprKind::Binary { op, .. } if op == "&&" || op == "||")
        });
        if short_circuit {
            reasons.push(
                "the condition short-circuits (&&, ||): as a mask both operands would run for every iteration".into(),
            );
        }
        let branches: Vec<&Stmt> = clauses
            .iter()
            .filter_map(|(_, b)| match b.as_slice() {
                [one]
                    if matches!(&one.kind, StmtKind::Assign { lhs, multi, .. }
                    if multi.is_empty() && matches!(lhs.unparen().kind, ExprKind::Apply { .. })) =>
                {
                    Some(one)
                }
                _ => None,
            })
            .collect();
        if branches.len() != clauses.len() {
            reasons.push("a branch is not exactly one element assignment".into());
        }
        let mut accesses = Vec::new();
        if let Err(why) = self.collect_reads(0, cond, var, &written, &mut accesses) {
            reasons.push(format!("condition: {why}"));
        }
        for b in &branches {
            if let Err(why) =
                self.collect_accesses(0, b, &Shape::Element, var, &written, &mut accesses)
            {
                reasons.push(why);
            }
        }
        if !reasons.is_empty() {
            return Err(reasons.join("; "));
        }
        let graph = self.graph(1, &accesses, range.bounds());
        if graph.self_carried.contains(&0) {
            return Err("a dependence is carried between iterations".into());
        }
        let indent = line_indent(&self.program.source, s.span.start)
            .ok_or("the loop does not start its line")?
            .to_string();
        let (it, mask) = (format!("{var}_iter"), format!("{var}_mask"));
        for n in [&it, &mask] {
            if self.names.is_variable(n) {
                return Err(format!("{n} is taken"));
            }
        }
        let step = if range.step == 1 {
            String::new()
        } else {
            format!("{}:", Linear::constant(range.step as f64).render_operand())
        };
        let mut out = format!(
            "{it} = {}:{step}{};\n",
            range.lower.render_operand(),
            range.upper.render_operand()
        );
        let whole = LoopRange {
            values: Some(it.clone()),
            ..range
        };
        let m = self.vector_expr(cond, var, &whole, Dim::Row)?;
        out.push_str(&format!("{indent}{mask} = logical({m});\n"));
        for (k, b) in branches.iter().enumerate() {
            let subset = if k == 0 {
                format!("{it}({mask})")
            } else {
                format!("{it}(~{mask})")
            };
            let part = LoopRange {
                values: Some(subset),
                lower: whole.lower.clone(),
                upper: whole.upper.clone(),
                step: whole.step,
            };
            let text = self.vector_statement(b, &Shape::Element, var, &part)?;
            if still_mentions(&text, var) {
                return Err(format!("{var} would remain in `{text}`"));
            }
            out.push_str(&format!("{indent}{text};\n"));
        }
        Ok(Vectorised {
            text: out.trim_end().to_string(),
            note: format!(
                "if-converted with the logical mask {mask} ({} branch(es), accesses tested: {})",
                branches.len(),
                accesses.len()
            ),
            guard: None,
        })
    }

    /// Reasons the loop itself (not its statements) cannot become array statements.
    fn loop_reasons(
        &self,
        var: &str,
        range: &LoopRange,
        written: &BTreeSet<String>,
    ) -> Vec<String> {
        let mut reasons = Vec::new();
        for atom in range.lower.terms.iter().chain(&range.upper.terms) {
            // Whole identifiers: `numOptions` is not `n` (issue 14).
            let names = identifiers(&atom.0);
            if written.contains(&atom.0) || names.iter().any(|n| n == var || written.contains(n)) {
                reasons.push(format!("the bound {} changes inside the loop", atom.0));
            }
        }
        if written.contains(var) {
            reasons.push(format!("the loop variable {var} is assigned in the body"));
        }
        if self.scope.function.is_none() {
            reasons.push(format!(
                "in a script the loop variable {var} stays in the workspace with its last value"
            ));
        }
        if self.used_outside_loops(var) {
            reasons.push(format!(
                "{var} is read after the loop, which keeps its last value"
            ));
        }
        reasons
    }

    /// Whether `name` appears anywhere in the scope outside the statement `lp`.
    fn mentioned_outside(&self, lp: &Stmt, name: &str) -> bool {
        fn visit(body: &[Stmt], lp: &Stmt, name: &str) -> bool {
            body.iter().any(|s| {
                s.span != lp.span
                    && (s.exprs().iter().any(|e| mentions(e, name))
                        || assigns(s, name)
                        || s.bodies().iter().any(|b| visit(b, lp, name)))
            })
        }
        visit(self.scope.body, lp, name)
    }

    fn used_outside_loops(&self, var: &str) -> bool {
        fn visit(body: &[Stmt], var: &str) -> bool {
            body.iter().any(|s| match &s.kind {
                StmtKind::For { var: v, iter, body } => {
                    mentions(iter, var) || (v != var && visit(body, var))
                }
                _ => {
                    s.exprs().iter().any(|e| mentions(e, var))
                        || s.bodies().iter().any(|b| visit(b, var))
                }
            })
        }
        visit(self.scope.body, var)
    }

    fn shape(&self, s: &Stmt, body: &[Stmt]) -> Shape {
        let StmtKind::Assign { lhs, rhs, .. } = &s.kind else {
            return Shape::Element;
        };
        if let Some(scatter) = self.scatter(s, lhs, rhs, body) {
            return scatter;
        }
        let ExprKind::Ident(v) = &lhs.unparen().kind else {
            return Shape::Element;
        };
        let ExprKind::Binary { op, lhs: a, rhs: b } = &rhs.unparen().kind else {
            return Shape::Element;
        };
        let is_v = |e: &Expr| matches!(&e.unparen().kind, ExprKind::Ident(n) if n == v);
        let term = match op.as_str() {
            "+" if is_v(a) => b,
            "+" if is_v(b) => a,
            "-" if is_v(a) => b,
            _ => return Shape::Element,
        };
        let only_here = body
            .iter()
            .filter(|o| !std::ptr::eq(*o, s))
            .all(|o| o.exprs().iter().all(|e| !mentions(e, v)));
        if mentions(term, v) || !only_here {
            return Shape::Element;
        }
        Shape::Reduction {
            var: v.clone(),
            op: op.clone(),
            term: (**term).clone(),
        }
    }

    fn scatter(&self, s: &Stmt, lhs: &Expr, rhs: &Expr, body: &[Stmt]) -> Option<Shape> {
        let ExprKind::Apply { name, args } = &lhs.unparen().kind else {
            return None;
        };
        let [index] = args.as_slice() else {
            return None;
        };
        if !self.names.is_variable(name)
            || !matches!(&index.unparen().kind, ExprKind::Apply { name: p, .. } if self.names.is_variable(p))
        {
            return None;
        }
        let ExprKind::Binary { op, lhs: a, rhs: b } = &rhs.unparen().kind else {
            return None;
        };
        let same = |e: &Expr| self.text(e.unparen()) == self.text(lhs.unparen());
        let term = match op.as_str() {
            "+" if same(a) => b,
            "+" if same(b) => a,
            "-" if same(a) => b,
            _ => return None,
        };
        let only_here = body
            .iter()
            .filter(|o| !std::ptr::eq(*o, s))
            .all(|o| o.exprs().iter().all(|e| !mentions(e, name)));
        (only_here && !mentions(term, name) && !mentions(index, name)).then(|| Shape::Scatter {
            array: name.clone(),
            index: index.unparen().clone(),
            op: op.clone(),
            term: (**term).clone(),
        })
    }

    fn collect_accesses(
        &self,
        k: usize,
        stmt: &Stmt,
        shape: &Shape,
        var: &str,
        written: &BTreeSet<String>,
        out: &mut Vec<Access>,
    ) -> Result<(), String> {
        let StmtKind::Assign { lhs, rhs, multi } = &stmt.kind else {
            return Err("a statement is not an assignment".into());
        };
        if !multi.is_empty() {
            return Err("multiple assignment in the body".into());
        }
        let reads = match shape {
            Shape::Reduction { term, .. } => term,
            Shape::Scatter { index, term, .. } => {
                self.collect_reads(k, index, var, written, out)?;
                term
            }
            Shape::Element => {
                match &lhs.unparen().kind {
                    ExprKind::Apply { name, args } => out.push(Access {
                        array: name.clone(),
                        subscript: self.subscripts(args, var),
                        write: true,
                        stmt: k,
                    }),
                    ExprKind::Ident(name) => out.push(Access {
                        array: name.clone(),
                        subscript: Some(vec![Subscript {
                            coeff: 0,
                            offset: Linear::constant(0.0),
                        }]),
                        write: true,
                        stmt: k,
                    }),
                    _ => return Err("unsupported assignment target".into()),
                }
                if let ExprKind::Apply { args, .. } = &lhs.unparen().kind {
                    for a in args {
                        self.collect_reads(k, a, var, written, out)?;
                    }
                }
                rhs
            }
        };
        self.collect_reads(k, reads, var, written, out)
    }

    fn collect_reads(
        &self,
        k: usize,
        e: &Expr,
        var: &str,
        written: &BTreeSet<String>,
        out: &mut Vec<Access>,
    ) -> Result<(), String> {
        let classification = Classification::builtin("r2018b").map_err(|e| e.to_string())?;
        let mut problems: Vec<String> = Vec::new();
        // `:` is fine inside a row or column sum (`sum(A(i, :))`).
        let mut summed_colons = BTreeSet::new();
        e.walk(&mut |x| {
            if let Some((_, args, _, _)) = self.line_sum(x, var) {
                for a in args {
                    if matches!(a.kind, ExprKind::Colon) {
                        summed_colons.insert(a.span.start);
                    }
                }
            }
        });
        let temps = self.temps.borrow().clone();
        for (t, def) in &temps {
            if mentions(e, t) {
                if let Err(why) = self.collect_reads(k, def, var, written, out) {
                    problems.push(why);
                }
            }
        }
        e.walk(&mut |x| match &x.kind {
            ExprKind::Ident(t) if temps.contains_key(t) => {}
            ExprKind::Apply { name, args } if self.names.is_variable(name) => out.push(Access {
                array: name.clone(),
                subscript: self.subscripts(args, var),
                write: false,
                stmt: k,
            }),
            ExprKind::Apply { name, args }
                if self.line_sum(x, var).is_some() || self.inlinable(name).is_some() =>
            {
                let _ = args;
            }
            ExprKind::Colon if summed_colons.contains(&x.span.start) => {}
            ExprKind::Apply { name, args }
                if !elementwise_call(&classification, name, args.len()) =>
            {
                problems.push(format!("`{name}` is not an element-wise built-in"));
            }
            ExprKind::Ident(name) if name != var && self.names.is_variable(name) => {
                if written.contains(name) {
                    out.push(Access {
                        array: name.clone(),
                        subscript: Some(vec![Subscript {
                            coeff: 0,
                            offset: Linear::constant(0.0),
                        }]),
                        write: false,
                        stmt: k,
                    });
                } else if self.dims.get(name) != Dim::Scalar {
                    problems.push(format!(
                        "{name} is used whole but is not known to be a scalar"
                    ));
                }
            }
            ExprKind::Matrix(_) | ExprKind::Other(_) | ExprKind::Range { .. } | ExprKind::Colon => {
                problems.push(format!("unsupported expression `{}`", self.text(x)));
            }
            _ => {}
        });
        problems.dedup();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("; "))
        }
    }

    // Dependence graph (000 §6.4.1): carried dependences order iterations, loop-independent
    // ones order statements in the text; a read and a write of one statement in the same
    // iteration is no cycle (the right side is evaluated first).
    fn graph(&self, n: usize, accesses: &[Access], bounds: Bounds) -> Graph {
        let mut g = Graph::new(n);
        for (x, a) in accesses.iter().enumerate() {
            for b in &accesses[x..] {
                if a.array != b.array || !(a.write || b.write) {
                    continue;
                }
                let directions = directions(a, b, bounds);
                for d in directions {
                    let (from, to) = match d {
                        Direction::Before => (a.stmt, b.stmt),
                        Direction::After => (b.stmt, a.stmt),
                        Direction::Same => {
                            if a.stmt == b.stmt {
                                continue;
                            }
                            (a.stmt.min(b.stmt), a.stmt.max(b.stmt))
                        }
                    };
                    if from == to {
                        g.self_carried.insert(from);
                    } else {
                        g.add(from, to);
                    }
                }
            }
        }
        g
    }

    fn orientation(&self, array: &str) -> Dim {
        match (self.dims.get(array), self.options.assume) {
            (Dim::Row, _) => Dim::Row,
            (Dim::Column, _) => Dim::Column,
            (_, Some(a)) => a,
            (d, None) => d,
        }
    }

    fn vector_statement(
        &self,
        s: &Stmt,
        shape: &Shape,
        var: &str,
        range: &LoopRange,
    ) -> Result<String, String> {
        let StmtKind::Assign { lhs, rhs, .. } = &s.kind else {
            return Err("not an assignment".into());
        };
        match shape {
            Shape::Reduction { var: acc, op, term } => {
                // Integer (and single) accumulators round at every step of the loop, where
                // `s + sum(x)` rounds once: only double arithmetic may be regrouped.
                self.double_or_guard(acc, term, "reduction")?;
                if !mentions(term, var) {
                    return Err(format!("the term added to {acc} does not depend on {var}"));
                }
                let target = self.first_orientation(term, var).unwrap_or(Dim::Row);
                let e = self.vector_expr(term, var, range, target)?;
                Ok(format!(
                    "{acc} = {acc} {op} {}",
                    self.builtin_call("sum", &e)
                ))
            }
            Shape::Scatter {
                array,
                index,
                op,
                term,
            } => self.scatter_statement(array, index, op, term, var, range),
            Shape::Element => {
                let ExprKind::Apply { name, args } = &lhs.unparen().kind else {
                    return Err("unsupported assignment target".into());
                };
                let (left, target) = self
                    .indexed_image(name, args, var, range)?
                    .ok_or("the written element is the same in every iteration")?;
                match target {
                    Dim::Row | Dim::Column => {}
                    Dim::Scalar => {
                        return Err(format!("{name} is known to be a scalar but is written at several elements"))
                    }
                    Dim::Unknown | Dim::Pending => {
                        return Err(format!(
                            "the orientation of {name} is unknown (use --assume-orientation row|column)"
                        ))
                    }
                }
                let right = self.vector_expr(rhs, var, range, target)?;
                Ok(format!("{left} = {right}"))
            }
        }
    }

    /// A regrouped sum is exact only in double: known double, or guarded at run time when
    /// the class of a variable is unknown (a parameter); refused for known integer or single.
    fn double_or_guard(&self, acc: &str, term: &Expr, kind: &str) -> Result<(), String> {
        use crate::classes::Class;
        let mut classes = crate::classes::Classes::of_scope(self.program, &self.scope);
        let mut names: BTreeSet<String> = [acc.to_string()].into_iter().collect();
        term.walk(&mut |x| {
            if let ExprKind::Ident(n) | ExprKind::Apply { name: n, .. } = &x.kind {
                if self.names.is_variable(n) {
                    names.insert(n.clone());
                }
            }
        });
        let mut guards = Vec::new();
        for n in &names {
            match classes.get(n) {
                c if c.computes_in_double() => {}
                Class::Unknown if !self.temps.borrow().contains_key(n) => guards.push(n.clone()),
                c => {
                    return Err(format!(
                        "the {kind} into {acc} regroups additions, and `{n}` is {c:?}: integer and single arithmetic round at every step"
                    ))
                }
            }
        }
        if !guards.is_empty() && self.names.is_variable("isa") {
            return Err(format!(
                "the {kind} into {acc} needs a class check, and a variable shadows `isa`"
            ));
        }
        for g in &guards {
            classes.of.insert(g.clone(), Class::Double);
        }
        let c = classes.expr(term);
        if !c.computes_in_double() {
            return Err(format!(
                "the {kind} into {acc} regroups additions, and `{}` is not known to compute in double ({c:?})",
                self.text(term)
            ));
        }
        self.class_guards.borrow_mut().extend(guards);
        Ok(())
    }

    /// `h(:) = h(:) + accumarray(reshape(P, [], 1), E, [numel(h), 1])`: the same sums per
    /// element, in another order (so only for double), the same errors for an index out of
    /// range (the loop's read of `h(p(i))` fails, and so does accumarray with that size).
    fn scatter_statement(
        &self,
        array: &str,
        index: &Expr,
        op: &str,
        term: &Expr,
        var: &str,
        range: &LoopRange,
    ) -> Result<String, String> {
        self.double_or_guard(array, term, "scatter-add")?;
        let idx = self.vector_expr(index, var, range, Dim::Row)?;
        let column = |text: &str| self.builtin_call("reshape", &format!("{text}, [], 1"));
        let vals = if mentions(term, var) {
            column(&self.vector_expr(term, var, range, Dim::Row)?)
        } else {
            self.vector_expr(term, var, range, Dim::Row)?
        };
        let size = format!("[{}, 1]", self.builtin_call("numel", array));
        Ok(format!(
            "{array}(:) = {array}(:) {op} {}",
            self.builtin_call("accumarray", &format!("{}, {vals}, {size}", column(&idx)))
        ))
    }

    fn first_orientation(&self, e: &Expr, var: &str) -> Option<Dim> {
        let mut found = None;
        e.walk(&mut |x| {
            if let ExprKind::Apply { name, args } = &x.kind {
                if found.is_none() && self.names.is_variable(name) {
                    let dummy = LoopRange {
                        lower: Linear::constant(1.0),
                        step: 1,
                        upper: Linear::constant(1.0),
                        values: None,
                    };
                    if let Ok(Some((_, d))) = self.indexed_image(name, args, var, &dummy) {
                        found = Some(d);
                    }
                }
            }
        });
        found.filter(|d| *d != Dim::Unknown)
    }

    /// The right-hand side over the whole iteration space: subscripts become ranges, the
    /// loop variable a row range, `*`/`/`/`^` their element-wise forms.
    fn vector_expr(
        &self,
        e: &Expr,
        var: &str,
        range: &LoopRange,
        target: Dim,
    ) -> Result<String, String> {
        let mut rw = Rewriter::default();
        let base = e.span.start;
        let mut problem = None;
        let local = |span: crate::ast::Span| crate::ast::Span {
            start: span.start - base,
            end: span.end - base,
            ..span
        };
        self.rewrite_expr(e, var, range, target, &mut rw, &local, &mut problem);
        if let Some(p) = problem {
            return Err(p);
        }
        rw.apply(self.text(e)).map_err(|o| o.to_string())
    }

    #[allow(clippy::too_many_arguments)]
    fn rewrite_expr(
        &self,
        e: &Expr,
        var: &str,
        range: &LoopRange,
        target: Dim,
        rw: &mut Rewriter,
        local: &dyn Fn(crate::ast::Span) -> crate::ast::Span,
        problem: &mut Option<String>,
    ) {
        let transpose = |d: Dim| {
            if d != target && d != Dim::Unknown {
                ".'"
            } else {
                ""
            }
        };
        match &e.kind {
            ExprKind::Apply { name, args } if self.names.is_variable(name) => {
                match self
                    .indexed_image(name, args, var, range)
                    .or_else(|why| self.gather(name, args, var, range).ok_or(why))
                {
                    Ok(Some((image, d))) => {
                        if d == Dim::Unknown {
                            *problem = Some(format!(
                                "the orientation of {name} is unknown (use --assume-orientation row|column)"
                            ));
                        }
                        rw.replace(local(e.span), format!("{image}{}", transpose(d)));
                    }
                    Ok(None) => {} // invariant element: a scalar
                    Err(why) => *problem = Some(why),
                }
            }
            ExprKind::Apply { .. } if self.line_sum(e, var).is_some() => {
                let Some((array, subs, dim, f)) = self.line_sum(e, var) else {
                    return;
                };
                let varying = if dim == 2 { &subs[0] } else { &subs[1] };
                // The dimension is explicit: `sum(A(I, :))` of a one-row block would sum
                // the wrong way.
                let extra = if matches!(f, "max" | "min") {
                    "[], "
                } else {
                    ""
                };
                match self.subscript(varying, var).filter(|s| s.coeff != 0) {
                    Some(sub) => {
                        let image = range.image(&sub);
                        let (text, d) = if dim == 2 {
                            (format!("{f}({array}({image}, :), {extra}2)"), Dim::Column)
                        } else {
                            (format!("{f}({array}(:, {image}), {extra}1)"), Dim::Row)
                        };
                        rw.replace(local(e.span), format!("{text}{}", transpose(d)));
                    }
                    None => *problem = Some(format!("subscript of {array} is not affine in {var}")),
                }
            }
            ExprKind::Apply { name, args } if self.inlinable(name).is_some() => {
                let Some((params, body)) = self.inlinable(name) else {
                    return;
                };
                let mut texts = Vec::new();
                for a in args {
                    match self.vector_expr(a, var, range, target) {
                        Ok(t) => texts.push(t),
                        Err(why) => {
                            *problem = Some(why);
                            return;
                        }
                    }
                }
                match self.inline_call(params, body, &texts) {
                    Some(t) => rw.replace(local(e.span), t),
                    None => *problem = Some(format!("{name} cannot be inlined")),
                }
            }
            ExprKind::Ident(t) if self.temps.borrow().contains_key(t) => {
                let def = self.temps.borrow().get(t).cloned();
                if let Some(def) = def {
                    match self.vector_expr(&def, var, range, target) {
                        Ok(text) => rw.replace(local(e.span), format!("({text})")),
                        Err(why) => *problem = Some(why),
                    }
                }
            }
            ExprKind::Ident(n) if n == var => {
                let whole = LoopRange {
                    lower: range.lower.clone(),
                    step: range.step,
                    upper: range.upper.clone(),
                    values: range.values.clone(),
                };
                let sub = Subscript {
                    coeff: 1,
                    offset: Linear::constant(0.0),
                };
                rw.replace(
                    local(e.span),
                    format!("({}){}", whole.image(&sub), transpose(Dim::Row)),
                );
            }
            ExprKind::Binary { op, lhs, rhs } => {
                if let Some(new_op) = elementwise_op(op) {
                    let gap = crate::ast::Span {
                        start: lhs.span.end,
                        end: rhs.span.start,
                        ..e.span
                    };
                    let between = &self.program.source[gap.start..gap.end];
                    rw.replace(local(gap), between.replacen(op.as_str(), new_op, 1));
                }
                self.rewrite_expr(lhs, var, range, target, rw, local, problem);
                self.rewrite_expr(rhs, var, range, target, rw, local, problem);
            }
            ExprKind::Unary { operand, .. } | ExprKind::Paren(operand) => {
                self.rewrite_expr(operand, var, range, target, rw, local, problem)
            }
            ExprKind::Apply { args, .. } => {
                for a in args {
                    self.rewrite_expr(a, var, range, target, rw, local, problem);
                }
            }
            ExprKind::Postfix { .. } => *problem = Some("transpose inside the loop body".into()),
            _ => {}
        }
    }
}

/// The identifiers in an atom's text (an atom may be an opaque subexpression, `numel(x)`).
fn identifiers(text: &str) -> Vec<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with(|c: char| c.is_alphabetic()))
        .map(str::to_string)
        .collect()
}

/// Directions in which two accesses may touch one element: per dimension the test of one
/// loop level, intersected over the dimensions (an element is the same only when every
/// subscript is); anything when the dimensionalities differ or a subscript is not affine.
fn directions(a: &Access, b: &Access, bounds: Bounds) -> BTreeSet<Direction> {
    let all: BTreeSet<Direction> = [Direction::Before, Direction::Same, Direction::After]
        .into_iter()
        .collect();
    match (&a.subscript, &b.subscript) {
        (Some(sa), Some(sb)) if sa.len() == sb.len() => sa
            .iter()
            .zip(sb)
            .map(|(x, y)| test(x, y, bounds).directions)
            .fold(all, |acc, d| acc.intersection(&d).copied().collect()),
        _ => all,
    }
}

fn assigns(s: &Stmt, name: &str) -> bool {
    assigned_names(std::slice::from_ref(s)).contains(name)
}

fn still_mentions(statement: &str, var: &str) -> bool {
    match crate::parse(&format!("{statement};\n"), std::path::Path::new("<vector>")) {
        Ok(p) => p
            .statements
            .iter()
            .any(|s| s.exprs().iter().any(|e| mentions(e, var))),
        Err(_) => true,
    }
}

fn mentions(e: &Expr, var: &str) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if matches!(&x.kind, ExprKind::Ident(n) | ExprKind::Apply { name: n, .. } if n == var) {
            found = true;
        }
    });
    found
}

fn describe(pi: &[PiNode]) -> String {
    pi.iter()
        .map(|p| {
            let s: Vec<String> = p.statements.iter().map(|k| format!("S{}", k + 1)).collect();
            if p.cyclic {
                format!("cycle{{{}}}", s.join(","))
            } else {
                s.join(",")
            }
        })
        .collect::<Vec<_>>()
        .join(" -> ")
}
