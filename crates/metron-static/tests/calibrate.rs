//! Block counts checked by running the machine code (`calibrate`): kernels whose loop copies
//! the copy rules miscounted, refitted from runs at small sizes and checked against callgrind
//! (the independent ground truth) at sizes the runs never used.
mod common;
use common::*;
use metron_static::binary::Binary;
use metron_static::program::ProgramModel;
use metron_static::validate::{compare_program, run_callgrind};

fn tools() -> bool {
    have("valgrind", "valgrind") && have("clang", "clang") && have("gcc", "gcc")
}

/// examples/corpus/gauss_seidel.c at clang -O2/-O3: the backward sweep counts down and clang
/// unrolls both sweeps; the copy rules gave 43.7% too many. The runs (sizes 3 to 40) refit
/// the copies' blocks, and the model is exact at n = 700, far past them.
#[test]
fn a_down_counting_unrolled_sweep_is_exact_past_the_sizes_it_was_run_at() {
    if !tools() {
        return;
    }
    let src = example("../corpus/gauss_seidel.c");
    for level in ["-O2", "-O3"] {
        let cs = validate(
            "clang",
            &src,
            &["-g", "-gdwarf-4", level, "-fno-inline"],
            true,
            &["700", "3"],
            &[("n", 700), ("sweeps", 3)],
        );
        let c = kernel(&cs, "sgs_sweep");
        assert_eq!(c.predicted.total, c.measured.total, "clang {level}");
    }
}

/// Generator seed 19 at clang -O3 (210% before) and seed 7 at clang -O2 (462% before:
/// `k <= MIN(11, i)` fully unrolled into a chain of per-iteration exits): exact.
#[test]
fn copies_the_rules_miscounted_are_refitted_from_runs() {
    if !tools() {
        return;
    }
    for (seed, level) in [(19, "-O3"), (7, "-O2")] {
        let c = nest_row(seed, "clang", level);
        assert_eq!(c.predicted.total, c.measured.total, "seed {seed} {level}");
    }
}

/// A kernel whose control reads data (threshold.c's `if (img[i] > t)`) runs with every branch
/// on data taken, then with none: the blocks whose counts that changes (the arm) are left to
/// the model, which a `br_prob` or branch profile weighs, and the others are checked (its
/// runs stopped at the branch before, and nothing was checked). An affine kernel of the same
/// build follows no data.
#[test]
fn control_that_reads_data_is_left_to_the_model() {
    if !have("gcc", "gcc") || !have("clang", "clang") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let model = |file: &str, function: &str| {
        let src = example(&format!("../corpus/{file}"));
        let bin = build("gcc", &src, &["-g", "-O2", "-fno-inline"], dir.path(), true);
        let binary = Binary::load(&bin).unwrap();
        let source = metron_static::source::parse_file(&src, &[]).unwrap();
        let program = ProgramModel::build(&binary, &source, false);
        let (_, m) = program
            .functions
            .iter()
            .find(|(_, m)| m.name == function)
            .unwrap_or_else(|| panic!("{function} not modelled"))
            .clone();
        m
    };
    let threshold = model("threshold.c", "threshold");
    let Some(Ok(c)) = &threshold.calibration else {
        panic!("threshold: calibrated, not {:?}", threshold.calibration)
    };
    assert!(c.samples >= metron_static::calibrate::MIN_SAMPLES, "{c:?}");
    assert!(!c.data_dependent.is_empty(), "{c:?}");
    // What follows the data keeps the model's count (no refit of it).
    for a in &c.data_dependent {
        assert!(c.refitted.iter().all(|r| r.address != *a), "{c:?}");
    }
    let c = model("syrk.c", "syrk").calibration;
    let Some(Ok(c)) = c else {
        panic!("syrk's control is affine: calibrated, not {c:?}")
    };
    assert!(c.samples >= metron_static::calibrate::MIN_SAMPLES, "{c:?}");
    assert!(c.data_dependent.is_empty(), "{c:?}");
}

