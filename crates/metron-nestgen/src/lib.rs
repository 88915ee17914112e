//! `metron-nestgen`: random affine loop nests (004 §III.C.2 SCoPs: depth 1-4; constant,
//! parametric, triangular and `MIN`/`MAX` bounds; steps ±1 and ±k; `<`, `<=`, `>`, `>=`, `!=`
//! exits; `if` on indices and `?:`) written as C programs, with their execution counts found
//! by running the nest in Rust. The differential oracle of `metron static` and `metron memory`:
//! a seed names a nest, the same on every machine, so a failure is kept as its seed.

mod emit;
pub mod nest;
pub mod oracle;
mod rng;

pub use nest::{Affine, Body, Bound, Cmp, Condition, Loop, Nest, Options, PARAMETERS};
pub use oracle::Counts;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_names_one_nest() {
        let o = Options::default();
        assert_eq!(Nest::random(7, &o), Nest::random(7, &o));
        assert_ne!(
            Nest::random(7, &o).c_source(),
            Nest::random(8, &o).c_source()
        );
    }

    #[test]
    fn every_feature_appears_within_a_few_hundred_seeds() {
        let o = Options::default();
        let nests: Vec<Nest> = (0..400).map(|s| Nest::random(s, &o)).collect();
        let loops = || nests.iter().flat_map(|n| &n.loops);
        for cmp in [Cmp::Lt, Cmp::Le, Cmp::Gt, Cmp::Ge, Cmp::Ne] {
            assert!(loops().any(|l| l.cmp == cmp), "{cmp:?}");
        }
        for depth in 1..=4 {
            assert!(
                nests.iter().any(|n| n.loops.len() == depth),
                "depth {depth}"
            );
        }
        assert!(loops().any(|l| l.step < -1) && loops().any(|l| l.step > 1));
        assert!(
            loops().any(|l| matches!(l.start, Bound::Max(..)) || matches!(l.end, Bound::Min(..)))
        );
        let triangular = |b: &Bound| match b {
            Bound::Affine(a) => a
                .terms
                .iter()
                .any(|(_, n)| !PARAMETERS.contains(&n.as_str())),
            _ => false,
        };
        assert!(loops().any(|l| triangular(&l.start) || triangular(&l.end)));
        assert!(nests.iter().any(|n| n.body.guard.is_some()));
        assert!(nests.iter().any(|n| n.body.select.is_some()));
    }

    /// Styles change how loops are written, never the nest: every style appears within a few
    /// seeds, and the counts are the nest's.
    #[test]
    fn styles_write_the_same_nest_as_while_loops_and_comma_lists() {
        let o = Options::default();
        let styled: String = (1..7)
            .map(|s| Nest::random(s, &o).c_source_in_styles())
            .collect();
        assert!(styled.contains("while (") && styled.contains(", t_"));
        for s in 1..7 {
            let n = Nest::random(s, &o);
            assert_ne!(n.c_source(), n.c_source_in_styles(), "seed {s}");
        }
    }

    #[test]
    fn counts_of_a_hand_written_nest() {
        // 004 Listing 4: for (i = 1; i <= 4; i++) for (j = i + 1; j <= 6; j++) if (j > 4).
        let nest = Nest {
            seed: 0,
            loops: vec![
                Loop {
                    var: "i".into(),
                    start: Bound::Affine(Affine::constant(1)),
                    end: Bound::Affine(Affine::constant(4)),
                    cmp: Cmp::Le,
                    step: 1,
                    declared_in_for: true,
                    pre_statement: false,
                },
                Loop {
                    var: "j".into(),
                    start: Bound::Affine(Affine::name("i", 1)),
                    end: Bound::Affine(Affine::constant(6)),
                    cmp: Cmp::Le,
                    step: 1,
                    declared_in_for: true,
                    pre_statement: false,
                },
            ],
            body: Body {
                guard: Some((
                    Condition::Compare(Affine::name("j", 0), Cmp::Gt, Affine::constant(4)),
                    true,
                )),
                select: None,
            },
            values: [10, 10],
        };
        let c = nest.counts();
        // Fig. 4(a): 5 + 4 + 3 + 2 points; Fig. 4(b): j in {5, 6} for every i.
        assert_eq!(
            (c.iterations.clone(), c.body, c.then_arm),
            (vec![4, 14], 14, 8)
        );
        assert_eq!(c.else_arm, 6);
        assert!(nest.c_source().contains("for (int j = i + 1; j <= 6; j++)"));
    }

    #[test]
    fn down_counting_and_strided_loops_count_as_c_runs_them() {
        let l = |start: i64, cmp, end: i64, step| Nest {
            seed: 0,
            loops: vec![Loop {
                var: "i".into(),
                start: Bound::Affine(Affine::name("n", start)),
                end: Bound::Affine(Affine::constant(end)),
                cmp,
                step,
                declared_in_for: false,
                pre_statement: false,
            }],
            body: Body {
                guard: None,
                select: None,
            },
            values: [10, 0],
        };
        // for (i = n-1; i >= 0; i--): 10; for (i = n-2; i >= 1; i--): 8; i = n; i > 0; i -= 3: 10,7,4,1
        assert_eq!(l(-1, Cmp::Ge, 0, -1).counts().body, 10);
        assert_eq!(l(-2, Cmp::Ge, 1, -1).counts().body, 8);
        assert_eq!(l(0, Cmp::Gt, 0, -3).counts().body, 4);
        assert_eq!(l(-1, Cmp::Ne, 0, -1).counts().body, 9);
    }
}
