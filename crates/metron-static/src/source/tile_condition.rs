//! A branch on the counter of a tile loop (`MIN(ii + b, m)` in the test of the loop inside the
//! tiles: `ii + b < m ? ii + b : m`). With ii = s + b·k, `ii + b < m` is no affine condition in
//! k (b·k), but it holds on a prefix of the tiles, k < F, F the derived trip count of a loop
//! `for (ii = s; ii < m - b; ii += b)` (metron-symbolic's `DerivedTrip`). So the condition
//! becomes `k < F` (or `k >= F` for `>`, `>=`), affine in the tile loop's unit counter
//! (`derived_step`), 004 §III.C.3's arm count. In a nest where a loop inside the tiles counts
//! the tile loop already (`tile`), its flat counter runs through the tiles in order, so the
//! condition there is `i' < S_F`, S_F the tile sum over the first F tiles (`TileSum::capped`).

use metron_symbolic::{AffineExpr, CmpOp, Condition, DerivedTrip, Loop, TileSum};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::tile::TileCandidate;
use super::{affine, binary};

/// A condition on a tile loop's counter, as a cut of its tiles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TileCut {
    /// The tile loop's unit counter (`__ii_step_LINE`), which the condition compares with F.
    pub counter: String,
    /// F: the tiles before the condition changes.
    pub cut: DerivedTrip,
    /// For each loop inside the tiles that counts the tile loop (its unit counter): the tile
    /// sum over the first F tiles.
    pub flattened: Vec<(String, TileSum)>,
}

/// The condition `cond` as `counter < F` (or `>=`) when it compares the counter of one of
/// `tiles` (coefficient ±1) with parameters only (none of `outer_vars`); `inside`: the loops
/// inside the tiles around it, (unit counter, tile loop index, tile sum). `name` names F.
pub fn tile_condition(
    cond: &Value,
    name: String,
    tiles: &[TileCandidate],
    outer_vars: &[&str],
    inside: &[(String, usize, TileSum)],
) -> Option<(Condition, TileCut)> {
    let (op, l, r) = binary(cond)?;
    let op = match op {
        "<" => CmpOp::Lt,
        "<=" => CmpOp::Le,
        ">" => CmpOp::Gt,
        ">=" => CmpOp::Ge,
        _ => return None,
    };
    let d = affine(l)?.plus_scaled(&affine(r)?, -1).ok()?;
    let [t] = tiles
        .iter()
        .filter(|t| d.terms.contains_key(t.var))
        .collect::<Vec<_>>()[..]
    else {
        return None;
    };
    // d = c·ii + e OP 0, c = ±1: ii OP' −c·e.
    let mut e = d.clone();
    let c = e.terms.remove(t.var)?;
    let op = match c {
        1 => op,
        -1 => mirror(op),
        _ => return None,
    };
    if e.names().any(|n| outer_vars.contains(&n.as_str())) {
        return None;
    }
    let bound = AffineExpr::constant(0).plus_scaled(&e, -c).ok()?;
    // ii < X on k < F(excl), ii <= X on k < F(incl); `>` and `>=` are their complements.
    let (inclusive, below) = match op {
        CmpOp::Lt => (false, true),
        CmpOp::Le => (true, true),
        CmpOp::Gt => (true, false),
        CmpOp::Ge => (false, false),
        _ => return None,
    };
    let cut = DerivedTrip::new(name, t.start.clone(), bound, t.trip.step.clone(), inclusive);
    let counter = t.counter.to_string();
    let flattened = inside
        .iter()
        .filter(|(_, tile_loop, _)| *tile_loop == t.index)
        .map(|(var, _, sum)| {
            let name = format!("{}_{}", sum.name, cut.name);
            (var.clone(), sum.capped(name, &cut.name))
        })
        .collect();
    let condition = compare(&counter, below, &cut.name);
    let tile_cut = TileCut {
        counter,
        cut,
        flattened,
    };
    Some((condition, tile_cut))
}

fn mirror(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        other => other,
    }
}

/// `var < bound` (below) or `var >= bound`.
fn compare(var: &str, below: bool, bound: &str) -> Condition {
    Condition::Affine {
        lhs: AffineExpr::var(var),
        op: if below { CmpOp::Lt } else { CmpOp::Ge },
        rhs: AffineExpr::var(bound),
    }
}

