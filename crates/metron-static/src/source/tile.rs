//! A loop inside the tiles of a loop stepping by a parameter (`for (ii = 0; ii < m; ii += b)
//! ... for (i = ii; i < MIN(ii + b, m); i++)`): in tile k it runs max(0, min(b, m − b·k))
//! times, a product of a parameter and an iteration number that no affine nest expresses
//! (004 §III.C.2). Over all tiles it runs metron-symbolic's `TileSum` (a closed form, shared
//! with metron memory) times, a derived parameter `tile_LINE` computed from the tile loop's
//! trip count (`derived_step`) and the parameters. The two loops are counted as one: the loop
//! becomes `tile_LINE` unit steps of a fresh counter, and the nests it is in leave the tile
//! loop out (`SourceModel::nest_of`).

use metron_symbolic::{AffineExpr, Bound, DerivedTrip, Loop, TileLoop, TileSum};
use serde::{Deserialize, Serialize};

/// A loop's count summed over the tiles of an enclosing loop, which its count includes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceTile {
    pub sum: TileSum,
    /// Index of the tile loop (in `SourceModel::loops`).
    pub tile_loop: usize,
}

/// An enclosing loop that steps by a parameter: its index and line, its counter's source name
/// and start, and its derived trip count.
pub struct TileCandidate<'a> {
    pub index: usize,
    pub line: u32,
    pub var: &'a str,
    /// Its unit counter in the nests (`derived_step`).
    pub counter: &'a str,
    pub start: &'a AffineExpr,
    pub trip: &'a DerivedTrip,
}

/// Name of the tile offset (the tile loop's counter less its start) while splitting a count.
const OFFSET: &str = "__tile_offset";

/// The unit-step loop and its tile sum, when `scop` (a unit step up from one start, to a
/// `min` end) reads the counter of exactly one of `tiles` and its count per tile is
/// max(0, min(W.., R.. − offset)) with W and R free of every name in `outer_vars` (the
/// enclosing loops' counters).
pub fn tile_scop(
    scop: &Loop,
    line: u32,
    tiles: &[TileCandidate],
    outer_vars: &[&str],
) -> Option<(Loop, SourceTile)> {
    let used: Vec<&String> = scop.bound_names().collect();
    let [t] = tiles
        .iter()
        .filter(|t| used.iter().any(|u| *u == t.var))
        .collect::<Vec<_>>()[..]
    else {
        return None;
    };
    let [start] = scop.start.exprs() else {
        return None;
    };
    let single_end = scop.end.exprs().len() == 1;
    if scop.stride != 1 || !(matches!(scop.end, Bound::Min(_)) || single_end) {
        return None;
    }
    // The count in tile k: end − start (+1 when inclusive), the counter t.var = start_T + offset.
    let at_offset = |e: &AffineExpr| -> Option<AffineExpr> {
        let mut e = e.clone();
        let c = e.terms.remove(t.var).unwrap_or(0);
        let e = e.plus_scaled(t.start, c).ok()?;
        e.plus_scaled(&AffineExpr::var(OFFSET), c).ok()
    };
    let start = at_offset(start)?;
    let incl = i64::from(scop.end_inclusive);
    let mut mins = Vec::new();
    for e in scop.end.exprs() {
        let d = at_offset(e)?.plus_scaled(&start, -1).ok()?;
        mins.push(d.plus_constant(incl).ok()?);
    }
    let free = |e: &AffineExpr| {
        e.names()
            .all(|n| n == OFFSET || !outer_vars.contains(&n.as_str()))
    };
    if !mins.iter().all(free) {
        return None;
    }
    let tiles_of = TileLoop {
        outer: t.trip.name.clone(),
        shown: format!("the loop at line {}", t.line),
        trips: t.trip.name.clone(),
        extra: 0,
        step: t.trip.step.clone(),
    };
    let sum = TileSum::of_mins(format!("tile_{line}"), tiles_of, &mins, OFFSET)?;
    let unit = Loop {
        var: format!("__{}_tile_{line}", scop.var),
        start: Bound::single(AffineExpr::constant(0)),
        end: Bound::single(AffineExpr::var(&sum.name)),
        end_inclusive: false,
        stride: 1,
        residues: Vec::new(),
    };
    let tile = SourceTile {
        sum,
        tile_loop: t.index,
    };
    Some((unit, tile))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transpose_rows_inside_their_tiles() {
        // for (ii = 0; ii < m; ii += b) for (i = ii; i < MIN(ii + b, m); i++)
        let transpose = crate::source::fixtures::TransposeTiles::new();
        let tiles = transpose.tiles();
        let inner = Loop {
            end: Bound::Min(vec![
                AffineExpr::parse("ii + b").unwrap(),
                AffineExpr::var("m"),
            ]),
            ..Loop::exclusive("i", "ii", "0", 1).unwrap()
        };
        let (unit, tile) = tile_scop(&inner, 22, &tiles, &["__ii_step_20"]).unwrap();
        assert_eq!(unit.end.exprs()[0].to_string(), "tile_22");
        assert_eq!(tile.tile_loop, 0);
        assert_eq!(
            tile.sum.definition,
            "sum over the tiles k of the loop at line 20 of max(0, min(b, m - b*k))"
        );
        let b = metron_symbolic::binding([("m", 100), ("b", 16), ("trip_20", 7)]);
        assert_eq!(tile.sum.value(&b), Ok(100));
        // A bound in another enclosing counter cannot be summed from the parameters alone.
        let skew = Loop {
            end: Bound::Min(vec![
                AffineExpr::parse("ii + b").unwrap(),
                AffineExpr::parse("m - j").unwrap(),
            ]),
            ..inner.clone()
        };
        assert!(tile_scop(&skew, 22, &tiles, &["j"]).is_none());
        // A loop that does not read a tile counter is no tile's.
        let plain = Loop::exclusive("i", "0", "m", 1).unwrap();
        assert!(tile_scop(&plain, 22, &tiles, &[]).is_none());
    }
}
