//! Total trip count of the loop inside a tile, summed over the tiles (003 §4.1.2 counts a loop
//! nest's body; a tiled nest's inner count is no polynomial in the tile number).
//!
//! `for (ii = s; ii < M; ii += c) for (i = ii; i < MIN(ii + W, N); i++)` runs its inner body
//! T(k) = max(0, min(W, R − c·k)) times in tile k (R = N − s): the product c·k of a parameter
//! and an iteration number, which neither scalar evolution nor an affine nest expresses. The
//! sum over k = 0..K−1 has a closed form: the first tiles are full (R − c·k ≥ W, k ≤ ⌊(R − W)/c⌋),
//! the rest are an arithmetic series R − c·k while positive (k < ⌈R/c⌉). For W = c and K the
//! outer loop's trip count, that is ⌊R/c⌋ full tiles of c plus a last tile of R mod c.

use serde::{Deserialize, Serialize};

use crate::derived_trip::{argument, evaluate, DerivedTripError};
use crate::minmax::MaxOfMins;
use crate::nest::AffineExpr;

/// The count of a loop inside a tile, summed over the tiles: a derived parameter, computed
/// from the arguments when a count is evaluated (as [`crate::DerivedTrip`] is). metron memory
/// reads the per-tile count from scalar evolution, metron static from the source loops.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TileSum {
    /// The parameter the sum stands as (`s_<header>`, `tile_<line>`).
    pub name: String,
    /// Sum over the tiles k = 0..K−1 of max(0, min(width, reach − step·k)), as shown.
    pub definition: String,
    /// The tile loop (stepping by `step`), as the caller names it.
    pub outer: String,
    /// The tile loop's derived trip parameter q; K = q + `extra` tiles.
    pub outer_trips: String,
    pub extra: i64,
    pub step: String,
    /// The per-tile width is the min of these (none: no limit).
    pub width: Vec<AffineExpr>,
    /// The reach from the tile loop's start is the min of these.
    pub reach: Vec<AffineExpr>,
    /// Only the first tiles, as many as this derived parameter says (the tiles where a
    /// condition on the tile loop's counter holds: a prefix, as the counter only grows).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap: Option<String>,
}

/// The tile loop a count is summed over: how the caller names it and shows it, its derived
/// trip parameter (K = that + `extra` tiles) and the argument it steps by.
#[derive(Clone, Debug)]
pub struct TileLoop {
    pub outer: String,
    pub shown: String,
    pub trips: String,
    pub extra: i64,
    pub step: String,
}

impl TileSum {
    /// The tile sum of a per-tile count min(mins) (taken as max(0, ..)) in which `offset` (the
    /// tile loop's counter less its start, step·k) appears with coefficient −1 (a reach) or
    /// not at all (a width); `None` for any other coefficient or without a reach.
    pub fn of_mins(
        name: String,
        tiles: TileLoop,
        mins: &[AffineExpr],
        offset: &str,
    ) -> Option<TileSum> {
        let (mut width, mut reach) = (Vec::new(), Vec::new());
        for e in mins {
            let mut e = e.clone();
            match e.terms.remove(offset) {
                None => width.push(e),
                Some(-1) => reach.push(e),
                Some(_) => return None,
            }
        }
        if reach.is_empty() {
            return None;
        }
        let show = |es: &[AffineExpr], sub: &str| {
            let parts: Vec<String> = es
                .iter()
                .map(|e| format!("{}{sub}", MaxOfMins::affine(e.clone())))
                .collect();
            match parts.as_slice() {
                [one] => one.clone(),
                _ => format!("min({})", parts.join(", ")),
            }
        };
        let tail = format!(" - {}*k", tiles.step);
        let per_tile = if width.is_empty() {
            show(&reach, &tail)
        } else {
            format!("min({}, {})", show(&width, ""), show(&reach, &tail))
        };
        Some(TileSum {
            name,
            definition: format!(
                "sum over the tiles k of {} of max(0, {per_tile})",
                tiles.shown
            ),
            outer: tiles.outer,
            outer_trips: tiles.trips,
            extra: tiles.extra,
            step: tiles.step,
            width,
            reach,
            cap: None,
        })
    }

