//! Property tests: symbolic counts equal brute-force enumeration on random small affine nests
//! at random parameter values (the oracle is independent of the symbolic algebra).

use metron_symbolic::oracle::enumerate;
use metron_symbolic::{
    binding, trip_count, AffineExpr, Bound, CmpOp, Condition, CountOptions, Error, Loop, LoopNest,
    NotEqualRule, Piecewise, Rational,
};
use proptest::prelude::*;

const VARS: [&str; 3] = ["i", "j", "k"];
const PARAMS: [&str; 2] = ["n", "m"];

/// An affine expression over the given names with small coefficients.
fn affine(names: Vec<&'static str>) -> impl Strategy<Value = AffineExpr> {
    let k = names.len();
    (
        prop::collection::vec(prop::sample::select(vec![-1i64, 0, 0, 0, 1, 1, 2]), k),
        -3i64..=6,
    )
        .prop_map(move |(coefs, c)| {
            let mut e = AffineExpr::constant(c);
            for (n, a) in names.iter().zip(coefs) {
                if a != 0 {
                    e.terms.insert(n.to_string(), a);
                }
            }
            e
        })
}

fn bound(names: Vec<&'static str>) -> impl Strategy<Value = Bound> {
    let exprs = prop_oneof![
        3 => prop::collection::vec(affine(names.clone()), 1..=1),
        1 => prop::collection::vec(affine(names), 2..=2),
    ];
    (exprs, any::<bool>()).prop_map(
        |(es, max)| {
            if max {
                Bound::Max(es)
            } else {
                Bound::Min(es)
            }
        },
    )
}

fn looop(depth: usize) -> impl Strategy<Value = Loop> {
    let names: Vec<&'static str> = VARS[..depth].iter().chain(PARAMS.iter()).copied().collect();
    (
        bound(names.clone()),
        bound(names),
        prop::sample::select(vec![-2i64, -1, -1, 1, 1, 1, 1, 1, 2, 3]),
        any::<bool>(),
    )
        .prop_map(move |(start, end, stride, end_inclusive)| Loop {
            var: VARS[depth].to_string(),
            start,
            end,
            end_inclusive,
            stride,
            residues: Vec::new(),
        })
}

fn condition(depth: usize) -> impl Strategy<Value = Condition> {
    let names: Vec<&'static str> = VARS[..depth].iter().chain(PARAMS.iter()).copied().collect();
    let ops = vec![
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
        CmpOp::Eq,
        CmpOp::Ne,
    ];
    prop_oneof![
        (
            affine(names.clone()),
            prop::sample::select(ops),
            affine(names.clone())
        )
            .prop_map(|(lhs, op, rhs)| Condition::Affine { lhs, op, rhs }),
        (affine(names), 2i64..=4, 0i64..=3, any::<bool>()).prop_map(
            |(expr, modulus, residue, negated)| Condition::Modulo {
                expr,
                modulus,
                residue,
                negated
            }
        ),
    ]
}

fn nest() -> impl Strategy<Value = LoopNest> {
    (1usize..=3).prop_flat_map(|depth| {
        (
            (0..depth).map(looop).collect::<Vec<_>>(),
            prop::collection::vec(condition(depth), 0..=1),
        )
            .prop_map(|(loops, conditions)| LoopNest { loops, conditions })
    })
}

fn check(nest: &LoopNest, rule: NotEqualRule) -> Result<(), TestCaseError> {
    let p = match trip_count(
        nest,
        &CountOptions {
            not_equal: rule,
            // Bounds the time of a random case; larger ones are rejected as too complex.
            max_cases: 300,
        },
    ) {
        Ok(p) => p,
        // A documented limit (too many cases), not a wrong answer: reject the input. Proptest
        // fails the test if rejections become too frequent.
        Err(Error::TooComplex { .. }) => return Err(TestCaseError::reject("too complex")),
        Err(e) => return Err(TestCaseError::fail(format!("{e} for {nest:?}"))),
    };
    for n in -3..=7 {
        for m in [-2i64, 0, 1, 3, 6] {
            let b = binding([("n", n), ("m", m)]);
            let want = enumerate(nest, &b, 1_000_000).unwrap();
            let got = p.evaluate_integer(&b).unwrap();
            prop_assert_eq!(
                got,
                want.into(),
                "n={} m={} rule={:?}\nnest={:?}\ncount:\n{}",
                n,
                m,
                rule,
                nest,
                p
            );
        }
    }
    Ok(())
}

