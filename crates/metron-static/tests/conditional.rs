//! `?:` and `if`s outside loops (004 §III.C.3; gaps 1 and 2 of docs/static-accuracy.md):
//! blocks joined to `?:` arms by DWARF (line, column) and to top-level `if` arms by lines,
//! counted through metron-symbolic, against callgrind's per-instruction counts (independent
//! ground truth) and hand-solved counts.
mod common;
use common::*;

fn tools() -> bool {
    have("valgrind", "valgrind") && have("clang", "clang") && have("gcc", "gcc")
}

fn function<'a>(
    cs: &'a [metron_static::validate::Comparison],
    name: &str,
) -> &'a metron_static::validate::Comparison {
    cs.iter()
        .find(|c| c.region == name)
        .unwrap_or_else(|| panic!("no region {name}"))
}

/// clang -O0 compiles `j < (i < m ? i : m)` to a branch on the `for` line, evaluated at every
/// test of the inner loop: each arm runs `sum over i in the arm of (inner trip + 1)` times.
#[test]
fn clang_o0_min_bound_as_branch_is_exact() {
    if !tools() {
        return;
    }
    // main calls minmax(x, n, n / 2).
    for (n, m) in [(100, 50), (37, 18)] {
        let arg = n.to_string();
        let cs = validate(
            "clang",
            &example("triangular.c"),
            &["-g", "-O0"],
            true,
            &[&arg],
            &[("n", n), ("m", m)],
        );
        let c = function(&cs, "minmax");
        assert_eq!(c.predicted.total, c.measured.total, "n={n}");
        assert_eq!(c.predicted.by_category, c.measured.by_category, "n={n}");
    }
}

/// branches.c's `guarded`: an `if (n > 200)` outside any loop, exact on both sides of the
/// condition, and a `?:` with an affine condition in a loop body (`i > n - 10`: the then arm
/// runs 9 times for n >= 10, by hand), at gcc and clang -O0.
#[test]
fn if_outside_loops_and_conditional_in_loop_body_are_exact_on_both_sides() {
    if !tools() {
        return;
    }
    for compiler in ["gcc", "clang"] {
        for n in [301, 150] {
            let arg = n.to_string();
            let cs = validate(
                compiler,
                &example("branches.c"),
                &["-g", "-O0"],
                true,
                &[&arg],
                &[("n", n)],
            );
            // main's `argc > 1 ? atoi(..) : 100` is annotated `br_prob: 1` (run with an
            // argument): main is exact but for lazy binding, which is not modelled: the first
            // call of each of atoi, malloc, printf and free costs 4 more instructions.
            let main = function(&cs, "main");
            assert_eq!(
                main.measured.total - main.predicted.total,
                16.0,
                "{compiler} n={n} main"
            );
            for f in ["guarded", "affine_if", "modulo_if"] {
                let c = function(&cs, f);
                assert_eq!(c.predicted.total, c.measured.total, "{compiler} n={n} {f}");
                assert_eq!(
                    c.predicted.by_category, c.measured.by_category,
                    "{compiler} n={n} {f}"
                );
            }
        }
    }
}

/// cg.cpp's set-up loop: four `?:`s per row on the loop counter and `n` (a local of `main`
/// that bounds the loop, so already a parameter): `i > 0` fails once, `i + 1 < n` once.
#[test]
fn cg_setup_loop_conditionals_are_exact_at_gcc_o0() {
    if !tools() || !have("g++", "g++") {
        return;
    }
    let cs = validate(
        "g++",
        &example("cg.cpp"),
        &["-g", "-O0"],
        true,
        &["1000", "5"],
        &[("n", 1000), ("max_iter", 5)],
    );
    let setup = cs
        .iter()
        .find(|c| c.region.starts_with("main loop@") && c.region.ends_with("(line 64)"))
        .expect("main's set-up loop");
    assert_eq!(setup.predicted.total, setup.measured.total);
}

/// The same set-up loop at clang++ -O0: constant arms become an LLVM `select`, lowered to a
/// jump over a block without a line that sets the else value (runs once each for `i > 0`
/// and `i + 1 < n`).
#[test]
fn cg_setup_loop_selects_are_exact_at_clang_o0() {
    if !tools() || !have("clang++", "clang") {
        return;
    }
    let cs = validate(
        "clang++",
        &example("cg.cpp"),
        &["-g", "-O0"],
        true,
        &["1000", "5"],
        &[("n", 1000), ("max_iter", 5)],
    );
    let setup = cs
        .iter()
        .find(|c| c.region.starts_with("main loop@") && c.region.ends_with("(line 64)"))
        .expect("main's set-up loop");
    assert_eq!(setup.predicted.total, setup.measured.total);
}