    /// The sum over the first `cap` tiles only (fewer when the tile loop has fewer), as the
    /// parameter `name`.
    pub fn capped(&self, name: String, cap: &str) -> TileSum {
        TileSum {
            name,
            definition: format!("{}, over its first {cap} tiles", self.definition),
            cap: Some(cap.to_string()),
            ..self.clone()
        }
    }

    /// The sum under `binding`, which holds the tile loop's derived parameter.
    pub fn value(&self, binding: &crate::Binding) -> Result<i64, DerivedTripError> {
        let min = |es: &[AffineExpr]| -> Result<Option<i64>, DerivedTripError> {
            let vals = es.iter().map(|e| evaluate(e, binding));
            vals.collect::<Result<Vec<_>, _>>()
                .map(|v| v.into_iter().min())
        };
        let step = argument(&self.step, binding)?;
        if step <= 0 {
            return Err(DerivedTripError::NoEnd {
                step: self.step.clone(),
                value: step,
            });
        }
        let mut tiles = argument(&self.outer_trips, binding)? + self.extra;
        if let Some(cap) = &self.cap {
            tiles = tiles.min(argument(cap, binding)?);
        }
        let reach = min(&self.reach)?.unwrap_or(0);
        Ok(tile_sum(min(&self.width)?, reach, step, tiles))
    }

    /// The parameters the sum is computed from.
    pub fn inputs(&self) -> impl Iterator<Item = &String> {
        let exprs = self.width.iter().chain(&self.reach);
        exprs
            .flat_map(|e| e.names())
            .chain([&self.outer_trips, &self.step])
            .chain(&self.cap)
    }
}

