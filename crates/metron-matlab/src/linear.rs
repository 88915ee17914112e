//! Affine forms `c + Σ k_i·atom_i` over scalar atoms, used for range simplification (000 §5.3)
//! and for subscripts in dependence testing (000 §6.4.1).

use crate::ast::{Expr, ExprKind};

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Linear {
    pub constant: f64,
    /// Atoms in order of first appearance: identifier names or the source text of an opaque
    /// scalar subexpression (`numel(x)`, `end`).
    pub terms: Vec<(String, f64)>,
}

impl Linear {
    pub fn constant(c: f64) -> Linear {
        Linear {
            constant: c,
            terms: Vec::new(),
        }
    }

    pub fn atom(name: &str) -> Linear {
        Linear {
            constant: 0.0,
            terms: vec![(name.to_string(), 1.0)],
        }
    }

    pub fn add(&self, other: &Linear) -> Linear {
        let mut out = self.clone();
        out.constant += other.constant;
        for (name, k) in &other.terms {
            match out.terms.iter_mut().find(|(n, _)| n == name) {
                Some(t) => t.1 += k,
                None => out.terms.push((name.clone(), *k)),
            }
        }
        out.terms.retain(|(_, k)| *k != 0.0);
        out
    }

    pub fn scale(&self, by: f64) -> Linear {
        let mut out = Linear {
            constant: self.constant * by,
            terms: self
                .terms
                .iter()
                .map(|(n, k)| (n.clone(), k * by))
                .collect(),
        };
        out.terms.retain(|(_, k)| *k != 0.0);
        out
    }

    pub fn sub(&self, other: &Linear) -> Linear {
        self.add(&other.scale(-1.0))
    }

    pub fn coefficient(&self, atom: &str) -> f64 {
        self.terms
            .iter()
            .find(|(n, _)| n == atom)
            .map(|t| t.1)
            .unwrap_or(0.0)
    }

    pub fn without(&self, atom: &str) -> Linear {
        let mut out = self.clone();
        out.terms.retain(|(n, _)| n != atom);
        out
    }

    pub fn as_constant(&self) -> Option<f64> {
        self.terms.is_empty().then_some(self.constant)
    }

    /// Writes the form in the thesis's style: `3*N+2`, `N`, `2*N-1`.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for (name, k) in &self.terms {
            let magnitude = k.abs();
            let sign = if *k < 0.0 {
                "-"
            } else if out.is_empty() {
                ""
            } else {
                "+"
            };
            out.push_str(sign);
            if magnitude != 1.0 {
                out.push_str(&format_number(magnitude));
                out.push('*');
            }
            out.push_str(name);
        }
        if out.is_empty() {
            return format_number(self.constant);
        }
        if self.constant > 0.0 {
            out.push('+');
            out.push_str(&format_number(self.constant));
        } else if self.constant < 0.0 {
            out.push('-');
            out.push_str(&format_number(-self.constant));
        }
        out
    }

    /// [`Self::render`], parenthesised unless it is one atom or a non-negative number.
    pub fn render_operand(&self) -> String {
        let simple = (self.terms.is_empty() && self.constant >= 0.0)
            || (self.constant == 0.0 && self.terms.len() == 1 && self.terms[0].1 == 1.0);
        if simple {
            self.render()
        } else {
            format!("({})", self.render())
        }
    }
}

pub fn format_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

pub fn is_integer(x: f64) -> bool {
    x.fract() == 0.0 && x.is_finite()
}

/// The affine form of `e`, when `e` is built from numbers, scalar atoms, `+`, `-`, unary `-`
/// and multiplication or division by a number. `atom` decides which leaves are scalar atoms
/// (returns their name) and rejects everything else.
pub fn linear_form(e: &Expr, _src: &str, atom: &dyn Fn(&Expr) -> Option<String>) -> Option<Linear> {
    match &e.kind {
        ExprKind::Number(x) => Some(Linear::constant(*x)),
        ExprKind::Paren(inner) => linear_form(inner, _src, atom),
        ExprKind::Unary { op, operand } if op == "-" => {
            Some(linear_form(operand, _src, atom)?.scale(-1.0))
        }
        ExprKind::Unary { op, operand } if op == "+" => linear_form(operand, _src, atom),
        ExprKind::Binary { op, lhs, rhs } => {
            let l = linear_form(lhs, _src, atom)?;
            let r = linear_form(rhs, _src, atom)?;
            combine(op, l, r)
        }
        ExprKind::Apply { name, args } => match (mc2mc_operator(name), args.as_slice()) {
            // Mc2Mc's call style (`plus(a,b)`, `times(2,k)`): the same operators as calls.
            // Callers make sure no variable of the scope shadows these names.
            (Some(op), [a, b]) if op != "-u" => {
                let l = linear_form(a, _src, atom)?;
                let r = linear_form(b, _src, atom)?;
                combine(op, l, r)
            }
            (Some("-u"), [a]) => Some(linear_form(a, _src, atom)?.scale(-1.0)),
            _ => atom(e).map(|name| Linear::atom(&name)),
        },
        _ => atom(e).map(|name| Linear::atom(&name)),
    }
}

/// The operator a Mc2Mc-style call stands for (`plus` -> `+`, `uminus` -> `-u`).
pub fn mc2mc_operator(name: &str) -> Option<&'static str> {
    Some(match name {
        "plus" => "+",
        "minus" => "-",
        "times" => ".*",
        "mtimes" => "*",
        "rdivide" => "./",
        "mrdivide" => "/",
        "uminus" => "-u",
        _ => return None,
    })
}

/// Names a scope must not assign for Mc2Mc's call style to be read as operators.
pub const MC2MC_NAMES: &[&str] = &[
    "plus", "minus", "times", "mtimes", "rdivide", "mrdivide", "uminus", "colon",
];

fn combine(op: &str, l: Linear, r: Linear) -> Option<Linear> {
    match op {
        "+" => Some(l.add(&r)),
        "-" => Some(l.sub(&r)),
        "*" | ".*" => match (l.as_constant(), r.as_constant()) {
            (Some(c), _) => Some(r.scale(c)),
            (_, Some(c)) => Some(l.scale(c)),
            _ => None,
        },
        "/" | "./" => match r.as_constant() {
            Some(c) if c != 0.0 => Some(l.scale(1.0 / c)),
            _ => None,
        },
        _ => None,
    }
}
