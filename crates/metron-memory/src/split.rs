//! Trip counts that are no polynomial in the nest's iteration numbers, made countable by
//! splitting the nest (003 §4.1.2 counts a loop nest's body; these are the nests it cannot):
//!
//! * **Residues.** A start or bound in `(i + colour) % 2` (red-black ordering): scalar
//!   evolution writes the parity as an `i1` add recurrence `{{true,+,true},+,true}`, i.e.
//!   (1 + k_a + k_b) mod 2. Each context of the loop is split into the residues r of that
//!   expression (a modulo condition on the outer indices, counted exactly by metron-symbolic),
//!   and in each the loop's count is affine with the parity fixed to r
//!   (`metron_symbolic::residue`, shared with metron static).
//! * **Tiles.** `for (ii = 0; ii < m; ii += b) ... for (i = ii; i < MIN(ii + b, m); i++)`:
//!   the inner count max(0, min(b, m − b·k)) holds the product of the step b and the tile
//!   number k. Over all tiles the inner loop runs Σ_k of it, which `metron_symbolic::tile_sum`
//!   gives in closed form; the tile loop and its inner loop are flattened into one loop of
//!   that many iterations (a derived parameter `s_<header>`, computed from the arguments:
//!   `metron_symbolic::TileSum`, shared with metron static).

use std::collections::{BTreeMap, BTreeSet};

use metron_symbolic::{AffineExpr, MaxOfMins, TileLoop};

use crate::condition::IndexCondition;
use crate::count::{Context, LoopReport};
use crate::scev::{tile_offset_symbol, Affine, TripBound};

pub use metron_symbolic::{Residue, TileSum};

/// Most contexts one context is split into (residues of all its loops together).
const MAX_SPLIT: usize = 16;

/// The backedge-taken count text of loop `header` with each small residue of an add
/// recurrence replaced by a value `%"__res_N"`, and those residues (named `r<N>_<header>`);
/// `None` when it holds none. Scalar evolution writes `X % 2^W` as a truncation,
/// `(zext iW X to T)` (W <= 3, `true` = 1 in an `i1` recurrence), and `X % c` for another
/// constant c <= 8 as `((-c * (X /u c)) + X)`.
pub fn with_residues(
    text: &str,
    header: &str,
    symbol_of: &dyn Fn(&str) -> Option<String>,
) -> Option<(String, Vec<Residue>)> {
    let mut out = String::new();
    let mut residues: Vec<(String, Residue)> = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        let Some((len, value, modulus)) = truncation(rest).or_else(|| remainder(rest)) else {
            let c = rest.chars().next()?;
            out.push(c);
            i += c.len_utf8();
            continue;
        };
        let value = value.replace("true", "1").replace("false", "0");
        let expr = crate::scev::to_affine(&value, symbol_of)
            .ok()?
            .to_symbolic();
        let n = match residues
            .iter()
            .position(|(t, r)| *t == value && r.modulus == modulus)
        {
            Some(n) => n,
            None => {
                let symbol = format!(
                    "r{}_{}",
                    residues.len(),
                    metron_symbolic::identifier(header)
                );
                residues.push((
                    value,
                    Residue {
                        symbol,
                        expr,
                        modulus,
                    },
                ));
                residues.len() - 1
            }
        };
        out.push_str(&format!("%\"__res_{n}\""));
        i += len;
    }
    (!residues.is_empty()).then(|| (out, residues.into_iter().map(|(_, r)| r).collect()))
}

/// `(zext iW {..} to T)` at the start of `s`, W <= 3: (length, recurrence, 2^W).
fn truncation(s: &str) -> Option<(usize, String, i64)> {
    let body = s.strip_prefix("(zext i")?;
    let close = matching_paren(&s[1..])? + 1;
    let (width, value) = body[..close - 7].split_once(' ')?;
    let width: u32 = width.parse().ok().filter(|w| (1..=3).contains(w))?;
    let value = value.rsplit_once(" to ")?.0.trim();
    value
        .starts_with('{')
        .then(|| (close + 1, value.to_string(), 1 << width))
}

/// `((-c * (X /u c))<flags> + X)` at the start of `s`, X an add recurrence, 2 <= c <= 8:
/// (length, X, c).
fn remainder(s: &str) -> Option<(usize, String, i64)> {
    let close = matching_paren(&s[1..])? + 1;
    let inner = s[1..close].strip_prefix("(-")?;
    let (c, rest) = inner.split_once(" * (")?;
    let c: i64 = c.parse().ok().filter(|c| (2..=8).contains(c))?;
    let div_end = matching_paren(rest)?;
    let (x, d) = rest[..div_end].rsplit_once(" /u ")?;
    if d.trim().parse::<i64>().ok()? != c || !x.starts_with('{') {
        return None;
    }
    let after = rest[div_end + 1..].trim_start_matches(')');
    let after = after
        .trim_start_matches(|ch: char| ch != '+')
        .strip_prefix('+')?
        .trim();
    let strip = |t: &str| {
        t.replace("<nuw>", "")
            .replace("<nsw>", "")
            .replace("<nw>", "")
    };
    (strip(after) == strip(x)).then(|| (close + 1, x.to_string(), c))
}