/// Σ_{k=0}^{tiles−1} max(0, min(width, reach − step·k)); `width = None` is no width limit
/// (the per-tile count is reach − step·k). `step` must be positive.
pub fn tile_sum(width: Option<i64>, reach: i64, step: i64, tiles: i64) -> i64 {
    let (c, r, k) = (
        i128::from(step.max(1)),
        i128::from(reach),
        i128::from(tiles.max(0)),
    );
    let w = width.map_or(r, i128::from);
    if w <= 0 || r <= 0 || k == 0 {
        return 0;
    }
    // Full tiles: r − c·k ≥ w for k = 0..=⌊(r − w)/c⌋ (none when r < w).
    let full = if r >= w { ((r - w) / c + 1).min(k) } else { 0 };
    // Then r − c·k while positive: k < ⌈r/c⌉.
    let end = ((r + c - 1) / c).clamp(full, k);
    let n = end - full;
    let partial = n * r - c * (full + end - 1) * n / 2;
    (w * full + partial) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(width: Option<i64>, reach: i64, step: i64, tiles: i64) -> i64 {
        (0..tiles)
            .map(|k| (reach - step * k).min(width.unwrap_or(i64::MAX)).max(0))
            .sum()
    }

    #[test]
    fn transpose_tiles_by_hand() {
        // m = 100, b = 16: tiles ii = 0, 16, ..., 96 (K = 7); six full tiles of 16 = 96, and
        // the last holds 100 − 96 = 4 rows: 100.
        assert_eq!(tile_sum(Some(16), 100, 16, 7), 100);
        // n = 70, b = 16: K = 5, four tiles of 16 and one of 6.
        assert_eq!(tile_sum(Some(16), 70, 16, 5), 70);
        // m = 96 divides: six full tiles, no partial one.
        assert_eq!(tile_sum(Some(16), 96, 16, 6), 96);
    }

    #[test]
    fn fewer_tiles_than_the_reach_and_overlapping_tiles() {
        // Outer bound below the inner one: ii < 40 step 16 (K = 3) with i < MIN(ii + 16, 100):
        // three full tiles, 48.
        assert_eq!(tile_sum(Some(16), 100, 16, 3), 48);
        // Width 5 over a step of 3 (tiles overlap), R = 10, K = 4: 5 + 5 + 4 + 1 = 15.
        assert_eq!(tile_sum(Some(5), 10, 3, 4), 15);
        // Width below the step (gaps): W = 2, c = 5, R = 11, K = 3: 2 + 2 + 1 = 5.
        assert_eq!(tile_sum(Some(2), 11, 5, 3), 5);
        // No width: R − c·k while positive, 10 + 7 + 4 + 1 = 22.
        assert_eq!(tile_sum(None, 10, 3, 9), 22);
    }

    #[test]
    fn of_mins_splits_width_and_reach() {
        // transpose_blocked's `i < MIN(ii + b, m)` from ii: min(b, m - t), t = ii's offset.
        let tiles = TileLoop {
            outer: "ii".into(),
            shown: "ii".into(),
            trips: "q".into(),
            extra: 0,
            step: "b".into(),
        };
        let mins = [AffineExpr::var("b"), AffineExpr::parse("m - t").unwrap()];
        let s = TileSum::of_mins("s".into(), tiles.clone(), &mins, "t").unwrap();
        assert_eq!(
            s.definition,
            "sum over the tiles k of ii of max(0, min(b, m - b*k))"
        );
        // m = 100, b = 16: K = 7 tiles, 6 * 16 + 4.
        let b = crate::binding([("m", 100), ("b", 16), ("q", 7)]);
        assert_eq!(s.value(&b), Ok(100));
        let mut names: Vec<&String> = s.inputs().collect();
        names.sort();
        assert_eq!(names, ["b", "b", "m", "q"]);
        // The first three tiles only (a condition on ii holds there): 48; a cap above the
        // tile count changes nothing.
        let first = s.capped("s_f".into(), "f");
        let with = |f| crate::binding([("m", 100), ("b", 16), ("q", 7), ("f", f)]);
        assert_eq!(first.value(&with(3)), Ok(48));
        assert_eq!(first.value(&with(9)), Ok(100));
        assert!(first.inputs().any(|n| n == "f"));
        assert_eq!(
            s.value(&crate::binding([("m", 1), ("q", 1)])),
            Err(DerivedTripError::Unbound("b".into()))
        );
        assert_eq!(
            s.value(&crate::binding([("m", 1), ("q", 1), ("b", 0)])),
            Err(DerivedTripError::NoEnd {
                step: "b".into(),
                value: 0
            })
        );
        // t with another coefficient, or no reach at all: not a tile's count.
        let twice = [AffineExpr::parse("m - 2*t").unwrap()];
        assert!(TileSum::of_mins("s".into(), tiles.clone(), &twice, "t").is_none());
        assert!(TileSum::of_mins("s".into(), tiles, &[AffineExpr::var("b")], "t").is_none());
    }

    #[test]
    fn empty_cases() {
        assert_eq!(tile_sum(Some(16), 0, 16, 1), 0);
        assert_eq!(tile_sum(Some(16), -5, 16, 3), 0);
        assert_eq!(tile_sum(Some(0), 10, 1, 3), 0);
        assert_eq!(tile_sum(Some(4), 10, 1, 0), 0);
    }

    #[test]
    fn agrees_with_the_loop_on_a_grid() {
        for w in [
            None,
            Some(-1),
            Some(0),
            Some(1),
            Some(3),
            Some(4),
            Some(7),
            Some(12),
        ] {
            for r in -3..30 {
                for c in 1..8 {
                    for k in 0..12 {
                        assert_eq!(
                            tile_sum(w, r, c, k),
                            brute(w, r, c, k),
                            "w={w:?} r={r} c={c} K={k}"
                        );
                    }
                }
            }
        }
    }
}
