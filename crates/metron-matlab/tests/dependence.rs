//! Dependence tests against brute-force enumeration of the iteration space (independent
//! ground truth), plus Kosaraju SCCs and the π-graph order on hand-made graphs.

use std::collections::BTreeSet;

use metron_matlab::dependence::{test, Bounds, Direction, Graph, Method, Subscript};
use metron_matlab::linear::Linear;

fn sub(c: i64, d: i64) -> Subscript {
    Subscript {
        coeff: c,
        offset: Linear::constant(d as f64),
    }
}

/// Directions in which a at iteration t1 and b at iteration t2 touch the same element.
fn brute(a: (i64, i64), b: (i64, i64), l: i64, u: i64, step: i64) -> BTreeSet<Direction> {
    let values: Vec<i64> = if step > 0 {
        (0..)
            .map(|t| l + t * step)
            .take_while(|&v| v <= u)
            .collect()
    } else {
        (0..)
            .map(|t| l + t * step)
            .take_while(|&v| v >= u)
            .collect()
    };
    let mut out = BTreeSet::new();
    for (t1, &i1) in values.iter().enumerate() {
        for (t2, &i2) in values.iter().enumerate() {
            if a.0 * i1 + a.1 == b.0 * i2 + b.1 {
                out.insert(match t1.cmp(&t2) {
                    std::cmp::Ordering::Less => Direction::Before,
                    std::cmp::Ordering::Equal => Direction::Same,
                    std::cmp::Ordering::Greater => Direction::After,
                });
            }
        }
    }
    out
}

#[test]
fn exact_test_matches_brute_force_for_equal_coefficients() {
    for c in [-2, -1, 1, 2, 3] {
        for d in -7..=7 {
            for (l, u, step) in [(1, 10, 1), (2, 9, 1), (10, 1, -1), (1, 12, 2)] {
                let got = test(
                    &sub(c, 0),
                    &sub(c, d),
                    Bounds {
                        lower: Some(l),
                        upper: Some(u),
                        step,
                    },
                );
                assert_eq!(got.method, Method::Exact);
                assert_eq!(
                    got.directions,
                    brute((c, 0), (c, d), l, u, step),
                    "c={c} d={d} {l}:{step}:{u}"
                );
            }
        }
    }
}

#[test]
fn gcd_and_banerjee_are_conservative_and_catch_independence() {
    let mut independent_found = 0;
    for c1 in [1, 2, 3, -1] {
        for c2 in [2, 4, -3, 1] {
            if c1 == c2 {
                continue;
            }
            for d in -6..=6 {
                let got = test(
                    &sub(c1, 0),
                    &sub(c2, d),
                    Bounds {
                        lower: Some(1),
                        upper: Some(8),
                        step: 1,
                    },
                );
                let truth = brute((c1, 0), (c2, d), 1, 8, 1);
                // Never claims independence where a dependence exists.
                assert!(
                    truth.is_subset(&got.directions),
                    "c1={c1} c2={c2} d={d}: {got:?} vs {truth:?}"
                );
                if got.directions.is_empty() {
                    independent_found += 1;
                }
            }
        }
    }
    assert!(
        independent_found > 10,
        "the tests prove independence somewhere"
    );
    // GCD: 2i = 2j + 1 has no integer solution.
    let g = test(
        &sub(2, 0),
        &sub(2, 1),
        Bounds {
            lower: None,
            upper: None,
            step: 1,
        },
    );
    assert!(g.directions.is_empty());
    let g = test(
        &sub(2, 0),
        &sub(4, 1),
        Bounds {
            lower: None,
            upper: None,
            step: 1,
        },
    );
    assert!(g.directions.is_empty() && g.method == Method::Gcd);
}

#[test]
fn symbolic_offsets_are_assumed_dependent() {
    let a = Subscript {
        coeff: 1,
        offset: Linear::atom("k"),
    };
    let got = test(
        &a,
        &sub(1, 0),
        Bounds {
            lower: Some(1),
            upper: Some(5),
            step: 1,
        },
    );
    assert_eq!(got.method, Method::Assumed);
    assert_eq!(got.directions.len(), 3);
    // The same symbolic offset cancels: exact.
    let got = test(
        &a,
        &a.clone(),
        Bounds {
            lower: None,
            upper: None,
            step: 1,
        },
    );
    assert_eq!(got.directions, [Direction::Same].into_iter().collect());
}

#[test]
fn kosaraju_and_pi_graph_order() {
    // 0 -> 1 -> 2 -> 1 (cycle {1,2}), 3 -> 0, 4 alone
    let mut g = Graph::new(5);
    g.add(0, 1);
    g.add(1, 2);
    g.add(2, 1);
    g.add(3, 0);
    let mut sccs = g.sccs();
    sccs.sort();
    assert_eq!(sccs, vec![vec![0], vec![1, 2], vec![3], vec![4]]);
    let pi = g.pi_nodes();
    let order: Vec<Vec<usize>> = pi.iter().map(|p| p.statements.clone()).collect();
    assert_eq!(order, vec![vec![3], vec![0], vec![1, 2], vec![4]]);
    assert_eq!(
        pi.iter().map(|p| p.cyclic).collect::<Vec<_>>(),
        [false, false, true, false]
    );
}

#[test]
fn profile_threshold_is_the_start_of_the_profitable_suffix() {
    use metron_matlab::octave::{threshold, ProfilePoint};
    use metron_measure::stats::Interval;
    let point = |size, lo, hi| ProfilePoint {
        size,
        loop_median_s: 1.0,
        vector_median_s: 1.0,
        speedup: (lo + hi) / 2.0,
        speedup_ci: Some(Interval { lo, hi }),
    };
    // Profitable at 64 but not at 128 (noise): only 256 and beyond count.
    let pts = [
        point(16, 0.5, 0.7),
        point(64, 1.1, 1.3),
        point(128, 0.9, 1.2),
        point(256, 1.2, 1.5),
        point(1024, 2.0, 3.0),
    ];
    assert_eq!(threshold(&pts), Some(256));
    assert_eq!(threshold(&pts[..3]), None);
}
