//! Human-readable text (`if y > 0: 10*y`, 004 Fig. 5) and Python emission (004 III.C.7: the
//! models are Python that runs under plain `python3`). Python output uses only integer
//! arithmetic: floors become `//`, rational coefficients a common denominator and `//`, which
//! is exact because counts are integers.

use std::fmt;

use num_bigint::BigInt;
use num_traits::{One, Signed, Zero};

use crate::error::Error;
use crate::expr::{common_denominator, int_rat, Atom, LinExpr};
use crate::guard::{Constraint, Guard, Relation};
use crate::nest::AffineExpr;
use crate::piecewise::Piecewise;
use crate::poly::{Monomial, QuasiPolynomial};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Human,
    Python,
}

/// `2*n - m + 3` from integer coefficients and factor texts ("" for the constant).
fn join_terms(items: &[(BigInt, String)]) -> String {
    let mut out = String::new();
    for (c, factor) in items.iter().filter(|(c, _)| !c.is_zero()) {
        let magnitude = c.abs();
        let body = match (factor.is_empty(), magnitude.is_one()) {
            (true, _) => magnitude.to_string(),
            (false, true) => factor.clone(),
            (false, false) => format!("{magnitude}*{factor}"),
        };
        if out.is_empty() {
            if c.is_negative() {
                out.push('-');
            }
        } else {
            out.push_str(if c.is_negative() { " - " } else { " + " });
        }
        out.push_str(&body);
    }
    if out.is_empty() {
        out.push('0');
    }
    out
}

pub(crate) fn affine_text(e: &AffineExpr) -> String {
    let mut items: Vec<(BigInt, String)> = e
        .terms
        .iter()
        .map(|(n, c)| (BigInt::from(*c), n.clone()))
        .collect();
    items.push((BigInt::from(e.constant), String::new()));
    join_terms(&items)
}

fn atom_text(a: &Atom, style: Style) -> String {
    match a {
        Atom::Symbol(s) => s.clone(),
        Atom::Floor(arg) => {
            let (num, d) = integral_items(arg, style);
            match style {
                Style::Human if d.is_one() => format!("floor({num})"),
                Style::Human if !num.contains(' ') => format!("floor({num}/{d})"),
                Style::Human => format!("floor(({num})/{d})"),
                Style::Python => format!("(({num})//{d})"),
            }
        }
    }
}

/// Numerator text and common denominator of a linear expression.
fn integral_items(e: &LinExpr, style: Style) -> (String, BigInt) {
    let d = common_denominator(e.terms().values().chain([e.constant_term()]));
    let scale = int_rat(&d);
    let mut items: Vec<(BigInt, String)> = e
        .terms()
        .iter()
        .map(|(a, c)| ((c * &scale).to_integer(), atom_text(a, style)))
        .collect();
    items.push(((e.constant_term() * &scale).to_integer(), String::new()));
    (join_terms(&items), d)
}

fn lin_text(e: &LinExpr, style: Style) -> String {
    let (num, d) = integral_items(e, style);
    if d.is_one() {
        num
    } else {
        format!("({num})/{d}")
    }
}

fn monomial_text(m: &Monomial, style: Style) -> String {
    let power = if style == Style::Python { "**" } else { "^" };
    m.factors()
        .iter()
        .map(|(a, e)| {
            let t = atom_text(a, style);
            if *e == 1 {
                t
            } else {
                format!("{t}{power}{e}")
            }
        })
        .collect::<Vec<_>>()
        .join("*")
}

fn poly_text(p: &QuasiPolynomial, style: Style) -> String {
    let d = p.denominator();
    let scaled = p.scaled_by_int(&d);
    let mut terms: Vec<(&Monomial, _)> = scaled.terms().iter().collect();
    terms.sort_by(|(a, _), (b, _)| b.degree().cmp(&a.degree()).then(a.cmp(b)));
    let items: Vec<(BigInt, String)> = terms
        .into_iter()
        .map(|(m, c)| (c.to_integer(), monomial_text(m, style)))
        .collect();
    let num = join_terms(&items);
    match style {
        _ if d.is_one() => num,
        Style::Human if items.len() == 1 => format!("{num}/{d}"),
        Style::Human => format!("({num})/{d}"),
        Style::Python => format!("({num})//{d}"),
    }
}

