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