proptest! {
    // PROPTEST_CASES=2000 runs a longer search (best with --release).
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(24),
        max_global_rejects: 16,
        ..ProptestConfig::default()
    })]

    #[test]
    fn count_equals_enumeration(nest in nest()) {
        check(&nest, NotEqualRule::Split)?;
    }

    #[test]
    fn complement_rule_equals_enumeration(nest in nest()) {
        check(&nest, NotEqualRule::Complement)?;
    }
}

/// A count to combine, or a rejection when the nest is beyond the case limit.
fn counted(nest: &LoopNest) -> Result<Piecewise, TestCaseError> {
    let options = CountOptions {
        max_cases: 300,
        ..CountOptions::default()
    };
    match trip_count(nest, &options) {
        Ok(p) => Ok(p),
        Err(Error::TooComplex { .. }) => Err(TestCaseError::reject("too complex")),
        Err(e) => Err(TestCaseError::fail(format!("{e} for {nest:?}"))),
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(24),
        max_global_rejects: 16,
        ..ProptestConfig::default()
    })]

    /// `+`, `-` and a constant factor skip re-simplifying pieces that are simplified already;
    /// the result must equal the full simplification of the concatenated pieces, and its value
    /// the pointwise sum (machine-integer evaluation against `BigRational` evaluation).
    #[test]
    fn combining_simplified_counts_equals_full_simplification(
        a in nest(), b in nest(), k in -3i64..=4,
    ) {
        let (pa, pb) = (counted(&a)?, counted(&b)?);
        let concat = |x: &Piecewise, y: &Piecewise| {
            Piecewise::from_pieces(x.pieces().iter().chain(y.pieces()).cloned().collect())
        };
        let k_rat = Rational::from_integer(k.into());
        let scaled_full = Piecewise::from_pieces(
            pa.pieces()
                .iter()
                .map(|p| metron_symbolic::Piece {
                    guard: p.guard.clone(),
                    value: p.value.scaled(&k_rat),
                })
                .collect(),
        );
        let (sum, difference) = (&pa + &pb, &pa - &pb);
        let (times_k, k_times) = (&pa * &Piecewise::constant(k), &Piecewise::constant(k) * &pa);
        // Simplification is a fixpoint on almost every count; there the forms agree exactly.
        // (On a few huge counts with many floors a second simplification still finds more to
        // merge; both forms are then exact, which the values below check.)
        let fixpoint = |p: &Piecewise| Piecewise::from_pieces(p.pieces().to_vec()) == *p;
        if fixpoint(&pa) && fixpoint(&pb) {
            prop_assert_eq!(&sum, &concat(&pa, &pb));
            prop_assert_eq!(&difference, &concat(&pa, &-&pb));
            prop_assert_eq!(&times_k, &scaled_full);
            prop_assert_eq!(&k_times, &scaled_full);
        }
        // A weighted sum is the sum of the scaled counts, exactly (same merging).
        let weighted = Piecewise::weighted_sum([(&pa, k_rat.clone()), (&pb, Rational::from_integer(2.into()))]);
        prop_assert_eq!(&weighted, &(&times_k + &(&pb * &Piecewise::constant(2))));
        let full = [concat(&pa, &pb), concat(&pa, &-&pb), scaled_full];
        for n in [-2i64, 0, 3, 7] {
            for m in [-1i64, 2, 5] {
                let bnd = binding([("n", n), ("m", m)]);
                let (va, vb) = (pa.evaluate(&bnd).unwrap(), pb.evaluate(&bnd).unwrap());
                let want = [&va + &vb, &va - &vb, &va * &k_rat];
                for ((fast, full), want) in [&sum, &difference, &times_k].iter().zip(&full).zip(&want) {
                    prop_assert_eq!(&fast.evaluate(&bnd).unwrap(), want);
                    prop_assert_eq!(&full.evaluate(&bnd).unwrap(), want);
                }
                prop_assert_eq!(&k_times.evaluate(&bnd).unwrap(), &want[2]);
            }
        }
    }
}
