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
            // argument); validation binds eagerly (LD_BIND_NOW), so no resolver path either.
            for f in ["main", "guarded", "affine_if", "modulo_if"] {
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
        .find(|c| c.region.starts_with("main loop@") && c.region.ends_with("(line 66)"))
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
        .find(|c| c.region.starts_with("main loop@") && c.region.ends_with("(line 66)"))
        .expect("main's set-up loop");
    assert_eq!(setup.predicted.total, setup.measured.total);
}

/// The source side: every `?:` with its column ranges (from clang's AST, checked against the
/// text by hand), the part of its loop it sits in, and its condition.
#[test]
fn conditionals_are_read_with_columns_parts_and_conditions() {
    if !have("clang", "clang") {
        return;
    }
    use metron_static::source::{parse_file, LoopPart};
    let tri = parse_file(&example("triangular.c"), &[]).unwrap();
    // line 17: `        for (int j = 0; j < (i < m ? i : m); j++)`
    let q = tri.conditionals.iter().find(|c| c.line == 17).unwrap();
    assert_eq!(q.whole, ((17, 30), (17, 42)));
    assert_eq!(q.condition_range, ((17, 30), (17, 34)));
    assert_eq!(q.then_range, ((17, 38), (17, 38)));
    assert_eq!(q.else_range, ((17, 42), (17, 42)));
    assert_eq!(q.part, LoopPart::Condition);
    assert_eq!(tri.loops[q.parent_loop.unwrap()].line, 17);
    assert!(q.condition.is_ok(), "{:?}", q.condition);
    // line 24: `    int n = argc > 1 ? atoi(argv[1]) : 100;` reads main's argc (line 23 is
    // its `br_prob: 1` annotation).
    let main = tri.conditionals.iter().find(|c| c.line == 24).unwrap();
    assert_eq!(main.then_range, ((24, 24), (24, 36)));
    assert_eq!(main.else_range, ((24, 40), (24, 42)));
    assert_eq!(main.probability, Some(1.0));
    assert!(main.parent_loop.is_none());
    assert!(main
        .condition
        .as_ref()
        .unwrap_err()
        .contains("main's arguments"));
    // branches.c annotates main's `?:` with `br_prob: 1`.
    let br = parse_file(&example("branches.c"), &[]).unwrap();
    let main = br
        .conditionals
        .iter()
        .find(|c| c.function == "main")
        .unwrap();
    assert_eq!(main.probability, Some(1.0));
    // cg.cpp: `i + 1 < n` under `for (i = 0; i < n; i++)` with `n` a local of main.
    let cg = parse_file(&example("cg.cpp"), &[]).unwrap();
    let setup: Vec<_> = cg
        .conditionals
        .iter()
        .filter(|c| (67..=72).contains(&c.line))
        .collect();
    assert_eq!(setup.len(), 4);
    assert!(setup
        .iter()
        .all(|c| c.condition.is_ok() && c.part == LoopPart::Body));
}

/// calls.c's `argument`, `return i < argc ? atoi(argv[i]) : fallback` with `br_prob: 1`: gcc
/// -O2 shrink-wraps the frame into the then arm (`sub rsp` on the `{` line) and duplicates
/// the `ret` into both arms, so neither arm's block lies in the `?:` by its positions until
/// frame code is left out. Both calls take the then arm: the else arm (`mov`, `ret`) runs
/// never (it was counted once per call, 18% over).
#[test]
fn shrink_wrapped_frame_does_not_hide_a_conditional_arm() {
    if !tools() {
        return;
    }
    for (compiler, opt) in [("gcc", "-O2"), ("gcc", "-O3"), ("clang", "-O2")] {
        let cs = validate(
            compiler,
            &example("calls.c"),
            &["-g", opt],
            true,
            &["1000", "3"],
            &[("n", 1000), ("k", 3), ("n_43", 64)],
        );
        let c = function(&cs, "argument");
        assert_eq!(c.predicted.total, c.measured.total, "{compiler} {opt}");
    }
}