/// Index of the `)` closing the `(` just before `s`.
fn matching_paren(s: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' if depth == 0 => return Some(i),
            ')' => depth -= 1,
            _ => {}
        }
    }
    None
}

/// Contexts split into the residues of their loops' counts: one context per combination,
/// with the modulo conditions and the residue symbols fixed (`metron_symbolic::split_residues`).
/// A context whose split would be larger than [`MAX_SPLIT`] is kept whole (its count keeps
/// the residue symbols).
pub fn split_residues(ctxs: Vec<Context>, loops: &[LoopReport]) -> Vec<Context> {
    let mut out = Vec::new();
    for ctx in ctxs {
        let residues: Vec<&Residue> = ctx.loops.iter().flat_map(|&l| &loops[l].residues).collect();
        let parts = metron_symbolic::split_residues(&residues, MAX_SPLIT);
        let Some(parts) = parts.filter(|_| !residues.is_empty()) else {
            out.push(ctx);
            continue;
        };
        for part in parts {
            let mut c = ctx.clone();
            c.conds
                .extend(part.conditions.iter().map(IndexCondition::from_symbolic));
            c.fixed.extend(part.fixed);
            out.push(c);
        }
    }
    out
}

/// The tile sum of a loop whose count, read with the tile offsets of its enclosing derived
/// loops (`scev::to_bound_tiled`), is max(0, min(W.., R.. − t)) in one offset t. `derived`:
/// header of each enclosing derived loop -> its report.
pub fn tile_sum_of(header: &str, count: &MaxOfMins, derived: &[&LoopReport]) -> Option<TileSum> {
    let offsets: BTreeMap<String, &LoopReport> = derived
        .iter()
        .map(|l| (tile_offset_symbol(&l.header), *l))
        .collect();
    let used: BTreeSet<&String> = count
        .0
        .iter()
        .flatten()
        .flat_map(|e| e.terms.keys())
        .filter(|v| offsets.contains_key(*v))
        .collect();
    let [t] = used.into_iter().collect::<Vec<_>>()[..] else {
        return None;
    };
    let outer = offsets[t];
    let d = outer.derived.as_ref()?;
    let zero = AffineExpr::constant(0);
    let [a, b] = count.0.as_slice() else {
        return None;
    };
    let mins = match (a.as_slice(), b.as_slice()) {
        ([z], m) | (m, [z]) if *z == zero => m,
        _ => return None,
    };
    if mins.iter().any(|e| {
        e.terms
            .keys()
            .any(|v| v.starts_with("k_") || (v.starts_with("t_") && v != t))
    }) {
        return None;
    }
    let tiles = TileLoop {
        outer: outer.header.clone(),
        shown: format!("%{}", outer.header),
        trips: d.name.clone(),
        extra: 1,
        step: d.step.clone(),
    };
    let name = format!("s_{}", metron_symbolic::identifier(header));
    TileSum::of_mins(name, tiles, mins, t)
}

/// Contexts with each tile loop flattened into its inner loop `li` (count `s_li`): a context
/// inside `li`'s body loses the tile loop; one at `li`'s header gets two, the body part and
/// one per entry of `li` without it. `None` when a context's other loops or conditions use
/// the tile loop's or `li`'s iteration (the flattening would lose it).
pub fn flatten_tile(
    ctxs: &[Context],
    li: usize,
    outer: usize,
    loops: &[LoopReport],
) -> Option<Vec<Context>> {
    let banned = [
        loops[outer].variable.clone(),
        loops[li].variable.clone(),
        tile_offset_symbol(&loops[outer].header),
    ];
    let uses = |a: &Affine| a.terms.keys().any(|v| banned.contains(v));
    let bound_uses = |b: &TripBound| {
        b.0 .0
            .iter()
            .flatten()
            .any(|e| uses(&Affine::from_symbolic(e)))
    };
    let mut out = Vec::new();
    for ctx in ctxs {
        if !ctx.loops.contains(&li) {
            out.push(ctx.clone());
            continue;
        }
        let others = ctx.loops.iter().filter(|&&l| l != li && l != outer);
        if others
            .clone()
            .any(|&l| bound_uses(&loops[l].backedge_taken))
            || ctx.conds.iter().any(|c| condition_uses(c, &uses))
        {
            return None;
        }
        let mut flat = ctx.clone();
        flat.loops.retain(|&l| l != outer);
        flat.shortened.retain(|&l| l != outer);
        if !ctx.shortened.contains(&li) {
            flat.shortened.push(li);
            let mut entries = ctx.clone();
            entries.loops.retain(|&l| l != li);
            out.push(entries);
        }
        out.push(flat);
    }
    Some(out)
}

