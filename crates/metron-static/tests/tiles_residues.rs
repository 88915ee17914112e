//! Issue 12: two corpus kernels whose counts are no polynomial in the nest's counters, which
//! failed outright at every optimisation level ("parameter ... is not bound") before:
//! `sor2d.c`'s red-black start `j = 1 + (i + colour) % 2` (counted per residue) and
//! `transpose_blocked.c`'s tiles `for (i = ii; i < MIN(ii + b, m); i++)` under `ii += b`
//! (summed over the tiles, the `MIN`'s arms as a cut of the tiles). Expected counts are
//! callgrind's, at two sizes each (the tiles ragged and not).
mod common;

use common::*;

fn tools() -> bool {
    have("valgrind", "valgrind") && have("clang", "clang") && have("gcc", "gcc")
}

/// (file, kernel, [(program arguments, parameters)]).
type Case<'a> = (&'a str, &'a str, [(&'a [&'a str], &'a [(&'a str, i64)]); 2]);

const CASES: [Case; 2] = [
    (
        "sor2d.c",
        "sor_redblack",
        [
            (&["60", "4"], &[("n", 60), ("iters", 4)]),
            (&["37", "3"], &[("n", 37), ("iters", 3)]),
        ],
    ),
    (
        "transpose_blocked.c",
        "transpose_blocked",
        [
            (&["100", "70", "16"], &[("m", 100), ("n", 70), ("b", 16)]),
            (&["64", "48", "8"], &[("m", 64), ("n", 48), ("b", 8)]),
        ],
    ),
];

#[test]
fn residue_starts_and_tiles_are_exact_at_o0() {
    if !tools() {
        return;
    }
    for (file, name, sizes) in CASES {
        for cc in ["gcc", "clang"] {
            for (args, params) in sizes {
                let flags = ["-g", "-gdwarf-4", "-O0"];
                let cs = validate(cc, &corpus(file), &flags, true, args, params);
                let c = kernel(&cs, name);
                assert_eq!(c.predicted.total, c.measured.total, "{cc} {file} {args:?}");
                assert_eq!(
                    c.predicted.by_category, c.measured.by_category,
                    "{cc} {file} {args:?}"
                );
            }
        }
    }
}

#[test]
fn residue_starts_and_tiles_are_analysed_when_optimised() {
    // Loop copies at -O2 may still miss; what holds here is that every count has a value.
    if !tools() {
        return;
    }
    for (file, name, [(args, params), _]) in CASES {
        for cc in ["gcc", "clang"] {
            let flags = ["-g", "-gdwarf-4", "-O2", "-fno-inline"];
            let cs = validate(cc, &corpus(file), &flags, true, args, params);
            let c = kernel(&cs, name);
            assert!(c.predicted.total.is_finite(), "{cc} {file}");
            assert!(c.predicted.total > 0.0, "{cc} {file}");
        }
    }
}
