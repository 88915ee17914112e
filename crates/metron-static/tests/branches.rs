//! Branches inside loops (004 §III.C.3, gap 1 of docs/static-accuracy.md): blocks of an `if`
//! arm are counted with the affine or modulo condition added to the nest, against callgrind's
//! per-instruction counts (independent ground truth).
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

#[test]
fn affine_and_modulo_ifs_are_exact_at_o0() {
    if !tools() {
        return;
    }
    for compiler in ["gcc", "clang"] {
        let cs = validate(
            compiler,
            &example("branches.c"),
            &["-g", "-O0"],
            true,
            &["301"],
            &[("n", 301)],
        );
        for f in ["affine_if", "modulo_if"] {
            let c = function(&cs, f);
            assert_eq!(c.predicted.total, c.measured.total, "{compiler} {f}");
            assert_eq!(
                c.predicted.by_category, c.measured.by_category,
                "{compiler} {f}"
            );
        }
    }
}

#[test]
fn branches_within_goal_at_o2_and_o3_including_gcc_loop_splitting() {
    if !tools() {
        return;
    }
    // -O3 splits affine_if's inner loop at `j > i + 4` into two loops (-fsplit-loops).
    for flags in [["-g", "-O2"], ["-g", "-O3"]] {
        let cs = validate(
            "gcc",
            &example("branches.c"),
            &flags,
            true,
            &["301"],
            &[("n", 301)],
        );
        for f in ["affine_if", "modulo_if"] {
            let c = function(&cs, f);
            assert!(c.total_error_percent() < 0.01, "{flags:?} {f}");
            for (cat, p, m, e) in c.categories(0.01) {
                assert!(e < 0.1, "{flags:?} {f} {cat}: predicted {p} measured {m}");
            }
        }
        // Every inner (line 9 / line 20) loop, the split copies included, is exact.
        for c in cs.iter().filter(|c| {
            (c.region.starts_with("affine_if loop@") && c.region.ends_with("(line 9)"))
                || (c.region.starts_with("modulo_if loop@") && c.region.ends_with("(line 20)"))
        }) {
            assert_eq!(
                c.predicted.total, c.measured.total,
                "{flags:?} {}",
                c.region
            );
        }
    }
}