/// A few seeds of the nest generator at every optimised build (scripts/static-accuracy runs
/// hundreds): exact against callgrind. Before the runs checked the counts, seeds 11 and 14
/// were 9.5% and 7.7% off at clang -O2/-O3 and seed 12 failed at clang -O3 (an unbound trip
/// count).
#[test]
fn generated_nests_are_exact_at_o2_and_o3() {
    if !tools() {
        return;
    }
    for seed in [2, 8, 11, 12, 14] {
        for (cc, level) in [
            ("gcc", "-O2"),
            ("gcc", "-O3"),
            ("clang", "-O2"),
            ("clang", "-O3"),
        ] {
            let c = nest_row(seed, cc, level);
            assert_eq!(
                c.predicted.total, c.measured.total,
                "seed {seed} {cc} {level}"
            );
        }
    }
}

/// Terms of the loops inside one iteration of an enclosing loop. Seed 6 at clang -O2 (175%
/// before): `j < MIN(11, n)` from 1 by 4 runs at most 3 times and is unrolled away, each
/// copy of the `k` loop counting for one value of `j`. Seed 18 at gcc -O3 (76% before): gcc
/// splits the `i` loop where `i` reaches the `k` loop's range (`y[i]` is read while `y[k]`
/// is written), the runs fit the blocks of each part. Both exact against callgrind.
#[test]
fn copies_of_one_outer_iteration_or_range_are_refitted() {
    if !tools() {
        return;
    }
    for (seed, cc, level) in [(6, "clang", "-O2"), (18, "gcc", "-O3")] {
        let c = nest_row(seed, cc, level);
        assert_eq!(
            c.predicted.total, c.measured.total,
            "seed {seed} {cc} {level}"
        );
    }
}

/// Compiler transformations at gcc -O3 whose blocks no term of the source nest counted
/// before (all seeds of the 1,000-nest benchmark, 15% to 94% off; exact against callgrind
/// now). Each adds one family of terms to the runs' basis:
/// - 1020: a block on the path through two tests of one body (`i % 3 == 0` and a `?:`);
/// - 1026: a loop's trip-count guard hoisted out of a loop whose counter it does not read;
/// - 1032: remainder paths of a loop unrolled by the period of an `i % 3` in it;
/// - 1074: versions for a run-time alias test (`y[i]` in the range the `l` loop writes);
/// - 1092: a loop split where its `MAX(i - 1, m - 2)` start switches, ties either side;
/// - 1095: unroll-and-jam (the outer loop by 2 after a peel, the inner one vectorised);
/// - 1066: the whole nest versioned on the parity of an invariant inner loop's trip count.
#[test]
fn compiler_transformations_at_o3_are_refitted() {
    if !tools() {
        return;
    }
    for seed in [1020, 1026, 1032, 1066, 1074, 1092, 1095] {
        let c = nest_row(seed, "gcc", "-O3");
        assert_eq!(c.predicted.total, c.measured.total, "seed {seed} gcc -O3");
    }
}

/// Blocks whose counts are differences of their neighbours' in the CFG, where the
/// difference takes more source terms than one fit combines (gcc -O3, 5.9% and 72% off
/// before; exact against callgrind now): seed 1006, and seed 1295, whose interchanged loop's
/// remainder runs on the parity of another loop's trip count (a product of two counts,
/// which a linear basis has no term for, but its neighbours' refitted counts hold).
#[test]
fn blocks_are_refitted_from_their_refitted_neighbours() {
    if !tools() {
        return;
    }
    for seed in [1006, 1295] {
        let c = nest_row(seed, "gcc", "-O3");
        assert_eq!(c.predicted.total, c.measured.total, "seed {seed} gcc -O3");
    }
}

