//! The accuracy goal of issue 4 on the shipped examples, against callgrind's per-instruction
//! counts (the independent ground truth). Functions without data-dependent branches must be
//! exact at -O0 and within 0.5% at -O2/-O3; the remaining gaps are listed in
//! docs/static-accuracy.md and asserted here as bounds so that a regression shows.
mod common;
use common::*;

fn tools() -> bool {
    have("valgrind", "valgrind") && have("clang", "clang") && have("gcc", "gcc")
}

fn function<'a>(
    cs: &'a [metron_static::validate::Comparison],
    name: &str,
) -> &'a metron_static::validate::Comparison {
    cs.iter().find(|c| c.region == name).unwrap()
}

#[test]
fn stream_kernels_exact_at_o0_and_within_goal_when_inlined_and_vectorised() {
    if !tools() {
        return;
    }
    let o0 = validate(
        "gcc",
        &example("stream.c"),
        &["-g", "-O0"],
        true,
        &["1000"],
        &[("n", 1000)],
    );
    for f in ["copy", "scale", "add", "triad"] {
        let c = function(&o0, f);
        assert_eq!(c.predicted.total, c.measured.total, "{f}");
        assert_eq!(c.predicted.by_category, c.measured.by_category, "{f}");
    }
    // main's only gap is the `argc > 1 ? atoi(..) : default` branch (both sides predicted).
    assert!(function(&o0, "main").total_error_percent() < 0.5);
    for flags in [["-g", "-O2"], ["-g", "-O3"]] {
        let cs = validate(
            "gcc",
            &example("stream.c"),
            &flags,
            true,
            &["1001"],
            &[("n", 1001)],
        );
        let main = function(&cs, "main");
        assert!(
            main.total_error_percent() < 0.5,
            "{flags:?}: {}",
            main.total_error_percent()
        );
        for (cat, p, m, e) in main.categories(0.01) {
            assert!(e < 2.0, "{flags:?} {cat}: predicted {p} measured {m}");
        }
        // Every loop (vectorised body and remainder included) is exact.
        for c in cs.iter().filter(|c| c.region.contains("loop@")) {
            assert_eq!(
                c.predicted.total, c.measured.total,
                "{flags:?} {}",
                c.region
            );
        }
    }
}

#[test]
fn triangular_and_min_max_nests_are_exact() {
    if !tools() {
        return;
    }
    let params = [("n", 100), ("m", 50)];
    let o0 = validate(
        "gcc",
        &example("triangular.c"),
        &["-g", "-O0"],
        false,
        &["100"],
        &params,
    );
    for f in ["triangular", "minmax"] {
        let c = function(&o0, f);
        assert_eq!(c.predicted.total, c.measured.total, "{f}");
    }
    let o2 = validate(
        "gcc",
        &example("triangular.c"),
        &["-g", "-O2"],
        false,
        &["100"],
        &params,
    );
    assert!(function(&o2, "triangular").total_error_percent() < 0.01);
}

#[test]
fn dgemm_naive_and_blocked_within_goal_at_all_levels() {
    if !tools() {
        return;
    }
    for flags in [["-g", "-O0"], ["-g", "-O2"], ["-g", "-O3"]] {
        let cs = validate(
            "gcc",
            &example("dgemm.c"),
            &flags,
            true,
            &["32"],
            &[("n", 32), ("nn", 1024)],
        );
        for f in ["dgemm_naive", "dgemm_blocked"] {
            let c = function(&cs, f);
            assert!(
                c.total_error_percent() < 0.5,
                "{flags:?} {f}: {}",
                c.total_error_percent()
            );
            for (cat, p, m, e) in c.categories(0.01) {
                assert!(e < 2.0, "{flags:?} {f} {cat}: predicted {p} measured {m}");
            }
        }
    }
}

#[test]
fn cg_kernels_exact_at_o0_and_cg_solve_within_goal_when_inlined() {
    if !tools() || !have("g++", "g++") {
        return;
    }
    let params = [("n", 1000), ("max_iter", 5)];
    let o0 = validate(
        "g++",
        &example("cg.cpp"),
        &["-g", "-O0"],
        true,
        &["1000", "5"],
        &params,
    );
    for c in o0.iter().filter(|c| {
        c.region.starts_with("matvec_ell")
            || c.region.starts_with("void waxpby")
            || c.region.starts_with("double dot")
    }) {
        assert_eq!(c.predicted.total, c.measured.total, "{}", c.region);
    }
    for flags in [["-g", "-O2"], ["-g", "-O3"]] {
        let cs = validate(
            "g++",
            &example("cg.cpp"),
            &flags,
            true,
            &["1000", "5"],
            &params,
        );
        let c = cs
            .iter()
            .find(|c| c.region.starts_with("double cg_solve") && !c.region.contains("loop@"))
            .unwrap();
        assert!(
            c.total_error_percent() < 0.5,
            "{flags:?}: {}",
            c.total_error_percent()
        );
        for (cat, p, m, e) in c.categories(0.01) {
            assert!(e < 2.0, "{flags:?} {cat}: predicted {p} measured {m}");
        }
    }
}
