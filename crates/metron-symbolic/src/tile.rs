//! Total trip count of the loop inside a tile, summed over the tiles (003 §4.1.2 counts a loop
//! nest's body; a tiled nest's inner count is no polynomial in the tile number).
//!
//! `for (ii = s; ii < M; ii += c) for (i = ii; i < MIN(ii + W, N); i++)` runs its inner body
//! T(k) = max(0, min(W, R − c·k)) times in tile k (R = N − s): the product c·k of a parameter
//! and an iteration number, which neither scalar evolution nor an affine nest expresses. The
//! sum over k = 0..K−1 has a closed form: the first tiles are full (R − c·k ≥ W, k ≤ ⌊(R − W)/c⌋),
//! the rest are an arithmetic series R − c·k while positive (k < ⌈R/c⌉). For W = c and K the
//! outer loop's trip count, that is ⌊R/c⌋ full tiles of c plus a last tile of R mod c.

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
