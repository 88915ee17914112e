//! clang -O2/-O3 builds of the shipped examples against callgrind (issue 4, gap 3 of
//! docs/static-accuracy.md): loops vectorised by 2 and unrolled by 2 or 4, vector remainder
//! loops, scalar remainder loops and straight-line vector epilogues. Every copy of a loop must
//! be exact (they take whole passes: `floor(N/k1)`, then what each wider copy left over), at
//! sizes whose remainders are all non-zero and at sizes where they vanish. Functions are held
//! to the issue's goal (0.5% total, 2% per category); what remains is the guard blocks around
//! the copies (counted once per entry, docs/static-accuracy.md).
mod common;
use common::*;
use metron_static::validate::Comparison;

fn tools() -> bool {
    have("valgrind", "valgrind") && have("clang", "clang")
}

fn function<'a>(cs: &'a [Comparison], name: &str) -> &'a Comparison {
    cs.iter()
        .find(|c| c.region == name || (c.region.starts_with(name) && !c.region.contains("loop@")))
        .unwrap_or_else(|| panic!("no region {name}"))
}

fn within_goal(c: &Comparison, what: &str) {
    assert!(
        c.total_error_percent() < 0.5,
        "{what} {}: predicted {} measured {} ({:.3}%)",
        c.region,
        c.predicted.total,
        c.measured.total,
        c.total_error_percent()
    );
    for (cat, p, m, e) in c.categories(0.01) {
        assert!(
            e < 2.0,
            "{what} {} {cat}: predicted {p} measured {m}",
            c.region
        );
    }
}

#[test]
fn stream_copies_are_exact_under_clang() {
    if !tools() {
        return;
    }
    // 20013: the init loop (16 per pass) leaves 3 vector passes of 4 and 1 scalar iteration;
    // the kernels (8 per pass) leave one straight-line vector pass and 1 scalar iteration.
    // 20000 leaves nothing. 7: only the narrow copies run.
    for flags in [["-g", "-O2"], ["-g", "-O3"]] {
        for n in [20013i64, 20000, 7] {
            let arg = n.to_string();
            let cs = validate(
                "clang",
                &example("stream.c"),
                &flags,
                true,
                &[&arg],
                &[("n", n)],
            );
            for c in cs.iter().filter(|c| c.region.contains("loop@")) {
                assert_eq!(
                    c.predicted.total, c.measured.total,
                    "{flags:?} n={n} {}",
                    c.region
                );
            }
            // Every block, guards included, is exact; what remains is lazy binding's first call
            // of each of the 6 libc symbols (4 instructions each, charged to the call site).
            let main = function(&cs, "main");
            let off = (main.predicted.total - main.measured.total).abs();
            assert!(off <= 24.0, "{flags:?} n={n}: off by {off}");
            if n > 1000 {
                within_goal(main, &format!("{flags:?} n={n}"));
            }
        }
    }
}

#[test]
fn triangular_under_clang_guards_of_the_prologue_remainder_are_exact() {
    if !tools() {
        return;
    }
    // clang unrolls `for (j = i + 1; j <= n + 2; j++)` by 4 with the `N mod 4` remainder loop
    // first; the tests around them (`N mod 4 == 0`, `N >= 4`) depend on the inner trip count,
    // which changes with i.
    for (n, flags) in [(300i64, ["-g", "-O2"]), (301, ["-g", "-O3"])] {
        let arg = n.to_string();
        let cs = validate(
            "clang",
            &example("triangular.c"),
            &flags,
            false,
            &[&arg],
            &[("n", n), ("m", n / 2)],
        );
        for c in cs
            .iter()
            .filter(|c| c.region.contains("(line 8)") || c.region.contains("(line 9)"))
        {
            assert_eq!(
                c.predicted.total, c.measured.total,
                "{flags:?} n={n} {}",
                c.region
            );
        }
        within_goal(function(&cs, "main"), &format!("{flags:?} n={n}"));
    }
}

