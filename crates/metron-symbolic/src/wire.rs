//! JSON form of the symbolic types. Rationals are strings (`"-3/2"`), atoms are
//! `{"symbol": "n"}` or `{"floor": {...}}`, and a [`Piecewise`] also carries its
//! human-readable `text` (ignored when reading).

use std::str::FromStr;

use num_bigint::BigInt;
use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::expr::{Atom, LinExpr, Rational};
use crate::guard::{Constraint, Guard, Relation};
use crate::piecewise::{Piece, Piecewise};
use crate::poly::QuasiPolynomial;

fn rational(text: &str) -> Result<Rational, Error> {
    Rational::from_str(text.trim()).map_err(|_| Error::Json {
        message: format!("expected a rational like \"3\" or \"-3/2\", got {text:?}"),
    })
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum AtomWire {
    Symbol(String),
    Floor(Box<LinWire>),
}

#[derive(Serialize, Deserialize)]
struct TermWire {
    atom: AtomWire,
    coefficient: String,
}

#[derive(Serialize, Deserialize)]
struct LinWire {
    #[serde(default)]
    terms: Vec<TermWire>,
    #[serde(default = "zero_text")]
    constant: String,
}

fn zero_text() -> String {
    "0".to_string()
}

impl From<&Atom> for AtomWire {
    fn from(a: &Atom) -> Self {
        match a {
            Atom::Symbol(s) => AtomWire::Symbol(s.clone()),
            Atom::Floor(arg) => AtomWire::Floor(Box::new(LinWire::from(&**arg))),
        }
    }
}

impl TryFrom<AtomWire> for LinExpr {
    type Error = Error;
    fn try_from(a: AtomWire) -> Result<Self, Error> {
        Ok(match a {
            AtomWire::Symbol(s) => LinExpr::symbol(&s),
            AtomWire::Floor(arg) => LinExpr::try_from(*arg)?.floor(),
        })
    }
}

impl From<&LinExpr> for LinWire {
    fn from(e: &LinExpr) -> Self {
        LinWire {
            terms: e
                .terms()
                .iter()
                .map(|(a, c)| TermWire {
                    atom: a.into(),
                    coefficient: c.to_string(),
                })
                .collect(),
            constant: e.constant_term().to_string(),
        }
    }
}

impl TryFrom<LinWire> for LinExpr {
    type Error = Error;
    fn try_from(w: LinWire) -> Result<Self, Error> {
        let mut e = LinExpr::constant(rational(&w.constant)?);
        for t in w.terms {
            let c = rational(&t.coefficient)?;
            e = e.plus(&LinExpr::try_from(t.atom)?.scaled(&c));
        }
        Ok(e)
    }
}

#[derive(Serialize, Deserialize)]
struct FactorWire {
    atom: AtomWire,
    power: u32,
}

#[derive(Serialize, Deserialize)]
struct PolyTermWire {
    coefficient: String,
    #[serde(default)]
    factors: Vec<FactorWire>,
}

/// A quasi-polynomial as a list of terms.
#[derive(Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct PolyWire(Vec<PolyTermWire>);

impl From<QuasiPolynomial> for PolyWire {
    fn from(p: QuasiPolynomial) -> Self {
        PolyWire(
            p.terms()
                .iter()
                .map(|(m, c)| PolyTermWire {
                    coefficient: c.to_string(),
                    factors: m
                        .factors()
                        .iter()
                        .map(|(a, e)| FactorWire {
                            atom: a.into(),
                            power: *e,
                        })
                        .collect(),
                })
                .collect(),
        )
    }
}

impl TryFrom<PolyWire> for QuasiPolynomial {
    type Error = Error;
    fn try_from(w: PolyWire) -> Result<Self, Error> {
        let mut p = QuasiPolynomial::zero();
        for t in w.0 {
            let mut term = QuasiPolynomial::constant(rational(&t.coefficient)?);
            for f in t.factors {
                let atom = QuasiPolynomial::from(&LinExpr::try_from(f.atom)?);
                term = &term * &atom.pow(f.power);
            }
            p = &p + &term;
        }
        Ok(p)
    }
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum RelationWire {
    /// `expr >= 0`
    NonNegative,
    /// `expr == 0`
    Zero,
    /// `expr % modulus == 0`
    Divisible { modulus: String },
}

#[derive(Serialize, Deserialize)]
struct ConstraintWire {
    expr: LinWire,
    relation: RelationWire,
    #[serde(default, skip_deserializing)]
    text: String,
}

/// A guard as a list of constraints.
#[derive(Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct GuardWire(Vec<ConstraintWire>);

impl From<Guard> for GuardWire {
    fn from(g: Guard) -> Self {
        GuardWire(
            g.constraints()
                .iter()
                .map(|c| ConstraintWire {
                    expr: c.expr().into(),
                    relation: match c.relation() {
                        Relation::NonNegative => RelationWire::NonNegative,
                        Relation::Zero => RelationWire::Zero,
                        Relation::Divisible(m) => RelationWire::Divisible {
                            modulus: m.to_string(),
                        },
                    },
                    text: c.to_string(),
                })
                .collect(),
        )
    }
}

impl TryFrom<GuardWire> for Guard {
    type Error = Error;
    fn try_from(w: GuardWire) -> Result<Self, Error> {
        let mut g = Guard::always();
        for c in w.0 {
            let expr = LinExpr::try_from(c.expr)?;
            let relation = match c.relation {
                RelationWire::NonNegative => Relation::NonNegative,
                RelationWire::Zero => Relation::Zero,
                RelationWire::Divisible { modulus } => {
                    let m = BigInt::from_str(&modulus).map_err(|_| Error::Json {
                        message: format!("expected an integer modulus, got {modulus:?}"),
                    })?;
                    Relation::Divisible(m)
                }
            };
            if !g.push(Constraint::normalize(expr, relation)) {
                return Err(Error::Json {
                    message: "a guard constraint is always false".to_string(),
                });
            }
        }
        Ok(g)
    }
}

#[derive(Serialize, Deserialize)]
struct PieceWire {
    guard: GuardWire,
    value: PolyWire,
}

#[derive(Serialize, Deserialize)]
pub(crate) struct PiecewiseWire {
    #[serde(default, skip_deserializing)]
    text: String,
    pieces: Vec<PieceWire>,
}

impl From<Piecewise> for PiecewiseWire {
    fn from(p: Piecewise) -> Self {
        PiecewiseWire {
            text: p.to_string(),
            pieces: p
                .pieces()
                .iter()
                .map(|piece| PieceWire {
                    guard: piece.guard.clone().into(),
                    value: piece.value.clone().into(),
                })
                .collect(),
        }
    }
}

impl TryFrom<PiecewiseWire> for Piecewise {
    type Error = Error;
    fn try_from(w: PiecewiseWire) -> Result<Self, Error> {
        let mut pieces = Vec::new();
        for p in w.pieces {
            pieces.push(Piece {
                guard: Guard::try_from(p.guard)?,
                value: QuasiPolynomial::try_from(p.value)?,
            });
        }
        Ok(Piecewise::from_pieces(pieces))
    }
}
