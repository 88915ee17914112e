//! `metron-symbolic`: piecewise quasi-polynomials in named parameters, and exact counting of
//! the integer points of affine loop nests (004 III.C.1-5; 003 4.1.2).
//!
//! * [`Piecewise`] is the one symbolic-count type of metron: a sum of guarded
//!   [`QuasiPolynomial`]s, e.g. `if y > 0: 10*y` (004 Fig. 5(b)). It adds, multiplies,
//!   evaluates exactly under a [`Binding`], prints, serialises to JSON and emits Python.
//! * [`trip_count`] counts the executions of the body of a [`LoopNest`] (rectangular,
//!   triangular, strided, `min`/`max` bounds, affine `if`s, modulo conditions) as a
//!   [`Piecewise`]; [`oracle::enumerate`] is the brute-force check.
//!
//! ```
//! use metron_symbolic::{binding, trip_count, CountOptions, Loop, LoopNest};
//!
//! // for (i = 0; i < 10; i++) for (j = 0; j < y; j++)   (004 Fig. 5, y from an annotation)
//! let nest = LoopNest::new(vec![
//!     Loop::exclusive("i", "0", "10", 1)?,
//!     Loop::exclusive("j", "0", "y", 1)?,
//! ]);
//! let count = trip_count(&nest, &CountOptions::default())?;
//! assert_eq!(count.to_string(), "if y > 0: 10*y");
//! assert_eq!(count.evaluate_integer(&binding([("y", 7)]))?, 70.into());
//! # Ok::<(), metron_symbolic::Error>(())
//! ```
//!
//! See `docs/symbolic.md` for the algorithm and its limits.

pub mod derived_trip;
pub mod error;
pub mod exit_value;
pub mod expr;
pub mod guard;
pub mod local_value;
pub mod minmax;
pub mod nest;
pub mod oracle;
mod parse;
mod period;
pub mod piecewise;
pub mod poly;
mod print;
pub mod residue;
mod small;
pub mod tile;
pub mod trip_count;
mod wire;

use std::collections::BTreeMap;

/// Integer values of named parameters (and loop variables, inside the crate).
pub type Binding = BTreeMap<String, i64>;

pub use derived_trip::{Derived, DerivedTrip, DerivedTripError, InlinedDerived};
pub use error::Error;
pub use exit_value::ExitValue;
pub use expr::{Atom, LinExpr, Rational};
pub use guard::{Constraint, Guard, Relation};
pub use local_value::{IntExpr, LocalValue};
pub use minmax::{sum_over_nested, MaxOfMins};
pub use nest::{unknown_bound_parameter, AffineExpr, Bound, CmpOp, Condition, Loop, LoopNest};
pub use piecewise::{Piece, Piecewise};
pub use poly::{Monomial, QuasiPolynomial};
pub use print::{check_python_identifier, identifier};
pub use residue::{split_residues, Residue, ResiduePart};
pub use tile::{tile_sum, TileLoop, TileSum};
pub use trip_count::{indicator, sum_over, trip_count, CountOptions, NotEqualRule};

/// Builds a [`Binding`] from `(name, value)` pairs.
pub fn binding<'a>(pairs: impl IntoIterator<Item = (&'a str, i64)>) -> Binding {
    pairs.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
}
