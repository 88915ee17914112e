//! Loops whose trip counts the compiler fixed (sizes as constants, as benchmark suites build
//! them): counted by the rules alone, as every function whose runs go over their budget is
//! (a suite's large dataset). This file's process turns the runs off (`METRON_CALIBRATE=off`),
//! so that the rules are what is checked against callgrind.

mod common;

use common::{have, suite_program};

fn rules_alone() {
    std::env::set_var("METRON_CALIBRATE", "off");
}

/// examples/corpus/gemver_suite.c at clang -O2 `-fno-inline`: the sizes are constants, so
/// the two runs at two sizes that read a copy's induction variable are one, and clang's
/// `x[i] += z[i]` copy (8 iterations per pass) and the first nest's vector copy (4) were
/// counted from their memory accesses (2 per pass): with the runs over their budget (the
/// LARGE dataset, 73M instructions) the kernel was 26% over. Each copy's passes are now
/// read at its one size (from the block that enters it when the run from the entry does not
/// get there): with the rules alone, every loop's instructions equal callgrind's.
#[test]
fn copies_of_a_loop_of_fixed_size_are_read_at_that_size() {
    if !have("clang", "clang-14") || !have("valgrind", "valgrind") {
        return;
    }
    rules_alone();
    let dir = tempfile::tempdir().unwrap();
    let flags = ["-g", "-gdwarf-4", "-O2", "-fno-inline", "-DLARGE"];
    let (analysis, rows) = suite_program("clang", "gemver_suite.c", &flags, dir.path());
    let (_, kernel) = analysis
        .program
        .functions
        .iter()
        .find(|(_, m)| m.name == "kernel_gemver")
        .expect("kernel_gemver modelled");
    let read = kernel
        .loops
        .iter()
        .filter(|l| {
            l.counted_from
                .as_deref()
                .is_some_and(|c| c.contains("fixed"))
        })
        .count();
    assert!(read >= 3, "{read} copies read at their fixed size");
    // The copies: the inner loops (lines 58, 62, 69) and `x[i] += z[i]` (65). The outer
    // loops hold the alias tests, one instruction per pass apart (0.01%).
    let copies: Vec<_> = rows
        .iter()
        .filter(|c| c.region.starts_with("kernel_gemver loop@"))
        .filter(|c| {
            ["58", "62", "65", "69"]
                .iter()
                .any(|l| c.region.ends_with(&format!("(line {l})")))
        })
        .collect();
    assert!(copies.len() >= 5);
    for c in copies {
        eprintln!(
            "{}: {} (callgrind {})",
            c.region, c.predicted.total, c.measured.total
        );
        assert_eq!(c.predicted.total, c.measured.total, "{}", c.region);
    }
    let total = rows.iter().find(|c| c.region == "kernel_gemver").unwrap();
    assert!(
        total.total_error_percent() < 0.05,
        "{}%",
        total.total_error_percent()
    );
}

/// A benchmark written as one `main` (sizes in locals, `int n = N;`, arrays static): the
/// loops' bounds are no parameter, so no run at two sizes reads their copies, and with the
/// rules alone (the runs over budget at a large N) gcc's and clang's unrolled and vectorised
/// copies were counted one iteration per pass (gcc -O2 141% over, clang's first loop 8x).
/// The copies are now read at the locals' constants, run from `main`'s entry as the program
/// runs; every loop equals callgrind.
#[test]
fn copies_of_loops_bounded_by_constant_locals_are_read_at_their_value() {
    if !have("clang", "clang-14") || !have("gcc", "gcc") || !have("valgrind", "valgrind") {
        return;
    }
    rules_alone();
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("locals.c");
    std::fs::write(&src, CONSTANT_LOCALS).unwrap();
    for cc in ["gcc", "clang"] {
        let cs = common::validate(cc, &src, &["-g", "-gdwarf-4", "-O2"], true, &[], &[]);
        let loops: Vec<_> = cs
            .iter()
            .filter(|c| c.region.starts_with("main loop@"))
            .collect();
        assert!(loops.len() >= 3, "{cc}: {} loops", loops.len());
        for c in loops {
            assert_eq!(c.predicted.total, c.measured.total, "{cc} {}", c.region);
        }
    }
}

const CONSTANT_LOCALS: &str = r#"#include <stdio.h>
#ifndef N
#define N 4000
#endif
static double a[N], b[N];

int main(void)
{
    int n = N;
    for (int i = 0; i < n; i++) {
        a[i] = i * 0.5;
        b[i] = 1.0;
    }
    for (int t = 0; t < 3; t++)
        for (int i = 0; i < n; i++)
            b[i] = b[i] * 0.5 + a[i];
    double s = 0;
    for (int i = 0; i < n; i++)
        s += b[i];
    printf("%f\n", s);
    return 0;
}
"#;
