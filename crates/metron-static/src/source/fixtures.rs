//! Fixtures shared by the tests of the `source` submodules: pieces of clang's JSON AST and
//! transpose_blocked's tile loop (`for (ii = 0; ii < m; ii += b)`).

use metron_symbolic::{AffineExpr, DerivedTrip};
use serde_json::Value;

use super::tile::TileCandidate;

pub fn decl(name: &str) -> Value {
    serde_json::json!({"kind": "DeclRefExpr", "referencedDecl": {"name": name}})
}

pub fn op(opcode: &str, l: Value, r: Value) -> Value {
    serde_json::json!({"kind": "BinaryOperator", "opcode": opcode, "inner": [l, r]})
}

/// The tile loop `for (ii = 0; ii < m; ii += b)` at line 20: its start and derived trip
/// count, which [`TransposeTiles::tiles`] lends to a `TileCandidate`.
pub struct TransposeTiles {
    zero: AffineExpr,
    trip: DerivedTrip,
}

impl TransposeTiles {
    pub fn new() -> Self {
        TransposeTiles {
            zero: AffineExpr::constant(0),
            trip: DerivedTrip::new(
                "trip_20".into(),
                AffineExpr::constant(0),
                AffineExpr::var("m"),
                "b".into(),
                false,
            ),
        }
    }

    pub fn tiles(&self) -> [TileCandidate<'_>; 1] {
        [TileCandidate {
            index: 0,
            line: 20,
            var: "ii",
            counter: "__ii_step_20",
            start: &self.zero,
            trip: &self.trip,
        }]
    }
}