/// Seed 1156 at gcc -O2 (2.2% off before, exact against callgrind now): gcc re-tests
/// `n > 1` at the head of every pass of the `j` loop, so that block counts `m - 1` passes
/// when `n > 1` and one per `j` pass otherwise. Only one check run has `n <= 1`, and a
/// combination of 8-wide pass terms in `m` alone matched it by coincidence: 39 visits at
/// `m = 10` instead of 9. A refit on the checks must now hold on a third draw, which it does
/// not; the block keeps the samples' fit.
#[test]
fn a_refit_on_the_checks_is_confirmed_on_a_third_draw() {
    if !tools() {
        return;
    }
    let cs = validate_nest(1156, "gcc", &["-g", "-gdwarf-4", "-O2"]);
    let c = kernel(&cs, "nest");
    assert_eq!(
        c.predicted.total, c.measured.total,
        "seed 1156 gcc -O2: {c:?}"
    );
}

/// Seed 1225: `if (j >= m + 2)` inside the `k` loop reads only `j`. gcc -O3 folds it into
/// the `j` loop's bound and clang -O3 unswitches the `k` loop on it, so the vectorised `k`
/// loop's passes and its odd-trip epilogue run only where the arm holds: terms no basis
/// had (7.8% and 2.4% off, blocks no combination fitted). Counted with the arm's condition
/// added to the loop's domain, both are exact against callgrind.
#[test]
fn a_loop_unswitched_on_a_test_it_contains_counts_its_copies_where_the_arm_holds() {
    if !tools() {
        return;
    }
    for cc in ["gcc", "clang"] {
        let c = nest_row(1225, cc, "-O3");
        assert_eq!(c.predicted.total, c.measured.total, "seed 1225 {cc} -O3");
    }
}

/// Seed 1227 at clang -O3: four loops, the second of 10 iterations, and the innermost's body
/// under `if ((j + k) % 4 == 0)`, which clang hoists out of it (unswitching). The innermost
/// loop's 8-wide body is entered only where it has a pass (`k & -4` past 4), which no term
/// counted where the arm holds: combinations with coefficients no copy has (1/7, 120)
/// matched every run at sizes up to 15 and counted 36% too many at n = 19. With the entries
/// that have at least one `w`-wide pass among the unswitched loop's terms, every block fits:
/// exact against callgrind at the seed's sizes and past every run.
#[test]
fn an_unswitched_loops_vector_body_is_entered_where_it_has_a_pass() {
    if !tools() {
        return;
    }
    assert_exact_at(
        nest_source(1227).path(),
        "clang",
        "-O3",
        &[(19, 18), (40, 25)],
    );
}

/// Seed 1184 at clang -O2: `for (l = i; l <= 11; l++) if (l != m + 1) ...`. clang peels the
/// first iteration of an odd trip and unrolls the rest by 2, each lane keeping its test:
/// the arm blocks run where the arm holds at the peeled start, and in each lane of the pairs,
/// aligned to the loop's end. No term counted either (2.9% off, three blocks no combination
/// fitted, counted as the closest ones). With the arm in each lane of a 2- or 4-wide copy
/// and in a remainder run first among the terms, every block fits: exact against callgrind
/// at the seed's sizes and past every run.
#[test]
fn an_arm_in_each_lane_of_an_unrolled_loop_with_a_peeled_start_is_counted() {
    if !tools() {
        return;
    }
    assert_exact_at(
        nest_source(1184).path(),
        "clang",
        "-O2",
        &[(19, 10), (40, 8)],
    );
}

/// Seed 1137 at gcc -O3 (14.7% before): `for (j = 6; j > MIN(2, i + 1); j -= 3)` runs
/// `j = 6, 3` wherever `i >= 1`, so gcc unrolls it away and splits the `i` loop where the
/// `j = 3` copy's `i >= j + 1` changes side. Each copy of the `if` arm counts for one `j` on
/// one range of `i`. Exact against callgrind at the seed's sizes and past every run.
#[test]
fn a_loop_split_at_a_test_of_an_unrolled_inner_loop_is_counted() {
    if !tools() {
        return;
    }
    let dir = nest_source(1137);
    assert_exact_at(dir.path(), "gcc", "-O3", &[(4, 19), (40, 19), (30, 25)]);
}