fn condition_uses(c: &IndexCondition, uses: &dyn Fn(&Affine) -> bool) -> bool {
    match c {
        IndexCondition::Affine { lhs, rhs, .. } => uses(lhs) || uses(rhs),
        IndexCondition::Modulo { expr, .. } => uses(expr),
    }
}

/// The loops of the contexts of `li`'s header: K = q + 1 tiles when the header runs on every
/// execution of the tile loop's body, q when it lies after a top-tested tile loop's test.
pub fn tile_extra(header_ctxs: &[Context], outer: usize) -> i64 {
    if !header_ctxs.is_empty() && header_ctxs.iter().all(|c| c.shortened.contains(&outer)) {
        0
    } else {
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scev::loop_symbol;

    fn args(n: &str) -> Option<String> {
        ["n", "m", "b"].contains(&n).then(|| n.to_string())
    }

    #[test]
    fn parity_recurrences_become_residues() {
        // sor2d's inner count (LLVM 14): j from 1 + (i + colour) % 2 to n - 2 by 2.
        let t = "((-2 + (-1 * (zext i1 {{true,+,true}<nw><%for.body4>,+,true}<%for.body8> to i64))<nuw><nsw> + ((3 + (zext i1 {{true,+,true}<nw><%for.body4>,+,true}<%for.body8> to i64))<nuw><nsw> smax (-1 + (sext i32 %n to i64))<nsw>)) /u 2)";
        let (text, rs) = with_residues(t, "for.body14", &args).unwrap();
        assert_eq!(rs.len(), 1, "the same recurrence twice is one residue");
        assert_eq!(rs[0].modulus, 2);
        assert_eq!(rs[0].expr.to_string(), "k_for_body4 + k_for_body8 + 1");
        assert_eq!(text.matches("__res_0").count(), 2);
        let sym = |n: &str| {
            if n == "__res_0" {
                Some(rs[0].symbol.clone())
            } else {
                args(n)
            }
        };
        let (b, c) = crate::scev::backedge_count_in(&text, &sym, &BTreeMap::new()).unwrap();
        assert_eq!(c, 2);
        // X = -2 - r + max(3 + r, n - 1), the body runs floor(X / 2) + 1 times. n = 10,
        // parity 0: j = 1, 3, 5, 7 (j < 9), X = 7; parity 1: j = 2, 4, 6, 8, X = 6.
        for (r, x) in [(0, 7), (1, 6)] {
            let bind = metron_symbolic::binding([("n", 10), (rs[0].symbol.as_str(), r)]);
            assert_eq!(b.0.evaluate(&bind).unwrap(), x);
        }
        // n = 9: parity 0 runs j = 1, 3, 5, 7 (4 times), parity 1 runs j = 2, 4, 6 (3 times).
        for (r, runs) in [(0, 4), (1, 3)] {
            let bind = metron_symbolic::binding([("n", 9), (rs[0].symbol.as_str(), r)]);
            assert_eq!(b.0.evaluate(&bind).unwrap() / 2 + 1, runs);
        }
    }

    #[test]
    fn other_moduli_become_residues() {
        // `j = i % 4` (an i2 truncation) and `j = i % 3` (LLVM 14's remainder form).
        let t =
            "((-1 + (sext i32 %n to i64) + (-1 * (zext i2 {0,+,1}<%for.body> to i64))<nsw>) /u 4)";
        let (text, rs) = with_residues(t, "for.body4", &args).unwrap();
        assert_eq!(
            (rs[0].modulus, rs[0].expr.to_string()),
            (4, "k_for_body".into())
        );
        assert!(text.contains("(-1 * %\"__res_0\")"), "{text}");
        let t = "((-1 + (sext i32 %n to i64) + (-1 * (sext i32 ((-3 * ({0,+,1}<nuw><nsw><%for.body> /u 3))<nsw> + {0,+,1}<nuw><nsw><%for.body>) to i64))<nsw>) /u 3)";
        let (text, rs) = with_residues(t, "for.body4", &args).unwrap();
        assert_eq!(
            (rs[0].modulus, rs[0].expr.to_string()),
            (3, "k_for_body".into())
        );
        assert!(text.contains("(sext i32 %\"__res_0\" to i64)"), "{text}");
        // Not a remainder: different values, or a divisor too large to split.
        assert!(with_residues("((-3 * ({0,+,1}<%L> /u 3)) + {0,+,2}<%L>)", "h", &args).is_none());
        assert!(with_residues("((-64 * ({0,+,1}<%L> /u 64)) + {0,+,1}<%L>)", "h", &args).is_none());
    }

    fn report(header: &str, count: &str) -> LoopReport {
        LoopReport {
            header: header.into(),
            depth: 0,
            variable: loop_symbol(header),
            backedge_taken: TripBound::single(Affine {
                terms: BTreeMap::from([(count.to_string(), 1)]),
                constant: 0,
            }),
            stride: 1,
            source: "scev".into(),
            scev: None,
            derived: None,
            tile: None,
            residues: Vec::new(),
        }
    }

    #[test]
    fn flattening_drops_the_tile_loop_and_counts_header_entries() {
        // 0: tile loop, 1: loop inside the tile (count s), 2: a loop inside 1 over n.
        let loops = [report("ii", "q"), report("i", "s"), report("j", "n")];
        let ctx = |l: &[usize], short: &[usize]| Context {
            loops: l.to_vec(),
            shortened: short.to_vec(),
            ..Context::default()
        };
        // Body of 1 (after its test): one loop of s iterations. Header of 1: s (body part)
        // plus one per entry (the tile loop kept, 1 dropped). Outside 1: unchanged.
        let out = flatten_tile(
            &[ctx(&[0, 1, 2], &[1]), ctx(&[0, 1], &[]), ctx(&[0], &[])],
            1,
            0,
            &loops,
        )
        .unwrap();
        let shapes: Vec<(Vec<usize>, Vec<usize>)> = out
            .iter()
            .map(|c| (c.loops.clone(), c.shortened.clone()))
            .collect();
        assert_eq!(
            shapes,
            [
                (vec![1, 2], vec![1]),
                (vec![0], vec![]),
                (vec![1], vec![1]),
                (vec![0], vec![]),
            ]
        );
        // A triangle inside the tile (`j <= i`, j's count in 1's iteration) is refused.
        let tri = [report("ii", "q"), report("i", "s"), report("j", "k_i")];
        assert!(flatten_tile(&[ctx(&[0, 1, 2], &[1])], 1, 0, &tri).is_none());
    }

    #[test]
    fn wide_or_non_recurrence_zext_is_not_a_residue() {
        assert!(with_residues("(zext i32 %n to i64)", "h", &args).is_none());
        assert!(with_residues("(zext i1 %n to i64)", "h", &args).is_none());
        assert!(with_residues("(-1 + %n)", "h", &args).is_none());
    }

    #[test]
    fn tile_loop_count_in_the_tile_offset() {
        // transpose_blocked's `i < MIN(ii + b, m)` (LLVM 14, a top-tested loop).
        let t = "({0,+,(-1 * (sext i32 %b to i64))<nsw>}<%for.body> + ((sext i32 ({%b,+,%b}<%for.body> smin %m) to i64) smax {0,+,(sext i32 %b to i64)}<%for.body>))";
        let tiles = BTreeMap::from([("for.body".to_string(), "b".to_string())]);
        let m = crate::scev::to_bound_tiled(t, &args, &BTreeMap::new(), &tiles).unwrap();
        let outer = LoopReport {
            header: "for.body".into(),
            depth: 0,
            variable: loop_symbol("for.body"),
            backedge_taken: TripBound::single(Affine::symbol("q_for_body")),
            stride: 1,
            source: "derived".into(),
            scev: None,
            derived: Some(crate::exit_count::DerivedParameter {
                name: "q_for_body".into(),
                definition: String::new(),
                start: AffineExpr::var("b"),
                bound: AffineExpr::var("m"),
                step: "b".into(),
                inclusive: false,
            }),
            tile: None,
            residues: Vec::new(),
        };
        let s = tile_sum_of("for.cond5", &m, &[&outer]).unwrap();
        assert_eq!(
            s.definition,
            "sum over the tiles k of %for.body of max(0, min(b, m - b*k))"
        );
        // m = 100, b = 16: q = ceil((100 - 16) / 16) = 6, K = 7 tiles: 6 * 16 + 4 = 100.
        let bind = metron_symbolic::binding([("m", 100), ("b", 16), ("q_for_body", 6)]);
        assert_eq!(s.value(&bind), Ok(100));
        assert_eq!(
            s.value(&metron_symbolic::binding([("m", 1)])),
            Err(crate::exit_count::DerivedError::Unbound("b".into()))
        );
        let bind = metron_symbolic::binding([("m", 70), ("b", 16), ("q_for_body", 4)]);
        assert_eq!(s.value(&bind), Ok(70));
    }
}
