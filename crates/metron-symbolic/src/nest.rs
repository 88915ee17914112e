//! Affine loop nests as the counting input: the static control part (SCoP) of 004 III.C.2.
//!
//! A loop is `for (var = start; var <= end (or <); var += stride)` with a positive stride, or
//! the mirror image `var >= end (or >)` with a negative one. `start` and `end` may be `max`/
//! `min` of affine expressions in parameters and outer loop variables (004 Listing 3).
//! Conditions on the body are affine comparisons (004 Listing 4) or modulo tests
//! (004 Listing 5).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::expr::{rat, Atom, LinExpr};

/// An affine expression with integer coefficients over named integers.
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct AffineExpr {
    #[serde(default)]
    pub terms: BTreeMap<String, i64>,
    #[serde(default)]
    pub constant: i64,
}

impl AffineExpr {
    pub fn constant(c: i64) -> Self {
        AffineExpr {
            terms: BTreeMap::new(),
            constant: c,
        }
    }

    pub fn var(name: &str) -> Self {
        Self::term(name, 1)
    }

    pub fn term(name: &str, coefficient: i64) -> Self {
        let mut e = Self::constant(0);
        if coefficient != 0 {
            e.terms.insert(name.to_string(), coefficient);
        }
        e
    }

    /// `self + k * other`, with overflow checked.
    pub fn plus_scaled(&self, other: &AffineExpr, k: i64) -> Result<AffineExpr, Error> {
        let overflow = || Error::Overflow {
            context: format!("{self} + {k}*({other})"),
        };
        let mut out = self.clone();
        for (n, c) in &other.terms {
            let add = c.checked_mul(k).ok_or_else(overflow)?;
            let slot = out.terms.entry(n.clone()).or_insert(0);
            *slot = slot.checked_add(add).ok_or_else(overflow)?;
        }
        out.terms.retain(|_, c| *c != 0);
        out.constant = other
            .constant
            .checked_mul(k)
            .and_then(|a| a.checked_add(self.constant))
            .ok_or_else(overflow)?;
        Ok(out)
    }

    pub fn plus_constant(&self, c: i64) -> Result<AffineExpr, Error> {
        self.plus_scaled(&AffineExpr::constant(c), 1)
    }

    /// Parses `2*i + n - 1`, `3 - (i - j)`, `4*(n + 1)`: sums of integer multiples of names.
    pub fn parse(text: &str) -> Result<AffineExpr, Error> {
        let mut p = crate::parse::Parser::new(text);
        let e = p.affine()?;
        p.end()?;
        Ok(e)
    }

    pub fn names(&self) -> impl Iterator<Item = &String> {
        self.terms.keys()
    }

    pub(crate) fn to_lin(&self) -> LinExpr {
        let mut e = LinExpr::integer(self.constant);
        for (n, c) in &self.terms {
            e.add_term(Atom::Symbol(n.clone()), rat(*c));
        }
        e
    }

    /// Value under integer values of its names (checked arithmetic).
    pub fn evaluate(&self, values: &BTreeMap<String, i64>) -> Result<i64, Error> {
        let mut v = self.constant;
        for (n, c) in &self.terms {
            let x = values
                .get(n)
                .ok_or_else(|| Error::MissingParameter { name: n.clone() })?;
            v = c
                .checked_mul(*x)
                .and_then(|t| t.checked_add(v))
                .ok_or_else(|| Error::Overflow {
                    context: format!("evaluating {self}"),
                })?;
        }
        Ok(v)
    }
}

impl fmt::Display for AffineExpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::print::affine_text(self))
    }
}

/// A loop bound: one expression, or the `max`/`min` of several.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    Max(Vec<AffineExpr>),
    Min(Vec<AffineExpr>),
}

impl Bound {
    pub fn single(e: AffineExpr) -> Self {
        Bound::Max(vec![e])
    }

    /// Parses `n - 1`, `max(0, i - 3)`, `min(6 - i, 3)`.
    pub fn parse(text: &str) -> Result<Bound, Error> {
        let mut p = crate::parse::Parser::new(text);
        let b = p.bound()?;
        p.end()?;
        Ok(b)
    }

    pub fn exprs(&self) -> &[AffineExpr] {
        match self {
            Bound::Max(v) | Bound::Min(v) => v,
        }
    }

    /// The same bound without the expressions that are never its value alone: repeats, and
    /// those another one of the same terms passes by a constant (`max(n - 1, n + 2)` is
    /// `n + 2`). Splitting a bound into pieces ([`Bound::exprs`], one per expression) then
    /// makes no piece whose condition is constant.
    pub fn reduced(&self) -> Bound {
        let maximum = matches!(self, Bound::Max(_));
        let mut kept: Vec<AffineExpr> = Vec::new();
        for e in self.exprs() {
            match kept.iter_mut().find(|k| k.terms == e.terms) {
                Some(k) if maximum => k.constant = k.constant.max(e.constant),
                Some(k) => k.constant = k.constant.min(e.constant),
                None => kept.push(e.clone()),
            }
        }
        match self {
            Bound::Max(_) => Bound::Max(kept),
            Bound::Min(_) => Bound::Min(kept),
        }
    }