#[test]
fn dgemm_under_clang_unrolled_reduction_is_exact() {
    if !tools() {
        return;
    }
    // The naive kernel inlined into main: the k loop unrolled by 2 with an odd-iteration
    // epilogue (which does not run: n must be a multiple of the block size 8), and an
    // `n == 1` bypass guard on every (i, j).
    for (n, flags) in [(32i64, ["-g", "-O2"]), (40, ["-g", "-O3"])] {
        let arg = n.to_string();
        let cs = validate(
            "clang",
            &example("dgemm.c"),
            &flags,
            true,
            &[&arg],
            &[("n", n), ("nn", n * n)],
        );
        let blocked = function(&cs, "dgemm_blocked");
        assert_eq!(blocked.predicted.total, blocked.measured.total, "{flags:?}");
        // Innermost loops (the k copies and the initialisation copies) are exact.
        for c in cs
            .iter()
            .filter(|c| c.region.contains("(line 10)") || c.region.contains("(line 28)"))
        {
            assert_eq!(
                c.predicted.total, c.measured.total,
                "{flags:?} n={n} {}",
                c.region
            );
        }
        within_goal(function(&cs, "main"), &format!("{flags:?} n={n}"));
    }
}

#[test]
fn cg_solve_under_clang_is_within_goal() {
    if !tools() || !have("clang++", "clang") {
        return;
    }
    for flags in [["-g", "-O2"], ["-g", "-O3"]] {
        let cs = validate(
            "clang++",
            &example("cg.cpp"),
            &flags,
            true,
            &["1001", "5"],
            &[("n", 1001), ("max_iter", 5)],
        );
        let solve = function(&cs, "double cg_solve");
        within_goal(solve, &format!("{flags:?}"));
        // Every copy of waxpby/dot/matvec inlined into the solver is exact; the CG iteration
        // loop (line 44) and the set-up loops around them hold the copies' guard blocks.
        for c in cs.iter().filter(|c| {
            c.region.starts_with("double cg_solve")
                && c.region.contains("loop@")
                && ["(line 11)", "(line 18)", "(line 28)"]
                    .iter()
                    .any(|l| c.region.contains(l))
        }) {
            assert_eq!(
                c.predicted.total, c.measured.total,
                "{flags:?} {}",
                c.region
            );
        }
    }
}

/// A loop over `v[3*i]`, `v[3*i+1]`, `v[3*i+2]` touches 3 elements per iteration, which the
/// memory rule alone cannot tell from an unroll by 3; clang vectorises it (8 iterations per
/// pass, a one-pass vector epilogue of 4, a scalar remainder), and the copies' factors come
/// from their advances relative to the scalar copy's 24 bytes.
const STRIDE3: &str = r#"#include <stdio.h>
#include <stdlib.h>

void fill(double *v, int n) {
    for (int i = 0; i < n; i++) {
        v[3 * i] = 1.0;
        v[3 * i + 1] = 2.0;
        v[3 * i + 2] = 3.0;
    }
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100;
    double *v = malloc(sizeof(double) * 3 * n);
    fill(v, n);
    printf("%f\n", v[n]);
    free(v);
    return 0;
}
"#;

#[test]
fn three_elements_per_iteration_is_not_an_unroll_by_three() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("stride3.c");
    std::fs::write(&src, STRIDE3).unwrap();
    for n in [1001i64, 1000, 1003] {
        let arg = n.to_string();
        let cs = validate("clang", &src, &["-g", "-O2"], true, &[&arg], &[("n", n)]);
        let loops: Vec<_> = cs.iter().filter(|c| c.region.contains("loop@")).collect();
        assert!(loops.iter().any(|c| c.measured.total > 0.0));
        for c in loops {
            assert_eq!(c.predicted.total, c.measured.total, "n={n} {}", c.region);
        }
    }
}
