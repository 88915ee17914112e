//! The piecewise algebra that metron static / memory build models with: sequencing (sum),
//! multiplication by trip counts, weighted sums over nests, evaluation errors, JSON.

use metron_symbolic::oracle::for_each_point;
use metron_symbolic::{
    binding, sum_over, trip_count, Condition, CountOptions, Error, LinExpr, Loop, LoopNest,
    NotEqualRule, Piecewise, QuasiPolynomial, Rational,
};

fn count(nest: &LoopNest) -> Piecewise {
    trip_count(nest, &CountOptions::default()).unwrap()
}

#[test]
fn sequencing_and_trip_count_products_evaluate_pointwise() {
    // body of `for i < n` costs 3, then `for j < m` costs 2: 3*max(n,0) + 2*max(m,0);
    // the whole thing called in `for k < 10`: times 10.
    let a = count(&LoopNest::new(vec![
        Loop::exclusive("i", "0", "n", 1).unwrap()
    ]));
    let b = count(&LoopNest::new(vec![
        Loop::exclusive("j", "0", "m", 1).unwrap()
    ]));
    let outer = count(&LoopNest::new(vec![
        Loop::exclusive("k", "0", "10", 1).unwrap()
    ]));
    let seq = Piecewise::sum([&a.scaled(&Rational::from_integer(3.into())), &(&b + &b)]);
    let total = &outer * &seq;
    for n in -3..8i64 {
        for m in -3..8i64 {
            let want = 10 * (3 * n.max(0) + 2 * m.max(0));
            let got = total
                .evaluate_integer(&binding([("n", n), ("m", m)]))
                .unwrap();
            assert_eq!(got, want.into(), "n={n} m={m}\n{total}");
        }
    }
    // a - a simplifies to nothing
    assert!((&a - &a).is_zero());
}

#[test]
fn weighted_sum_over_a_nest_matches_enumeration() {
    // sum over i < n, j <= i of (i*j + n): a summand that depends on loop variables
    let nest = LoopNest::new(vec![
        Loop::exclusive("i", "0", "n", 1).unwrap(),
        Loop::inclusive("j", "0", "i", 2).unwrap(),
    ])
    .with_condition(Condition::parse("i + j != 4").unwrap());
    let i = QuasiPolynomial::parameter("i");
    let j = QuasiPolynomial::parameter("j");
    let summand = &(&i * &j) + &QuasiPolynomial::parameter("n");
    for rule in [NotEqualRule::Split, NotEqualRule::Complement] {
        let p = sum_over(
            &nest,
            &summand,
            &CountOptions {
                not_equal: rule,
                ..Default::default()
            },
        )
        .unwrap();
        for n in -2..15i64 {
            let b = binding([("n", n)]);
            let mut want = 0i64;
            for_each_point(&nest, &b, 1 << 20, |v| want += v["i"] * v["j"] + v["n"]).unwrap();
            assert_eq!(p.evaluate_integer(&b).unwrap(), want.into(), "n={n}\n{p}");
        }
    }
}

#[test]
fn equality_conditions_fix_a_variable() {
    // diagonal of an n x n square, and the points with 2j == i
    let square = || {
        LoopNest::new(vec![
            Loop::exclusive("i", "0", "n", 1).unwrap(),
            Loop::exclusive("j", "0", "n", 1).unwrap(),
        ])
    };
    let diag = count(&square().with_condition(Condition::parse("i == j").unwrap()));
    let half = count(&square().with_condition(Condition::parse("2*j == i").unwrap()));
    for n in -2..20i64 {
        let b = binding([("n", n)]);
        assert_eq!(diag.evaluate_integer(&b).unwrap(), n.max(0).into());
        // i = 2j < n  =>  j = 0..ceil(n/2)-1
        let want = if n > 0 { (n + 1) / 2 } else { 0 };
        assert_eq!(
            half.evaluate_integer(&b).unwrap(),
            want.into(),
            "n={n}\n{half}"
        );
    }
}

#[test]
fn missing_parameters_are_named() {
    let p = count(&LoopNest::new(vec![
        Loop::exclusive("i", "0", "n", 1).unwrap(),
        Loop::exclusive("j", "0", "m", 1).unwrap(),
    ]));
    let err = p.evaluate(&binding([("n", 4)])).unwrap_err();
    assert_eq!(err, Error::MissingParameter { name: "m".into() });
    assert!(err.to_string().contains("`m`"));
}