/// Seed 1079 at gcc -O3 (1.4% before, 5% at n = 40): the innermost loop (`l += 3` up to
/// `i - 2`) runs a 2-wide vector copy only where `i - 2 > 8` (`cmp $0x8; jbe`), that is in
/// entries with at least 4 iterations, and its scalar copy through all iterations of the
/// others. The threshold comes from the binary's compare (`k = c / s + 2`); the same terms
/// for every small `k` fitted triangular.c's copies at clang -O2 by coincidence. Exact
/// against callgrind at the seed's sizes and past the runs.
#[test]
fn a_vector_copy_behind_a_threshold_the_binary_compares_is_counted_past_the_runs() {
    if !tools() {
        return;
    }
    let dir = nest_source(1079);
    assert_exact_at(dir.path(), "gcc", "-O3", &[(17, 18), (40, 19), (9, 30)]);
}

/// Seed 1333 at gcc -O3 (27% before): the innermost `l` loop (`j + 2` to `n - 2`) stores
/// `x[l]`, `y[l]` and reads `x[i]`, `y[i]`, so gcc runs its 2-wide copy only where the trip
/// count passes `cmp $0x1` on `N - 1` (at least 3 iterations) and the alias test says `i`
/// is outside `l`'s range; the scalar copy runs through every other entry. The vector
/// copy's passes and entries come from the threshold and alias terms together. One block,
/// the exit after an odd vector entry's last `k` pass (one per `(i, j)`), is left to the
/// closest combination: within 0.05%, not exact.
#[test]
fn a_vector_copy_behind_a_threshold_and_an_alias_test_is_counted() {
    if !tools() {
        return;
    }
    let dir = nest_source(1333);
    assert_within_at(dir.path(), "gcc", "-O3", &[(12, 6), (30, 9), (20, 14)], 0.1);
}

/// Seed 1181 at gcc -O3 (9.9% before): the `k` loop stores `y[k]` and reads `y[i]`, so gcc
/// vectorises it behind a run-time test of whether `i` lies in `k`'s range, and the 2-wide
/// copy's passes and remainder run only where the test says no. The basis now holds the
/// loop's passes and remainder classes where the alias test went each way. Exact against
/// callgrind at the seed's sizes and past the runs.
#[test]
fn a_loop_vectorised_behind_an_alias_test_counts_its_copies_where_the_test_goes() {
    if !tools() {
        return;
    }
    let dir = nest_source(1181);
    assert_exact_at(dir.path(), "gcc", "-O3", &[(6, 8), (12, 19), (30, 25)]);
}

/// Nest 3246 at gcc -O3 (18.8% before): the `l` loop (`l = 2; l < i + 1; l += 3`) stores
/// `y[l]` and reads `y[i]`, and gcc versions the `j` loop on whether `y[i]` lies between the
/// first and the last `y[l]` stored: the last counter reached, so the test goes with
/// `(i - 2) mod 3`, and with `i` stepping by 4 the scalar version runs where `i mod 12 == 5`.
/// The runs of a four-deep nest stop at n = 15 (one such `i`); the counts past them come
/// from the alias terms to the last counter reached, checked at three sizes past the draws
/// (with one, a piece past n > 23 fitted the one run there). Exact between and past the runs.
#[test]
fn an_alias_test_to_the_last_counter_a_strided_loop_reaches_is_counted() {
    if !tools() {
        return;
    }
    let dir = nest_source(3246);
    assert_exact_at(dir.path(), "gcc", "-O3", &[(16, 19), (21, 6), (28, 5)]);
}