fn constraint_text(c: &Constraint, style: Style) -> String {
    let e = c.expr();
    if let Relation::Divisible(m) = c.relation() {
        let body = lin_text(e, style);
        return if e.terms().len() == 1 && e.constant_term().is_zero() && !body.contains(' ') {
            format!("{body} % {m} == 0")
        } else {
            format!("({body}) % {m} == 0")
        };
    }
    // Integer coefficients after normalisation: move negative terms to the right-hand side.
    let mut left = Vec::new();
    let mut right = Vec::new();
    for (a, coef) in e.terms() {
        let k = coef.to_integer();
        if k.is_negative() {
            right.push((-k, atom_text(a, style)));
        } else {
            left.push((k, atom_text(a, style)));
        }
    }
    let k = e.constant_term().to_integer();
    let eq = matches!(c.relation(), Relation::Zero);
    if left.is_empty() {
        // -x + k >= 0  reads  x <= k
        let op = if eq { "==" } else { "<=" };
        return format!("{} {op} {}", join_terms(&right), k);
    }
    if eq {
        right.push((-k, String::new()));
        return format!("{} == {}", join_terms(&left), join_terms(&right));
    }
    if k.is_negative() {
        // x - k >= 0 with k >= 1 reads x > k - 1 (004 writes `y > 0`)
        right.push((-k - BigInt::one(), String::new()));
        format!("{} > {}", join_terms(&left), join_terms(&right))
    } else {
        left.push((k, String::new()));
        format!("{} >= {}", join_terms(&left), join_terms(&right))
    }
}

fn guard_text(g: &Guard, style: Style) -> String {
    g.constraints()
        .iter()
        .map(|c| constraint_text(c, style))
        .collect::<Vec<_>>()
        .join(" and ")
}

impl fmt::Display for LinExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&lin_text(self, Style::Human))
    }
}

impl fmt::Display for QuasiPolynomial {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&poly_text(self, Style::Human))
    }
}

impl fmt::Display for Constraint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&constraint_text(self, Style::Human))
    }
}

impl fmt::Display for Guard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_always() {
            f.write_str("true")
        } else {
            f.write_str(&guard_text(self, Style::Human))
        }
    }
}

/// One line per piece, `if GUARD: VALUE` (or just `VALUE` when unguarded); `0` if empty.
impl fmt::Display for Piecewise {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_zero() {
            return f.write_str("0");
        }
        let lines: Vec<String> = self
            .pieces()
            .iter()
            .map(|p| {
                if p.guard.is_always() {
                    p.value.to_string()
                } else {
                    format!("if {}: {}", p.guard, p.value)
                }
            })
            .collect();
        f.write_str(&lines.join("\n"))
    }
}

const PYTHON_KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield", "total",
];

/// `name` with every character that cannot be in an identifier replaced by `_`, and a `v`
/// in front of an empty name or one that starts with a digit: how source names (`a.n`,
/// `%12`, `1x`) become model parameters.
pub fn identifier(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        s.insert(0, 'v');
    }
    s
}

/// A name usable as a Python parameter (`total` is reserved by the emitted function).
pub fn check_python_identifier(name: &str) -> Result<(), Error> {
    let valid = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !PYTHON_KEYWORDS.contains(&name);
    if valid {
        Ok(())
    } else {
        Err(Error::InvalidIdentifier {
            name: name.to_string(),
        })
    }
}

impl QuasiPolynomial {
    /// A Python expression with integer arithmetic only (`(n**2 - n)//2`). Exact when the value
    /// is an integer, as counts are.
    pub fn to_python(&self) -> Result<String, Error> {
        for p in self.parameters() {
            check_python_identifier(&p)?;
        }
        Ok(poly_text(self, Style::Python))
    }
}

impl Guard {
    /// A Python boolean expression (`True` for the empty guard).
    pub fn to_python(&self) -> Result<String, Error> {
        for p in self.parameters() {
            check_python_identifier(&p)?;
        }
        Ok(if self.is_always() {
            "True".to_string()
        } else {
            guard_text(self, Style::Python)
        })
    }
}

impl Piecewise {
    /// One Python expression: `((V1) if G1 else 0) + ...` (or `0`).
    pub fn to_python_expr(&self) -> Result<String, Error> {
        if self.is_zero() {
            return Ok("0".to_string());
        }
        let mut parts = Vec::new();
        for p in self.pieces() {
            let v = p.value.to_python()?;
            parts.push(if p.guard.is_always() {
                format!("({v})")
            } else {
                format!("(({v}) if {} else 0)", p.guard.to_python()?)
            });
        }
        Ok(parts.join(" + "))
    }

    /// A Python function of the parameters (sorted by name), in the style of 004 Fig. 5(b):
    /// one `if guard: total += value` per piece.
    pub fn to_python_function(&self, name: &str) -> Result<String, Error> {
        check_python_identifier(name)?;
        let params: Vec<String> = self.parameters().into_iter().collect();
        for p in &params {
            check_python_identifier(p)?;
        }
        let mut out = format!("def {name}({}):\n    total = 0\n", params.join(", "));
        for p in self.pieces() {
            let v = p.value.to_python()?;
            if p.guard.is_always() {
                out.push_str(&format!("    total += {v}\n"));
            } else {
                out.push_str(&format!(
                    "    if {}:\n        total += {v}\n",
                    p.guard.to_python()?
                ));
            }
        }
        out.push_str("    return total\n");
        Ok(out)
    }
}