#[test]
fn invalid_nests_are_rejected_with_reasons() {
    let zero_stride = LoopNest::new(vec![Loop::exclusive("i", "0", "n", 0).unwrap()]);
    let msg = trip_count(&zero_stride, &CountOptions::default())
        .unwrap_err()
        .to_string();
    assert!(msg.contains("stride 0"), "{msg}");
    let inner_in_outer = LoopNest::new(vec![
        Loop::exclusive("i", "0", "j", 1).unwrap(),
        Loop::exclusive("j", "0", "n", 1).unwrap(),
    ]);
    let msg = trip_count(&inner_in_outer, &CountOptions::default())
        .unwrap_err()
        .to_string();
    assert!(msg.contains("`j`"), "{msg}");
}

#[test]
fn loop_nest_json_round_trip() {
    let nest = LoopNest::new(vec![
        Loop::inclusive("i", "1", "5", 1).unwrap(),
        Loop::inclusive("j", "min(6 - i, 3)", "max(8 - i, i)", 1).unwrap(),
    ])
    .with_condition(Condition::parse("j % 4 != 0").unwrap());
    let json = serde_json::to_string(&nest).unwrap();
    let back: metron_symbolic::LoopNest = serde_json::from_str(&json).unwrap();
    assert_eq!(back, nest);
}

#[test]
fn floor_terms_print_and_emit() {
    let e = LinExpr::symbol("n")
        .plus(&LinExpr::integer(2))
        .scaled(&Rational::new(1.into(), 3.into()))
        .floor();
    let p = QuasiPolynomial::from(&e);
    assert_eq!(p.to_string(), "floor((n + 2)/3)");
    assert_eq!(p.to_python().unwrap(), "((n + 2)//3)");
    let b = binding([("n", -4)]);
    // floor(-2/3) = -1 (floor, not truncation)
    assert_eq!(p.evaluate_integer(&b).unwrap(), (-1).into());
}

#[test]
fn bad_python_names_are_refused() {
    let p = Piecewise::parameter("lambda");
    assert!(matches!(
        p.to_python_function("f"),
        Err(Error::InvalidIdentifier { .. })
    ));
}

#[test]
fn malformed_json_is_an_error_not_a_panic() {
    for coefficient in ["1/0", "x", "1.5"] {
        let bad = format!(
            r#"{{"pieces":[{{"guard":[],"value":[{{"coefficient":"{coefficient}","factors":[]}}]}}]}}"#
        );
        let err = serde_json::from_str::<Piecewise>(&bad)
            .unwrap_err()
            .to_string();
        assert!(err.contains("rational"), "{coefficient}: {err}");
    }
}

#[test]
fn complementary_pieces_merge() {
    // n*m where n >= 5, plus n*m where n < 5, is n*m everywhere.
    let p = count(&LoopNest::new(vec![
        Loop::exclusive("i", "0", "n", 1).unwrap(),
        Loop::exclusive("j", "0", "m", 1).unwrap(),
    ]));
    let hi = count(
        &LoopNest::new(vec![Loop::exclusive("i", "0", "n", 1).unwrap()])
            .with_condition(Condition::parse("n >= 5").unwrap()),
    );
    let lo = count(
        &LoopNest::new(vec![Loop::exclusive("i", "0", "n", 1).unwrap()])
            .with_condition(Condition::parse("n < 5").unwrap()),
    );
    let whole = count(&LoopNest::new(vec![
        Loop::exclusive("i", "0", "n", 1).unwrap()
    ]));
    assert_eq!(&hi + &lo, whole, "{}", &hi + &lo);
    assert_eq!(p.pieces().len(), 1);
}