/// Seed 1390 at clang -O3: `nest` is inlined into `main`, and clang's vector body of the
/// inner loop has no source line, so the model's count for it is a trip count nothing binds
/// (`trip_0x14f0`: no number came out before). No combination fits its runs; the closest
/// one (least squares) counts it, reported as an approximation. Within 1% of callgrind.
#[test]
fn a_block_no_combination_fits_counts_the_closest_one() {
    if !tools() {
        return;
    }
    let cs = validate_nest(1390, "clang", &["-g", "-gdwarf-4", "-O3"]);
    let c = kernel(&cs, "main");
    assert!(c.total_error_percent() < 1.0, "{c:?}");
}

/// examples/corpus/cgs.c at gcc -O3 (5.3% before): gcc peels the first `k` iteration (its
/// `j` loops are empty) and versions the `i` loops on `len` being even; the blocks of the
/// peeled iteration fit the terms of the nest cut to `k`'s first iteration. Within 0.01% of
/// callgrind at n = 30, len = 200.
#[test]
fn a_peeled_first_outer_iteration_is_refitted() {
    if !tools() {
        return;
    }
    let cs = validate(
        "gcc",
        &example("../corpus/cgs.c"),
        &["-g", "-gdwarf-4", "-O3", "-fno-inline"],
        true,
        &["30", "200"],
        &[("n", 30), ("len", 200)],
    );
    let c = kernel(&cs, "cgs");
    assert!(c.total_error_percent() < 0.01, "{c:?}");
}

/// Seed 110 at gcc -O3 (29.6% before): gcc tests whether `y[i]` lies in the range the `l`
/// loop writes with `setle r13b; setae cl; or ecx, r13d; test r13b, r13b`, and `rcx`'s
/// upper bits were never written. The runs took the test for one on data and left the
/// vectorised and scalar copies to the copy rules, which counted the vector one; the
/// machine now keeps an `or`'s known bits. Within 0.05% of callgrind, also past the runs:
/// one `nop` block left is entered from the `k` latch only after the arm's copy (a count of
/// the previous iteration's arm, which no term holds) and is approximated.
#[test]
fn an_alias_test_on_partly_written_registers_is_followed() {
    if !tools() {
        return;
    }
    let dir = nest_source(110);
    assert_within_at(dir.path(), "gcc", "-O3", &[(8, 7), (50, 45)], 0.05);
}

/// Seed 137 at clang -O3 (4.0% before): the `i` loop (6 down to 3) is unrolled away and
/// the `j` loop unswitched on `2i >= n - 2` in each copy, so each copy's unrolled `j` loop
/// runs from n = 15, 13, 11 or 9 (`cmp $12, edi; jle`). The basis had the arm's counts per
/// `i` but not the unswitched loop's passes per `i`, and no run lay between two
/// thresholds, so a fit took n > 14 for n > 12; the checks now run each size at both sides
/// of every constant the code compares with. Exact against callgrind at 13 and past.
#[test]
fn copies_unswitched_per_unrolled_iteration_count_at_their_own_threshold() {
    if !tools() {
        return;
    }
    let dir = nest_source(137);
    assert_exact_at(dir.path(), "clang", "-O3", &[(13, 4), (11, 6), (30, 25)]);
}

/// chain_products_pb at clang -O2 (0.60% before): `fill` inlined into `main`, one copy
/// vectorised two wide with a lane mask (`pcmpgtd` of the counter vector with the bound,
/// `movd`/`pextrw` of a lane, `test $1`) guarding each lane's store. The masks were unknown
/// to the machine, so the stores were branches on data at even odds although the whole of
/// `main` ran; the lanes' compares are now followed and `main` is exact.
#[test]
fn stores_under_a_lane_mask_follow_the_counter() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let sizes = "-DNI=14 -DNJ=16 -DNK=18 -DNL=15 -DNM=17";
    let src = with_sizes(dir.path(), "chain_products_pb.c", sizes);
    let cs = validate("clang", &src, &["-g", "-gdwarf-4", "-O2"], true, &[], &[]);
    let main = kernel(&cs, "main");
    assert_eq!(main.predicted.total, main.measured.total, "{main:?}");
}

