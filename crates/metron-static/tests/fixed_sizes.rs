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
/// get there): every innermost loop's iterations in the rules equal callgrind's executions
/// of its header.
#[test]
fn copies_of_a_loop_of_fixed_size_are_read_at_that_size() {
    if !have("clang", "clang-14") || !have("valgrind", "valgrind") {
        return;
    }
    rules_alone();
    let dir = tempfile::tempdir().unwrap();
    let flags = ["-g", "-gdwarf-4", "-O2", "-fno-inline", "-DLARGE"];
    let (analysis, counts) = suite_program("clang", "gemver_suite.c", &flags, dir.path());
    let (_, kernel) = analysis
        .program
        .functions
        .iter()
        .find(|(_, m)| m.name == "kernel_gemver")
        .expect("kernel_gemver modelled");
    let mut read = 0;
    for l in kernel
        .loops
        .iter()
        .filter(|l| l.depth > 0 || l.source_line == Some(65))
    {
        let measured = counts
            .instructions
            .get(&l.header_address)
            .copied()
            .unwrap_or(0);
        eprintln!(
            "loop 0x{:x} line {:?}: {} (callgrind {measured}); {:?}",
            l.header_address, l.source_line, l.iterations, l.counted_from
        );
        assert_eq!(
            l.iterations,
            measured.to_string(),
            "loop 0x{:x}",
            l.header_address
        );
        read += usize::from(
            l.counted_from
                .as_deref()
                .is_some_and(|c| c.contains("fixed")),
        );
    }
    assert!(read >= 3, "{read} copies read at their fixed size");
}