#[test]
fn call_sites_rename_and_bind_parameters() {
    // callee: for (j = 0; j < y; j++) inside for (i = 0; i < 10; i++)  => if y > 0: 10*y
    let callee = count(&LoopNest::new(vec![
        Loop::exclusive("i", "0", "10", 1).unwrap(),
        Loop::exclusive("j", "0", "y", 1).unwrap(),
    ]));
    let at_16 = callee.rename_parameter("y", "y_16");
    assert_eq!(at_16.to_string(), "if y_16 > 0: 10*y_16");
    // bound to the caller's argument 2*m - 3
    let arg = LinExpr::symbol("m")
        .scaled(&Rational::from_integer(2.into()))
        .minus(&LinExpr::integer(3));
    let bound = callee.substitute("y", &arg);
    for m in -3..10i64 {
        let want = 10 * (2 * m - 3).max(0);
        assert_eq!(
            bound.evaluate_integer(&binding([("m", m)])).unwrap(),
            want.into()
        );
    }
}

#[test]
fn indicators_of_parameter_conditions() {
    let conds = [
        Condition::parse("n > 0").unwrap(),
        Condition::parse("n % 2 != 1").unwrap(),
        Condition::parse("m != n").unwrap(),
    ];
    let opts = CountOptions::default();
    let p = metron_symbolic::indicator(&conds, &opts).unwrap();
    for n in -4..10i64 {
        for m in -4..10i64 {
            let want = i64::from(n > 0 && n.rem_euclid(2) != 1 && m != n);
            let got = p.evaluate_integer(&binding([("n", n), ("m", m)])).unwrap();
            assert_eq!(got, want.into(), "n={n} m={m}\n{p}");
        }
    }
    let simple = metron_symbolic::indicator(&conds[..1], &opts).unwrap();
    assert_eq!(simple.to_string(), "if n > 0: 1");
}

/// Evaluation takes a machine-integer path and falls back to arbitrary precision on overflow:
/// values near and beyond the `i64`/`i128` range must come out exact (checked against `BigInt`
/// arithmetic done here, independently of the crate).
#[test]
fn evaluation_is_exact_across_the_machine_integer_range() {
    use num_bigint::BigInt;
    // for (i = 0; i < n; i++) for (j = 0; j < n; j++) for (k = 0; k < n; k++): n^3 for n > 0
    let nest = LoopNest::new(vec![
        Loop::exclusive("i", "0", "n", 1).unwrap(),
        Loop::exclusive("j", "0", "n", 1).unwrap(),
        Loop::exclusive("k", "0", "n", 1).unwrap(),
    ]);
    let cube = trip_count(&nest, &CountOptions::default()).unwrap();
    // i < n; i += 3 on top: floor((n + 2)/3) pieces with rational coefficients.
    let strided = trip_count(
        &LoopNest::new(vec![Loop::exclusive("i", "0", "n", 3).unwrap()]),
        &CountOptions::default(),
    )
    .unwrap();
    let product = &cube * &strided;
    for n in [
        1i64,
        7,
        (1 << 20) + 1,
        (1 << 42) - 1,
        1 << 42,
        (1 << 43) + 5,
        i64::MAX / 2,
        i64::MAX - 1,
        i64::MAX,
    ] {
        let b = binding([("n", n)]);
        let big_n = BigInt::from(n);
        let want_cube = &big_n * &big_n * &big_n;
        let want_strided = (&big_n + 2) / 3;
        assert_eq!(cube.evaluate_integer(&b).unwrap(), want_cube, "n^3 at {n}");
        assert_eq!(
            strided.evaluate_integer(&b).unwrap(),
            want_strided,
            "strided at {n}"
        );
        assert_eq!(
            product.evaluate_integer(&b).unwrap(),
            &want_cube * &want_strided,
            "product at {n}"
        );
    }
    for n in [i64::MIN, -5, 0] {
        let b = binding([("n", n)]);
        assert_eq!(product.evaluate_integer(&b).unwrap(), BigInt::from(0));
    }
}

/// Counts are remembered per thread; the memory must tell options apart (a case limit that
/// makes one call fail must not answer another call with a larger limit, and the reverse).
#[test]
fn remembered_counts_depend_on_the_options() {
    // A `min` start of an upward loop splits into one case per expression.
    // By hand: i = 1: j = 1..5 (5); i = 2, 3, 4: j = 2..5 (4 each); 17 in all.
    let nest = LoopNest::new(vec![
        Loop::inclusive("i", "1", "4", 1).unwrap(),
        Loop::inclusive("j", "min(i, 2)", "5", 1).unwrap(),
    ]);
    let tight = CountOptions {
        max_cases: 1,
        ..CountOptions::default()
    };
    for _ in 0..2 {
        assert!(matches!(
            trip_count(&nest, &tight),
            Err(Error::TooComplex { .. })
        ));
        let p = trip_count(&nest, &CountOptions::default()).unwrap();
        assert_eq!(p.evaluate_integer(&binding([])).unwrap(), 17.into());
    }
}

