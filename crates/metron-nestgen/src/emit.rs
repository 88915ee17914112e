//! The nest as a C program in the style of hand-written kernels: sizes as macros with
//! run-time overrides (`argv`), `MIN`/`MAX` macros, arrays indexed by the loop variables.

use std::fmt::Write;

use crate::nest::{Affine, Bound, Cmp, Condition, Loop, Nest, PARAMETERS};

/// Offset added to every index so that negative loop values stay inside the arrays.
const OFFSET: i64 = 64;
const LENGTH: i64 = 3 * OFFSET;

impl Affine {
    pub fn to_c(&self) -> String {
        let mut s = String::new();
        for (c, n) in &self.terms {
            let sep = if s.is_empty() { "" } else { " + " };
            match c {
                1 => write!(s, "{sep}{n}"),
                _ => write!(s, "{sep}{c} * {n}"),
            }
            .ok();
        }
        match (s.is_empty(), self.constant) {
            (true, c) => c.to_string(),
            (false, 0) => s,
            (false, c) if c < 0 => format!("{s} - {}", -c),
            (false, c) => format!("{s} + {c}"),
        }
    }
}

impl Bound {
    pub fn to_c(&self) -> String {
        match self {
            Bound::Affine(a) => a.to_c(),
            Bound::Min(a, b) => format!("MIN({}, {})", a.to_c(), b.to_c()),
            Bound::Max(a, b) => format!("MAX({}, {})", a.to_c(), b.to_c()),
        }
    }
}

impl Cmp {
    pub fn to_c(self) -> &'static str {
        match self {
            Cmp::Lt => "<",
            Cmp::Le => "<=",
            Cmp::Gt => ">",
            Cmp::Ge => ">=",
            Cmp::Ne => "!=",
        }
    }
}

impl Condition {
    pub fn to_c(&self) -> String {
        match self {
            Condition::Compare(l, op, r) => format!("{} {} {}", l.to_c(), op.to_c(), r.to_c()),
            Condition::Modulo(e, m) => format!("({}) % {m} == 0", e.to_c()),
        }
    }
}

fn step_c(l: &Loop) -> String {
    match l.step {
        1 => format!("{}++", l.var),
        -1 => format!("{}--", l.var),
        s if s > 0 => format!("{} += {s}", l.var),
        s => format!("{} -= {}", l.var, -s),
    }
}

/// How a loop is written. Every style runs the same passes, so the counts are the same.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    For,
    /// `v = start; while (v < end) { ...; v += step; }`.
    While,
    /// `for (v = start, t_v = 0; v < end; v += step, t_v++)`: a second counter along.
    Comma,
}

impl Nest {
    /// The kernel function `nest(n, m)` and a `main` that reads `n` and `m` from `argv`.
    pub fn c_source(&self) -> String {
        self.source(false)
    }

    /// As [`c_source`](Self::c_source), with loops also written as `while` loops and as
    /// `for` loops carrying a second counter in comma lists, chosen by the seed and depth (not
    /// by the generator's draws: the nest is the same as without styles).
    pub fn c_source_in_styles(&self) -> String {
        self.source(true)
    }

    fn style(&self, styled: bool, depth: usize) -> Style {
        match (styled, (self.seed as usize + depth) % 3) {
            (false, _) | (true, 0) => Style::For,
            (true, 1) => Style::While,
            _ => Style::Comma,
        }
    }

