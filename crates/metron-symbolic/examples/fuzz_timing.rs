use metron_symbolic::*;
use std::time::Instant;
struct R(u64);
impl R {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
    fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }
}
fn aff(r: &mut R, names: &[&str]) -> AffineExpr {
    let mut e = AffineExpr::constant(r.range(-3, 6));
    for n in names {
        let cs = [-1, 0, 0, 0, 1, 1, 2];
        let a = cs[r.range(0, 6) as usize];
        if a != 0 {
            e.terms.insert(n.to_string(), a);
        }
    }
    e
}
fn main() {
    let seed: u64 = std::env::args()
        .nth(1)
        .map(|s| s.parse().unwrap())
        .unwrap_or(1);
    let mut r = R(seed);
    let vars = ["i", "j", "k"];
    for case in 0..200 {
        let depth = r.range(1, 3) as usize;
        let mut loops = vec![];
        for d in 0..depth {
            let names: Vec<&str> = vars[..d].iter().chain(["n", "m"].iter()).copied().collect();
            let b = |r: &mut R| {
                let k = if r.range(0, 3) == 0 { 2 } else { 1 };
                let es = (0..k).map(|_| aff(r, &names)).collect();
                if r.range(0, 1) == 0 {
                    Bound::Max(es)
                } else {
                    Bound::Min(es)
                }
            };
            let start = b(&mut r);
            let end = b(&mut r);
            let strides = [-2, -1, 1, 1, 1, 1, 2, 3];
            loops.push(Loop {
                var: vars[d].into(),
                start,
                end,
                end_inclusive: r.range(0, 1) == 0,
                stride: strides[r.range(0, 7) as usize],
            });
        }
        let names: Vec<&str> = vars[..depth]
            .iter()
            .chain(["n", "m"].iter())
            .copied()
            .collect();
        let mut conditions = vec![];
        for _ in 0..r.range(0, 2) {
            if r.range(0, 1) == 0 {
                let ops = [
                    CmpOp::Lt,
                    CmpOp::Le,
                    CmpOp::Gt,
                    CmpOp::Ge,
                    CmpOp::Eq,
                    CmpOp::Ne,
                ];
                conditions.push(Condition::Affine {
                    lhs: aff(&mut r, &names),
                    op: ops[r.range(0, 5) as usize],
                    rhs: aff(&mut r, &names),
                });
            } else {
                conditions.push(Condition::Modulo {
                    expr: aff(&mut r, &names),
                    modulus: r.range(2, 4),
                    residue: r.range(0, 3),
                    negated: r.range(0, 1) == 0,
                });
            }
        }
        let nest = LoopNest { loops, conditions };
        let t = Instant::now();
        let res = trip_count(&nest, &CountOptions::default());
        let el = t.elapsed().as_secs_f64();
        let pieces = res.as_ref().map(|p| p.pieces().len()).unwrap_or(0);
        if el > 0.2 || res.is_err() {
            println!(
                "case {case}: {el:.2}s pieces={pieces} err={:?}\n{}",
                res.as_ref().err(),
                serde_json::to_string(&nest).unwrap()
            );
        }
        if el > 5.0 {
            break;
        }
    }
}