/// `conditions` for a count over `loops`: a cut on a tile loop's counter that the nest leaves
/// out (a loop inside the tiles counts it) becomes the same cut of that loop's flat counter.
pub fn in_nest(cuts: &[TileCut], loops: &[Loop], conditions: Vec<Condition>) -> Vec<Condition> {
    let has = |v: &str| loops.iter().any(|l| l.var == v);
    conditions
        .into_iter()
        .map(|c| {
            let Condition::Affine { lhs, op, rhs } = &c else {
                return c;
            };
            let below = *op == CmpOp::Lt;
            let of = |k: &TileCut| {
                *lhs == AffineExpr::var(&k.counter) && *rhs == AffineExpr::var(&k.cut.name)
            };
            let Some(k) = cuts.iter().find(|k| of(k)).filter(|k| !has(&k.counter)) else {
                return c;
            };
            match k.flattened.iter().find(|(v, _)| has(v)) {
                Some((v, sum)) => compare(v, below, &sum.name),
                None => c,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::source::fixtures::{decl, op};

    #[test]
    fn min_of_a_tile_edge_is_a_cut_of_the_tiles() {
        // for (ii = 0; ii < m; ii += b) ... i < MIN(ii + b, m): the `?:` tests ii + b < m.
        let transpose = crate::source::fixtures::TransposeTiles::new();
        let tiles = transpose.tiles();
        let mins = [AffineExpr::var("b"), AffineExpr::parse("m - t").unwrap()];
        let tiles_of = metron_symbolic::TileLoop {
            outer: "trip_20".into(),
            shown: "the loop at line 20".into(),
            trips: "trip_20".into(),
            extra: 0,
            step: "b".into(),
        };
        let sum = TileSum::of_mins("tile_22".into(), tiles_of, &mins, "t").unwrap();
        let inside = [("__i_tile_22".to_string(), 0, sum)];
        let cond = op("<", op("+", decl("ii"), decl("b")), decl("m"));
        let (c, cut) = tile_condition(&cond, "cut_22_0".into(), &tiles, &["ii"], &inside).unwrap();
        assert_eq!(c, Condition::parse("__ii_step_20 < cut_22_0").unwrap());
        // m = 100, b = 16: ii = 0, 16, .., 80 have ii + 16 < 100 (6 tiles), ii = 96 not.
        let b = metron_symbolic::binding([("m", 100), ("b", 16), ("trip_20", 7)]);
        assert_eq!(cut.cut.value(&b), Ok(6));
        let (_, capped) = &cut.flattened[0];
        let mut b = b.clone();
        b.insert("cut_22_0".into(), 6);
        assert_eq!(capped.value(&b), Ok(96));
        // A nest with the tile loop keeps the cut; one that counts it through `i` moves it.
        let unit = |v: &str, end: &str| Loop::exclusive(v, "0", end, 1).unwrap();
        let with = [
            unit("__ii_step_20", "trip_20"),
            unit("__jj_step_21", "trip_21"),
        ];
        let cuts = std::slice::from_ref(&cut);
        let kept = in_nest(cuts, &with, vec![c.clone()]);
        assert_eq!(kept, std::slice::from_ref(&c));
        let flat = [
            unit("__jj_step_21", "trip_21"),
            unit("__i_tile_22", "tile_22"),
        ];
        let moved = Condition::parse("__i_tile_22 < tile_22_cut_22_0").unwrap();
        assert_eq!(in_nest(cuts, &flat, vec![c]), [moved]);
        // `ii >= m - b` is the complement; a condition on another counter is no cut.
        let ge = op(">=", decl("ii"), op("-", decl("m"), decl("b")));
        let (c, _) = tile_condition(&ge, "cut".into(), &tiles, &["ii"], &inside).unwrap();
        assert_eq!(c, Condition::parse("__ii_step_20 >= cut").unwrap());
        let other = op("<", op("+", decl("ii"), decl("j")), decl("m"));
        assert!(tile_condition(&other, "c".into(), &tiles, &["ii", "j"], &inside).is_none());
    }
}