    pub fn evaluate(&self, values: &BTreeMap<String, i64>) -> Result<i64, Error> {
        let vals = self
            .exprs()
            .iter()
            .map(|e| e.evaluate(values))
            .collect::<Result<Vec<_>, _>>()?;
        let v = match self {
            Bound::Max(_) => vals.into_iter().max(),
            Bound::Min(_) => vals.into_iter().min(),
        };
        v.ok_or_else(|| Error::InvalidNest {
            message: "a bound needs at least one expression".into(),
        })
    }
}

/// One loop of a nest.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Loop {
    pub var: String,
    pub start: Bound,
    pub end: Bound,
    /// `<=` / `>=` (true) or `<` / `>` (false).
    pub end_inclusive: bool,
    /// Constant, non-zero; negative for down-counting loops.
    pub stride: i64,
    /// Values `e % k` of outer loop variables and parameters that the bounds name by their
    /// symbols (red-black `j = 1 + (i + c) % 2`): the nest is counted per residue
    /// ([`crate::residue`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub residues: Vec<crate::residue::Residue>,
}

impl Loop {
    /// The names its start and end read: counters of the loops around it and parameters.
    pub fn bound_names(&self) -> impl Iterator<Item = &String> {
        self.start
            .exprs()
            .iter()
            .chain(self.end.exprs())
            .flat_map(|e| e.names())
    }

    /// `for (var = start; var < end; var += stride)` (stride > 0) or
    /// `for (var = start; var > end; var += stride)` (stride < 0), bounds parsed by
    /// [`Bound::parse`].
    pub fn exclusive(var: &str, start: &str, end: &str, stride: i64) -> Result<Loop, Error> {
        Ok(Loop {
            var: var.to_string(),
            start: Bound::parse(start)?,
            end: Bound::parse(end)?,
            end_inclusive: false,
            stride,
            residues: Vec::new(),
        })
    }

    /// As [`exclusive`](Self::exclusive) with `<=` / `>=`.
    pub fn inclusive(var: &str, start: &str, end: &str, stride: i64) -> Result<Loop, Error> {
        Ok(Loop {
            end_inclusive: true,
            ..Self::exclusive(var, start, end, stride)?
        })
    }
}

/// Comparison operators of affine conditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum CmpOp {
    #[serde(rename = "<")]
    Lt,
    #[serde(rename = "<=")]
    Le,
    #[serde(rename = ">")]
    Gt,
    #[serde(rename = ">=")]
    Ge,
    #[serde(rename = "==")]
    Eq,
    #[serde(rename = "!=")]
    Ne,
}

impl CmpOp {
    /// The comparison that holds exactly where `self` fails (`<` and `>=`).
    pub fn negated(self) -> CmpOp {
        match self {
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Le => CmpOp::Gt,
            CmpOp::Gt => CmpOp::Le,
            CmpOp::Ge => CmpOp::Lt,
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
        }
    }

    pub fn holds(self, a: i64, b: i64) -> bool {
        match self {
            CmpOp::Lt => a < b,
            CmpOp::Le => a <= b,
            CmpOp::Gt => a > b,
            CmpOp::Ge => a >= b,
            CmpOp::Eq => a == b,
            CmpOp::Ne => a != b,
        }
    }

    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
        }
    }
}

/// A condition guarding the body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Condition {
    /// `lhs OP rhs` (004 Listing 4: `j > 4`).
    Affine {
        lhs: AffineExpr,
        op: CmpOp,
        rhs: AffineExpr,
    },
    /// `expr % modulus == residue` (or `!=` when `negated`), with the mathematical (floor,
    /// Python) remainder in `[0, modulus)`. C's `%` differs for negative `expr` unless
    /// `residue == 0` (004 Listing 5: `j % 4 != 0`).
    Modulo {
        expr: AffineExpr,
        modulus: i64,
        residue: i64,
        negated: bool,
    },
}

impl Condition {
    /// Parses `j > 4`, `i + j <= n`, `j % 4 != 0`, `(i + 1) % 3 == 2`.
    pub fn parse(text: &str) -> Result<Condition, Error> {
        let mut p = crate::parse::Parser::new(text);
        let c = p.condition()?;
        p.end()?;
        Ok(c)
    }

    pub fn holds(&self, values: &BTreeMap<String, i64>) -> Result<bool, Error> {
        Ok(match self {
            Condition::Affine { lhs, op, rhs } => {
                op.holds(lhs.evaluate(values)?, rhs.evaluate(values)?)
            }
            Condition::Modulo {
                expr,
                modulus,
                residue,
                negated,
            } => {
                if *modulus <= 0 {
                    return Err(Error::InvalidNest {
                        message: format!(
                            "modulo condition needs a positive modulus, got {modulus}"
                        ),
                    });
                }
                (expr.evaluate(values)?.rem_euclid(*modulus) == *residue) != *negated
            }
        })
    }