    fn source(&self, styled: bool) -> String {
        let mut s = String::new();
        let params = PARAMETERS.map(|p| format!("int {p}")).join(", ");
        writeln!(
            s,
            "/* metron-nestgen seed {}: a random affine loop nest.",
            self.seed
        )
        .ok();
        writeln!(
            s,
            " * corpus: kernel=nest args=\"{} {}\" params=\"n={},m={}\" */",
            self.values[0], self.values[1], self.values[0], self.values[1]
        )
        .ok();
        s.push_str("#include <stdio.h>\n#include <stdlib.h>\n\n");
        s.push_str("#define MIN(a, b) ((a) < (b) ? (a) : (b))\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\n");
        for (p, v) in PARAMETERS.iter().zip(self.values) {
            let up = p.to_uppercase();
            writeln!(s, "#ifndef {up}\n#define {up} {v}\n#endif").ok();
        }
        writeln!(
            s,
            "#define OFF {OFFSET}\n\ndouble x[{LENGTH}], y[{LENGTH}];\n"
        )
        .ok();
        writeln!(s, "void nest({params})\n{{").ok();
        let mut undeclared: Vec<String> = self
            .loops
            .iter()
            .filter(|l| !l.declared_in_for)
            .map(|l| l.var.clone())
            .collect();
        undeclared.extend(
            (0..self.loops.len())
                .filter(|&d| {
                    self.style(styled, d) == Style::Comma && !self.loops[d].declared_in_for
                })
                .map(|d| format!("t_{}", self.loops[d].var)),
        );
        if !undeclared.is_empty() {
            writeln!(s, "    int {};", undeclared.join(", ")).ok();
        }
        self.emit_loops(&mut s, 0, styled);
        s.push_str("}\n\n");
        s.push_str("int main(int argc, char **argv)\n{\n");
        for (i, p) in PARAMETERS.iter().enumerate() {
            writeln!(
                s,
                "    int {p} = argc > {} ? atoi(argv[{}]) : {};",
                i + 1,
                i + 1,
                p.to_uppercase()
            )
            .ok();
        }
        writeln!(
            s,
            "    for (int t = 0; t < {LENGTH}; t++)\n        y[t] = 0.5 + t % 7;"
        )
        .ok();
        writeln!(s, "    nest({});", PARAMETERS.join(", ")).ok();
        writeln!(
            s,
            "    double sum = 0.0;\n    for (int t = 0; t < {LENGTH}; t++)\n        sum += x[t] + y[t];"
        )
        .ok();
        s.push_str("    printf(\"%.6f\\n\", sum);\n    return 0;\n}\n");
        s
    }

    fn emit_loops(&self, s: &mut String, depth: usize, styled: bool) {
        let pad = "    ".repeat(depth + 1);
        let Some(l) = self.loops.get(depth) else {
            self.emit_body(s, &pad);
            return;
        };
        let decl = if l.declared_in_for { "int " } else { "" };
        let (v, start, cmp, end) = (&l.var, l.start.to_c(), l.cmp.to_c(), l.end.to_c());
        let style = self.style(styled, depth);
        match style {
            Style::For => writeln!(
                s,
                "{pad}for ({decl}{v} = {start}; {v} {cmp} {end}; {}) {{",
                step_c(l)
            ),
            Style::While => writeln!(
                s,
                "{pad}{decl}{v} = {start};\n{pad}while ({v} {cmp} {end}) {{"
            ),
            Style::Comma => writeln!(
                s,
                "{pad}for ({decl}{v} = {start}, t_{v} = 0; {v} {cmp} {end}; {}, t_{v}++) {{",
                step_c(l)
            ),
        }
        .ok();
        if l.pre_statement {
            writeln!(s, "{pad}    y[{} + OFF] += 0.25;", l.var).ok();
        }
        self.emit_loops(s, depth + 1, styled);
        if style == Style::While {
            writeln!(s, "{pad}    {};", step_c(l)).ok();
        }
        writeln!(s, "{pad}}}").ok();
    }

    fn emit_body(&self, s: &mut String, pad: &str) {
        let inner = &self.loops[self.loops.len() - 1].var;
        let outer = &self.loops[0].var;
        match &self.body.guard {
            Some((c, with_else)) => {
                writeln!(s, "{pad}if ({})", c.to_c()).ok();
                writeln!(s, "{pad}    x[{inner} + OFF] += y[{outer} + OFF] * 0.5;").ok();
                if *with_else {
                    writeln!(s, "{pad}else\n{pad}    x[{inner} + OFF] -= 1.0;").ok();
                }
            }
            None => {
                writeln!(s, "{pad}x[{inner} + OFF] += y[{outer} + OFF] * 0.5;").ok();
            }
        }
        if let Some(c) = &self.body.select {
            writeln!(
                s,
                "{pad}y[{inner} + OFF] = ({} ? x[{outer} + OFF] : y[{inner} + OFF]) * 0.75 + 0.125;",
                c.to_c()
            )
            .ok();
        }
    }
}