/// Held-out generator misses kept as regression cases, asserted at the bound they reach now
/// (docs/static-accuracy-history.md, seeds 162-201; the goal is 0.5%): a short constant loop -O3
/// unrolls away around loops whose trips read its counter. Seed 162 at clang -O3: the `l`
/// loops under the copies for `j = 2, 3` fit no per-iteration term (8.56%); seed 167 at gcc
/// -O3: each copy's `k` loop split on `k + k > n - 1`, three blocks approximated (3.42%).
#[test]
fn held_out_misses_under_constant_loops_unrolled_away_stay_within_their_bounds() {
    if !tools() {
        return;
    }
    for (seed, cc, bound) in [(162, "clang", 8.6), (167, "gcc", 3.5)] {
        let c = nest_row(seed, cc, "-O3");
        let e = c.total_error_percent();
        assert!(e <= bound, "nest {seed} {cc} -O3: {e}% (bound {bound}%)");
    }
}

/// Nest 3215 at gcc -O3: seven blocks fit no combination of a basis the runs cannot tell
/// apart (505 terms, 18 runs), and the exhaustive search confirmed 31,275 combinations per
/// block before giving up, ten minutes for `nest`. The search now stops after a bounded
/// number of exact checks; those blocks take the count of `main` interpreted at the user's
/// sizes, as `metron static validate` has it: within the goal.
#[test]
fn a_fit_the_runs_cannot_decide_gives_up_in_bounded_work() {
    if !tools() {
        return;
    }
    let nest = metron_nestgen::Nest::random(3215, &metron_nestgen::Options::default());
    let dir = nest_source(3215);
    let flags = ["-g", "-gdwarf-4", "-O3", "-fno-inline"];
    let bin = build("gcc", &dir.path().join("nest.c"), &flags, dir.path(), true);
    let sizes = [("n", nest.values[0]), ("m", nest.values[1])];
    let options = metron_static::analysis::SourceOptions {
        sizes: metron_symbolic::binding(sizes.iter().copied()),
        ..Default::default()
    };
    let a = metron_static::analysis::analyse(&bin, &options).unwrap();
    let args: Vec<String> = nest.values.iter().map(|v| v.to_string()).collect();
    let profile = run_callgrind(&bin, &args, dir.path()).unwrap();
    let counts = profile.object(&bin).unwrap();
    let arch = metron_static::category::Architecture::x86_64();
    let rows = compare_program(&a.binary, &a.program, &arch, &options.sizes, counts).unwrap();
    let c = kernel(&rows, "nest");
    let e = c.total_error_percent();
    assert!(e <= 0.5, "nest 3215 gcc -O3: {e}%: {c:?}");
}

/// A directory holding generator seed `seed` as `nest.c`.
fn nest_source(seed: u64) -> tempfile::TempDir {
    let nest = metron_nestgen::Nest::random(seed, &metron_nestgen::Options::default());
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("nest.c"), nest.c_source()).unwrap();
    dir
}

/// Asserts that `nest` in `dir/nest.c`, built with `cc level -fno-inline`, is exact against
/// callgrind at each `(n, m)`.
fn assert_exact_at(dir: &std::path::Path, cc: &str, level: &str, sizes: &[(i64, i64)]) {
    assert_within_at(dir, cc, level, sizes, 0.0);
}

/// The `-fno-inline` build's `nest` total within `percent` of callgrind's at each size.
fn assert_within_at(
    dir: &std::path::Path,
    cc: &str,
    level: &str,
    sizes: &[(i64, i64)],
    percent: f64,
) {
    let src = dir.join("nest.c");
    for &(n, m) in sizes {
        let args = [n.to_string(), m.to_string()];
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let flags = ["-g", "-gdwarf-4", level, "-fno-inline"];
        let cs = validate(cc, &src, &flags, true, &args, &[("n", n), ("m", m)]);
        let c = kernel(&cs, "nest");
        assert!(
            c.total_error_percent() <= percent,
            "{cc} {level} n = {n}, m = {m}, goal {percent}%: {c:?}"
        );
    }
}