/// `Condition::substituted` and `Condition::negated`, checked by evaluating the conditions
/// themselves: substituting `i := v` holds where the condition holds at `i = v(n, m)`, and
/// the negation holds exactly where the condition fails.
#[test]
fn substituted_and_negated_conditions_agree_with_evaluation() {
    use metron_symbolic::{AffineExpr, Condition};
    let value = AffineExpr::parse("n - m + 1").unwrap();
    for text in [
        "i <= m + 2",
        "2*i - n > 3",
        "i + m != 4",
        "(i + n) % 3 == 1",
        "i % 2 != 0",
    ] {
        let c = Condition::parse(text).unwrap();
        let at = c.substituted("i", &value).unwrap();
        let not = c.negated();
        for n in -3..8 {
            for m in -3..8 {
                let b: std::collections::BTreeMap<String, i64> =
                    [("n".to_string(), n), ("m".to_string(), m)].into();
                let mut with_i = b.clone();
                with_i.insert("i".into(), n - m + 1);
                let holds = c.holds(&with_i).unwrap();
                assert_eq!(at.holds(&b).unwrap(), holds, "{text} n={n} m={m}");
                assert_eq!(
                    not.holds(&with_i).unwrap(),
                    !holds,
                    "not {text} n={n} m={m}"
                );
            }
        }
    }
}

#[test]
fn a_reduced_bound_keeps_its_value_and_no_expression_another_passes_by_a_constant() {
    use metron_symbolic::Bound;
    for (text, left) in [
        ("max(n - 1, n + 2)", 1),
        ("min(-1, -1)", 1),
        ("min(n + 3, m, n - 2, 2*n)", 3),
        ("max(0, i - 3, i, 5)", 2),
        ("n", 1),
    ] {
        let bound = Bound::parse(text).unwrap();
        let reduced = bound.reduced();
        assert_eq!(reduced.exprs().len(), left, "{text} -> {reduced:?}");
        for n in -6..6i64 {
            for m in -6..6i64 {
                let at = binding([("n", n), ("m", m), ("i", n - m)]);
                assert_eq!(
                    bound.evaluate(&at),
                    reduced.evaluate(&at),
                    "{text} at n={n} m={m}"
                );
            }
        }
    }
}

#[test]
fn a_nest_stepping_down_by_three_under_a_counter_bound_counts_without_giving_up() {
    // Generator seed 161: `k` from n - 2 down to j + 1 by 3 inside `j < m + 4`, `l` down by 3
    // under it, counted where its `?:` takes the first arm. Summing over `j` splits on
    // residues of n and m mod 3; congruences on the same expression that contradict each
    // other (2n ≡ 0 and 2n + 1 ≡ 0 mod 3) were kept as pieces, which multiplied past the
    // 1,000-case limit: counting returned an error, the model was 13% over at gcc -O0, and
    // each calibration took minutes.
    use metron_symbolic::oracle::enumerate;
    let nest = LoopNest::new(vec![
        Loop::inclusive("i", "6", "-1", -1).unwrap(),
        Loop::exclusive("j", "2", "m + 4", 1).unwrap(),
        Loop::inclusive("k", "n - 2", "j + 1", -3).unwrap(),
        Loop::inclusive("l", "max(n - 1, n + 2)", "min(-1, -1)", -3).unwrap(),
    ])
    // The arm of its `?:`.
    .with_condition(Condition::parse("i + j != k - 2").unwrap());
    let p = count(&nest);
    for n in -2..14i64 {
        for m in -5..14i64 {
            let b = binding([("n", n), ("m", m)]);
            let want = enumerate(&nest, &b, 1 << 20).unwrap();
            assert_eq!(p.evaluate_integer(&b).unwrap(), want.into(), "n={n} m={m}");
        }
    }
}