    /// The condition with `var` replaced by `value` (a loop counter by its value at one
    /// iteration).
    pub fn substituted(&self, var: &str, value: &AffineExpr) -> Result<Condition, Error> {
        let sub = |e: &AffineExpr| -> Result<AffineExpr, Error> {
            let Some(&a) = e.terms.get(var) else {
                return Ok(e.clone());
            };
            let mut out = e.clone();
            out.terms.remove(var);
            out.plus_scaled(value, a)
        };
        Ok(match self {
            Condition::Affine { lhs, op, rhs } => Condition::Affine {
                lhs: sub(lhs)?,
                op: *op,
                rhs: sub(rhs)?,
            },
            Condition::Modulo { expr, .. } => {
                let mut out = self.clone();
                if let Condition::Modulo { expr: e, .. } = &mut out {
                    *e = sub(expr)?;
                }
                out
            }
        })
    }

    /// The condition that holds exactly where `self` fails.
    pub fn negated(&self) -> Condition {
        match self {
            Condition::Affine { lhs, op, rhs } => Condition::Affine {
                lhs: lhs.clone(),
                op: op.negated(),
                rhs: rhs.clone(),
            },
            Condition::Modulo { .. } => {
                let mut out = self.clone();
                if let Condition::Modulo { negated, .. } = &mut out {
                    *negated = !*negated;
                }
                out
            }
        }
    }

    /// The names the condition reads.
    pub fn names(&self) -> Vec<&String> {
        match self {
            Condition::Affine { lhs, rhs, .. } => lhs.names().chain(rhs.names()).collect(),
            Condition::Modulo { expr, .. } => expr.names().collect(),
        }
    }
}

/// Loops from outermost to innermost, and conditions on the innermost body.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoopNest {
    pub loops: Vec<Loop>,
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

impl LoopNest {
    pub fn new(loops: Vec<Loop>) -> Self {
        LoopNest {
            loops,
            conditions: Vec::new(),
        }
    }

    pub fn with_condition(mut self, c: Condition) -> Self {
        self.conditions.push(c);
        self
    }

    /// Checks strides, moduli, and that no bound uses its own or an inner loop's variable.
    pub fn validate(&self) -> Result<(), Error> {
        let vars: Vec<&String> = self.loops.iter().map(|l| &l.var).collect();
        let invalid = |message: String| Err(Error::InvalidNest { message });
        for (depth, l) in self.loops.iter().enumerate() {
            if l.stride == 0 {
                return invalid(format!("loop `{}` has stride 0 (never terminates)", l.var));
            }
            if vars[..depth].contains(&&l.var) {
                return invalid(format!("loop variable `{}` is bound twice", l.var));
            }
            for r in &l.residues {
                if r.modulus <= 0 {
                    return invalid(format!(
                        "residue `{}` of loop `{}` needs a positive modulus",
                        r.symbol, l.var
                    ));
                }
                if let Some(name) = r.expr.names().find(|n| vars[depth..].contains(n)) {
                    return invalid(format!(
                        "residue `{}` of loop `{}` uses `{name}`, which is not bound yet",
                        r.symbol, l.var
                    ));
                }
            }
            for b in [&l.start, &l.end] {
                if b.exprs().is_empty() {
                    return invalid(format!("loop `{}` has an empty max/min bound", l.var));
                }
                for name in b.exprs().iter().flat_map(|e| e.names()) {
                    if vars[depth..].contains(&name) {
                        return invalid(format!(
                            "bound of loop `{}` uses `{name}`, which is not bound yet (expected outer loop variables and parameters only)",
                            l.var
                        ));
                    }
                }
            }
        }
        for c in &self.conditions {
            if let Condition::Modulo { modulus, .. } = c {
                if *modulus <= 0 {
                    return invalid(format!(
                        "modulo condition needs a positive modulus, got {modulus}"
                    ));
                }
            }
        }
        Ok(())
    }

    /// Names used but not bound by a loop: the parameters of the count.
    pub fn parameters(&self) -> BTreeSet<String> {
        let mut vars: BTreeSet<&String> = self.loops.iter().map(|l| &l.var).collect();
        vars.extend(
            self.loops
                .iter()
                .flat_map(|l| &l.residues)
                .map(|r| &r.symbol),
        );
        let mut out = BTreeSet::new();
        for l in &self.loops {
            for e in l.start.exprs().iter().chain(l.end.exprs()) {
                out.extend(e.names().filter(|n| !vars.contains(n)).cloned());
            }
            for r in &l.residues {
                out.extend(r.expr.names().filter(|n| !vars.contains(n)).cloned());
            }
        }
        for c in &self.conditions {
            out.extend(c.names().into_iter().filter(|n| !vars.contains(n)).cloned());
        }
        out
    }
}

/// Name for an unknown bound supplied at model evaluation time: the variable and the source
/// line of the call (004 III.C.5: `y_16`). Non-identifier characters become `_` so the name
/// is a valid Python identifier.
pub fn unknown_bound_parameter(variable: &str, line: u32) -> String {
    format!("{}_{line}", crate::print::identifier(variable))
}
