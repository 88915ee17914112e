//! Counts that depend on data (issue 12, item 4), against callgrind's counts: libm error paths
//! (`sqrt` inlined behind a test of its argument, libm called for a negative or NaN one),
//! data-dependent `if`s named with file:line, and branch profiles recorded at one size over
//! every source file of a program and applied at another.
mod common;
use std::path::{Path, PathBuf};

use common::*;
use metron_static::analysis::{analyse, SourceOptions};
use metron_static::assumption::BranchKind;
use metron_static::binary::Binary;
use metron_static::category::Architecture;
use metron_static::program::ProgramModel;
use metron_static::validate::{compare_program, run_callgrind, Comparison};

fn tools() -> bool {
    have("valgrind", "valgrind") && have("clang", "clang") && have("gcc", "gcc")
}

fn row<'a>(cs: &'a [Comparison], name: &str) -> &'a Comparison {
    cs.iter()
        .find(|c| c.region == name || c.region.starts_with(&format!("{name} (clone ")))
        .unwrap_or_else(|| panic!("no row for {name}"))
}

/// The assumptions the model of `kernel` (its clones included) names.
fn assumptions(
    program: &ProgramModel,
    binary: &Binary,
    kernel: &str,
) -> Vec<metron_static::assumption::Assumption> {
    program
        .functions
        .iter()
        .filter(|(i, _)| binary.functions[*i].source_name() == kernel)
        .flat_map(|(_, m)| m.assumptions.clone())
        .collect()
}

/// An `if` on data with no `br_prob` and no profile counts its arms at even odds, and says so.
/// The data make it exact: `v[i] = 3 i + 1` is odd for every other `i`, so each arm runs for
/// half of the `n` elements (both arms were counted in full before, an upper bound).
#[test]
fn an_if_on_data_without_a_probability_counts_its_arms_at_even_odds() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("parity.c");
    std::fs::write(
        &src,
        "#include <stdio.h>\n#include <stdlib.h>\n\n\
         long split(int n, const int *v, long *odd, long *even)\n{\n\
         \x20   long s = 0;\n\
         \x20   for (int i = 0; i < n; i++) {\n\
         \x20       if (v[i] & 1) {\n\
         \x20           *odd += v[i];\n\
         \x20           s += 3;\n\
         \x20       } else {\n\
         \x20           *even -= v[i];\n\
         \x20       }\n\
         \x20   }\n\
         \x20   return s;\n}\n\n\
         int main(int argc, char **argv)\n{\n\
         \x20   int n = argc > 1 ? atoi(argv[1]) : 1000;\n\
         \x20   int *v = malloc(sizeof(int) * n);\n\
         \x20   for (int i = 0; i < n; i++)\n\
         \x20       v[i] = 3 * i + 1;\n\
         \x20   long odd = 0, even = 0;\n\
         \x20   long s = split(n, v, &odd, &even);\n\
         \x20   printf(\"%ld %ld %ld\\n\", s, odd, even);\n\
         \x20   free(v);\n\
         \x20   return 0;\n}\n",
    )
    .unwrap();
    for cc in ["gcc", "clang"] {
        let flags = ["-g", "-gdwarf-4", "-O0"];
        let (cs, program) = validate_with_model(cc, &src, &flags, true, &["2000"], &[("n", 2000)]);
        let c = kernel(&cs, "split");
        assert_eq!(c.predicted.total, c.measured.total, "{cc}: {c:?}");
        let said = (program.functions.iter())
            .flat_map(|(_, m)| &m.assumptions)
            .find(|a| a.kind == BranchKind::If)
            .expect("the `if` named");
        assert!(said.counted_as.contains("even odds"), "{said:?}");
    }
}

/// (file, kernel, program arguments, parameters, line of the `sqrt` call).
type SqrtCase<'a> = (&'a str, &'a str, &'a [&'a str], &'a [(&'a str, i64)], u32);

#[test]
fn sqrt_error_paths_count_as_not_taken_and_are_named() {
    // sobel: `sqrtf` of a sum of squares in a 2-D loop; gcc tests `0 > x` (`ja`), clang
    // `x < 0` (`jb`), each with the libm call out of line. Was 9-28% off at -O2/-O3.
    // correlation at clang -O2: `sqrt(n)` hoisted out of the loop, its test left inside.
    if !tools() {
        return;
    }
    let cases: [SqrtCase; 2] = [
        ("sobel.c", "sobel", &[], &[], 23),
        (
            "correlation.c",
            "correlation",
            &["50", "40"],
            &[("n", 50), ("m", 40)],
            34,
        ),
    ];
    for (file, kernel, args, params, line) in cases {
        for cc in ["gcc", "clang"] {
            for level in ["-O2", "-O3"] {
                if file == "correlation.c" && (cc == "gcc" || level == "-O3") {
                    // gcc: an unswitched loop shell; clang -O3: loop copies (not this gap).
                    continue;
                }
                let flags = ["-g", "-gdwarf-4", level, "-fno-inline"];
                let cs = validate(cc, &corpus(file), &flags, true, args, params);
                let c = row(&cs, kernel);
                assert_eq!(c.predicted.total, c.measured.total, "{cc} {level} {file}");
                let dir = tempfile::tempdir().unwrap();
                let bin = build(cc, &corpus(file), &flags, dir.path(), true);
                let binary = Binary::load(&bin).unwrap();
                let source = metron_static::source::parse_file(&corpus(file), &[]).unwrap();
                let program = ProgramModel::build(&binary, &source, false);
                let named = assumptions(&program, &binary, kernel);
                assert!(
                    named.iter().any(|a| a.kind == BranchKind::LibmErrorPath
                        && a.file == file
                        && a.line == line
                        && a.probability.is_none()),
                    "{cc} {level} {file}: {named:#?}"
                );
            }
        }
    }
}

#[test]
fn data_dependent_branches_of_the_corpus_are_named_with_file_and_line() {
    // The corpus's kernels whose counts depend on data: each names its branch, at -O0 and
    // -O2 (gcc; clang -O2 turns some into selects, which need no count).
    if !have("clang", "clang") || !have("gcc", "gcc") {
        return;
    }
    let cases: [(&str, &str, u32); 6] = [
        ("threshold.c", "threshold", 24),
        ("lcs.c", "lcs", 22),
        ("viterbi.c", "viterbi", 0),
        ("gamma_clamp.c", "gamma_clamp", 0),
        ("edit_distance.c", "edit_distance", 0),
        ("nussinov.c", "nussinov", 0),
    ];
    for (file, kernel, line) in cases {
        for level in ["-O0", "-O2"] {
            let dir = tempfile::tempdir().unwrap();
            let bin = build(
                "gcc",
                &corpus(file),
                &["-g", level, "-fno-inline"],
                dir.path(),
                true,
            );
            let binary = Binary::load(&bin).unwrap();
            let source = metron_static::source::parse_file(&corpus(file), &[]).unwrap();
            let program = ProgramModel::build(&binary, &source, false);
            let named = assumptions(&program, &binary, kernel);
            assert!(
                named.iter().any(|a| a.kind != BranchKind::LibmErrorPath
                    && a.file == file
                    && (line == 0 || a.line == line)
                    && a.remedy.contains("br_prob")
                    && a.remedy.contains("--branch-profile")),
                "gcc {level} {file}: {named:#?}"
            );
        }
    }
}

/// Records a profile of `bin` at `train`, applies it, and returns the rows at `test`.
fn profiled(bin: &Path, dir: &Path, train: i64, test: i64) -> (Vec<Comparison>, Vec<Comparison>) {
    use metron_static::branch_profile;
    let arch = Architecture::x86_64();
    let plain = analyse(bin, &SourceOptions::default()).unwrap();
    assert_eq!(plain.sources.len(), 3, "every translation unit modelled");
    let counts = run_callgrind(bin, &[train.to_string()], dir).unwrap();
    let profile = branch_profile::record_all(
        &plain.binary,
        &plain.sources,
        false,
        &metron_symbolic::binding([("n", train)]),
        counts.object(bin).unwrap(),
    )
    .unwrap();
    let path = dir.join("profile.json");
    branch_profile::save(&profile, &path).unwrap();
    let profiled = analyse(
        bin,
        &SourceOptions {
            branch_profile: Some(path),
            ..Default::default()
        },
    )
    .unwrap();
    let counts = run_callgrind(bin, &[test.to_string()], dir).unwrap();
    let binding = metron_symbolic::binding([("n", test)]);
    let object = counts.object(bin).unwrap();
    let before = compare_program(&plain.binary, &plain.program, &arch, &binding, object).unwrap();
    let after =
        compare_program(&profiled.binary, &profiled.program, &arch, &binding, object).unwrap();
    (before, after)
}

#[test]
fn a_branch_profile_covers_every_source_file() {
    // examples/static/data_dependent: main.c, clip.c (an if / else-if clamp) and magnitude.c
    // (`sqrt` of a power estimate that is negative for 4 samples in 20, so its error path is
    // taken). The probabilities are known from the data pattern: 3 of 20 samples below the
    // range, 2 of the other 17 above, 4 of 20 square roots of a negative number.
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let d = example("data_dependent");
    let bin = dir.path().join("pipeline");
    let status = metron_measure::tool::testing::command("gcc")
        .args(["-g", "-O2", "-fno-inline"])
        .args(["main.c", "clip.c", "magnitude.c"].map(|f| d.join(f)))
        .arg("-o")
        .arg(&bin)
        .arg("-lm")
        .status()
        .unwrap();
    assert!(status.success());
    let (before, after) = profiled(&bin, dir.path(), 1000, 3000);
    // Without the profile the arms of each `if` count at even odds (5.5% over, the latch gcc
    // copies into the else-if arm at even odds too; 82.9% when both counted in full) and the
    // error path does not (13.5% under). With it both are exact.
    assert!(row(&before, "magnitude").total_error_percent() > 5.0);
    assert!(row(&before, "clip").total_error_percent() > 3.0);
    for kernel in ["magnitude", "clip"] {
        assert_eq!(
            row(&after, kernel).predicted.total,
            row(&after, kernel).measured.total,
            "{kernel}"
        );
    }
    let profile: metron_static::branch_profile::BranchProfile =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("profile.json")).unwrap())
            .unwrap();
    let p = |file: &str, line: u32| {
        profile
            .branches
            .iter()
            .find(|b| b.file == file && b.line == line)
            .unwrap_or_else(|| panic!("{file}:{line} not in {profile:#?}"))
            .probability
    };
    assert!((p("clip.c", 8) - 0.15).abs() < 1e-3);
    assert!((p("clip.c", 11) - 2.0 / 17.0).abs() < 1e-3);
    assert!((p("magnitude.c", 10) - 0.2).abs() < 1e-9);
    assert_eq!(p("magnitude.c", 21), 0.0);
}

/// The error in percent of `file`'s kernel built with `cc flags`, its branch profile
/// recorded at the sizes `train` and the model evaluated at `test` (also the arguments).
fn profiled_error(
    cc: &str,
    flags: &[&str],
    file: &str,
    train: &[(&str, i64)],
    test: &[(&str, i64)],
) -> f64 {
    let kernel = file.trim_end_matches(".c");
    profiled_error_at(cc, &corpus(file), kernel, flags, train, test).0
}

#[test]
fn a_branch_profile_predicts_lcs_at_another_size() {
    // lcs at gcc -O2: the else arm's call of `max2` shares its store with the then arm (gcc
    // sinks it), so the arm is found under the jump at the `if`'s line. Without the profile
    // 67% off; trained at 150x100, predicted at 300x200.
    if !tools() {
        return;
    }
    let flags = ["-g", "-O2", "-fno-inline"];
    let e = profiled_error(
        "gcc",
        &flags,
        "lcs.c",
        &[("n", 150), ("m", 100)],
        &[("n", 300), ("m", 200)],
    );
    assert!(e < 0.5, "{e}%");
}

/// lcs at gcc -O3 without a profile: `max2` is inlined into the loop, so the else arm's code
/// carries max2's line 13, outside the loop, innermost; the arm is the call's line (25). Each
/// arm keeps its own copy of the loop latch: 3 instructions test, 6 more on a match, 8 on the
/// `max` (callgrind per block). Matches are 1 in 4 (`"ACGT"[(7i+3)%4]` against
/// `"ACGT"[(5j+1)%4]`), so the loop runs 10.5 per iteration against 10 at even odds, 4.8%
/// under. Before, neither block was known as an arm and both counted in full (14, 33% over).
#[test]
fn a_helper_inlined_into_an_arm_is_read_at_its_call_s_line() {
    if !tools() {
        return;
    }
    let cs = validate(
        "gcc",
        &corpus("lcs.c"),
        &["-g", "-O3"],
        true,
        &["300", "200"],
        &[("n", 300), ("m", 200)],
    );
    let e = row(&cs, "lcs").total_error_percent();
    assert!(e < 5.0, "{e}%");
}

/// gamma_clamp at gcc -O2: `v = v < 0.0f ? 0.0f : v` jumps out to a block that sets the
/// literal (at the `?:`'s position, with alignment padding falling into it) and falls through
/// to the next line's `minss`, which only the other side runs (the literal's block jumps past
/// it). Neither was known as an arm and both counted in full (15.3% over); at even odds 3.1%
/// under, and exact with a profile recorded at another size.
#[test]
fn a_literal_arm_and_the_code_only_the_other_side_runs_are_arms() {
    if !tools() {
        return;
    }
    let cs = validate(
        "gcc",
        &corpus("gamma_clamp.c"),
        &["-g", "-O2"],
        true,
        &["100", "120"],
        &[("h", 100), ("w", 120)],
    );
    let e = row(&cs, "gamma_clamp").total_error_percent();
    assert!(e < 5.0, "{e}%");
    let e = profiled_error(
        "gcc",
        &["-g", "-O2"],
        "gamma_clamp.c",
        &[("h", 50), ("w", 60)],
        &[("h", 100), ("w", 120)],
    );
    assert!(e < 0.5, "{e}%");
}

/// viterbi at gcc -O2: the `s` loop's unswitched shell was 6.4% off with the profile, its
/// runs stopping at the first branch on data. They now go both ways past it, and check every
/// block that does not follow the data.
#[test]
fn runs_past_branches_on_data_check_the_rest_of_a_profiled_kernel() {
    if !tools() {
        return;
    }
    let flags = ["-g", "-O2", "-fno-inline"];
    let e = profiled_error(
        "gcc",
        &flags,
        "viterbi.c",
        &[("steps", 100), ("states", 6)],
        &[("steps", 200), ("states", 12)],
    );
    assert!(e < 0.5, "{e}%");
}

/// gamma_clamp at gcc -O2: the `?:` clamps become a branch whose one side also holds the next
/// statement, so no block is an arm the profile's probability could weigh (15% off with the
/// profile before). The runs tell the blocks that follow the data, and the profile records
/// each one's share of its envelope, trained at half the size.
#[test]
fn a_profile_weighs_the_blocks_that_follow_the_data_by_their_share() {
    if !tools() {
        return;
    }
    let flags = ["-g", "-O2", "-fno-inline"];
    let e = profiled_error(
        "gcc",
        &flags,
        "gamma_clamp.c",
        &[("h", 50), ("w", 60)],
        &[("h", 100), ("w", 120)],
    );
    assert!(e < 0.5, "{e}%");
}

/// edit_distance at clang -O2: `MIN(MIN(a, b), c)` expands the inner `?:` into the outer's
/// condition and its then arm, so the block that picks `prev[j] + 1` runs on a combination of
/// the branches that neither every branch taken nor none gives: the runs' envelope of it is
/// `n - 1` while it ran on 16% of the `n m` cells. Its share is of the model's count instead
/// (1.2% off with the profile before, trained at 150x125, predicted at 300x250).
#[test]
fn a_block_run_past_its_envelope_takes_its_share_of_the_model_s_count() {
    if !tools() {
        return;
    }
    let e = profiled_error(
        "clang",
        &["-g", "-gdwarf-4", "-O2", "-fno-inline"],
        "edit_distance.c",
        &[("n", 150), ("m", 125)],
        &[("n", 300), ("m", 250)],
    );
    assert!(e < 0.5, "{e}%");
}

/// edit_distance's `MIN(MIN(a, b), c)` expands to three `?:`s at one position: the inner one
/// in the outer's condition, the outer, the inner one again in the outer's then arm. Each
/// jump decides the first `?:` of those not yet decided above it (clang -O0: the inner one's
/// arms join at the outer's compare, which decides the outer), the outer's `sub` arm has no
/// code at clang -O2 (its jump goes straight to the store), and the inner arms' join lies in
/// the outer's then arm. Before, no block at the macro was an arm and each counted in full:
/// 15.7% over at -O0, 28.4% at -O2 (inlined into `main`). At even odds now 7.1% and 5.2%
/// over: the data takes the outer's then arm 28% of the time, the inner's 57%.
#[test]
fn the_three_conditionals_of_a_nested_macro_each_find_their_arms() {
    if !tools() {
        return;
    }
    for (flags, kernel, bound) in [
        (["-g", "-O0"], "edit_distance", 9.0),
        (["-g", "-O2"], "main", 6.0),
    ] {
        let cs = validate(
            "clang",
            &corpus("edit_distance.c"),
            &flags,
            true,
            &["300", "250"],
            &[("n", 300), ("m", 250)],
        );
        let e = row(&cs, kernel).total_error_percent();
        assert!(e < bound, "{flags:?}: {e}%");
    }
}

/// A profile names each of the three `?:`s on edit_distance's `MIN(MIN(...), sub)` line by
/// its place among them (`nth`); before, the line's first probability went to all three. An
/// entry without `nth` (a profile of one `?:` per line) still goes to every `?:` there.
#[test]
fn a_profile_tells_apart_the_conditionals_of_one_line() {
    if !tools() {
        return;
    }
    use metron_static::branch_profile::{apply, BranchProbability, BranchProfile, FORMAT};
    let entry = |nth: Option<u32>, probability: f64| BranchProbability {
        file: "edit_distance.c".into(),
        line: 24,
        kind: "?:".into(),
        function: "edit_distance".into(),
        probability,
        nth,
    };
    let profile = |branches: Vec<BranchProbability>| BranchProfile {
        format: FORMAT.into(),
        sources: vec!["edit_distance.c".into()],
        source: None,
        branches,
        loops: Vec::new(),
        shares: Vec::new(),
    };
    let parsed = metron_static::source::parse_file(&corpus("edit_distance.c"), &[]).unwrap();
    let at_line = |s: &metron_static::source::SourceModel| -> Vec<Option<f64>> {
        (s.conditionals.iter().filter(|c| c.line == 24))
            .map(|c| c.probability)
            .collect()
    };
    let mut source = parsed.clone();
    apply(
        &mut source,
        &profile(vec![entry(Some(2), 0.6), entry(Some(0), 0.2)]),
    );
    assert_eq!(at_line(&source), [Some(0.2), None, Some(0.6)]);
    let mut source = parsed;
    apply(&mut source, &profile(vec![entry(None, 0.3)]));
    assert_eq!(at_line(&source), [Some(0.3); 3]);
}

/// floyd_warshall at clang -O0 (sizes by `-DN`): a profile recorded from the build at
/// `N = 30` predicts the build at `N = 60`. The two builds' machine code differs (the
/// constant), so no block share of the profile names the second's blocks; its `?:`
/// probability per file:line weighs the model's arms instead of the runs' envelope taking
/// over (29.5% off with the profile before, as without one).
#[test]
fn a_profile_of_another_build_of_a_kernel_weighs_its_arms_by_line() {
    if !tools() {
        return;
    }
    let src = corpus("floyd_warshall.c");
    let dir = tempfile::tempdir().unwrap();
    let built = |n: i64| {
        let define = format!("-DN={n}");
        let flags = ["-g", "-gdwarf-4", "-O0", define.as_str()];
        let bin = build("clang", &src, &flags, dir.path(), true);
        let source =
            metron_static::source::parse_file(&src, std::slice::from_ref(&define)).unwrap();
        (Binary::load(&bin).unwrap(), source, bin)
    };
    let (small, small_source, small_bin) = built(30);
    let counts = run_callgrind(&small_bin, &[], dir.path()).unwrap();
    let profile = metron_static::branch_profile::record(
        &small,
        &small_source,
        false,
        &metron_symbolic::Binding::new(),
        counts.object(&small_bin).unwrap(),
    )
    .unwrap();
    let (large, mut source, large_bin) = built(60);
    metron_static::branch_profile::apply(&mut source, &profile);
    let program = ProgramModel::build(&large, &source, false);
    let counts = run_callgrind(&large_bin, &[], dir.path()).unwrap();
    let cs = compare_program(
        &large,
        &program,
        &Architecture::x86_64(),
        &metron_symbolic::Binding::new(),
        counts.object(&large_bin).unwrap(),
    )
    .unwrap();
    let e = row(&cs, "floyd_warshall").total_error_percent();
    assert!(e < 0.5, "{e}%");
}

/// knapsack: the capacity loop runs down to `weight[i]`, a bound read from data, and holds a
/// branch on data. The profile records the bound's mean and the branch's probability; the
/// blocks counted with the mean keep the model's count. Before, at gcc -O2 the runs' envelope
/// of those blocks (one pass per entry: every exit taken at once) times their share at the
/// training size took over, and the loop did not grow with `cap` (50% off). clang -O2
/// unrolls the loop twice: its passes count `floor(data_19 / 2)`, which one step of the
/// bound does not move (no mean was recorded: unevaluated), and each unrolled iteration has
/// its own copy of the `if` arm, counted as often as the branch is taken (2.2% before).
/// clang -O3 duplicates the tail of the unrolled body into both arms (below), in a kernel
/// whose runs with made-up weights do not finish: the shares of the blocks counted with the
/// mean are recorded and applied without them (36.8% over before).
#[test]
fn a_loop_bounded_by_data_counts_its_bound_s_recorded_mean_at_another_size() {
    if !tools() {
        return;
    }
    for (cc, level) in [("gcc", "-O2"), ("clang", "-O2"), ("clang", "-O3")] {
        let e = profiled_error(
            cc,
            &["-g", "-gdwarf-4", level, "-fno-inline"],
            "knapsack.c",
            &[("items", 30), ("cap", 250)],
            &[("items", 60), ("cap", 500)],
        );
        assert!(e < 0.5, "{cc} {level}: {e}%");
    }
}

/// knapsack at clang -O2 and -O3, inlined into `main` and unrolled twice: the mean is counted
/// wherever the loop was inlined, `main`'s runs, whose data the kernel reads, leave those
/// blocks to it (they were refitted to `main`'s own data before), and the `if` arms are
/// found by the lines of their own statements, not also the line of the call they were
/// inlined at. Unevaluated before. The recorded mean is the weights' (`i % 7 + 1` over 30
/// items: 115/30), within what the average over the floors' period gives. At -O3 clang
/// duplicates the second copy's body into both arms of the first copy's `if`: those blocks
/// run on some passes only, so the mean is solved from the blocks on every pass (it was 78,
/// from the duplicated blocks counted once per pass), and each runs its recorded share of
/// the model's count (17.9% over before: every duplicate counted on every pass).
#[test]
fn a_loop_bounded_by_data_unrolled_and_inlined_counts_its_recorded_mean() {
    if !tools() {
        return;
    }
    for level in ["-O2", "-O3"] {
        let flags = ["-g", "-gdwarf-4", level];
        let (e, profile) = profiled_error_at(
            "clang",
            &corpus("knapsack.c"),
            "main",
            &flags,
            &[("items", 30), ("cap", 250)],
            &[("items", 60), ("cap", 500)],
        );
        let mean = profile
            .loops
            .iter()
            .find(|l| l.line == 19)
            .expect("a mean")
            .mean;
        assert!((mean - 115.0 / 30.0).abs() < 0.1, "{level}: {mean}");
        assert!(e < 0.5, "{level}: {e}%");
    }
}

/// median3.c's `widest_route` at clang -O0: `MAX(MIN(a, b), MIN(c, d))` expands to five `?:`s
/// at one position: the two `MIN`s of the condition, the `MAX`, and a `MIN` again in each of
/// its arms. Each jump decides the `?:` after the one its nearest deciding dominator decided
/// (source order), so the `MAX`'s compare is no longer taken for a second decision of the
/// first `MIN` and the arms' `MIN`s find theirs. Four independent uniform values put every
/// branch at even odds, the model's own assumption: 1.7% off, 11.9% before (three `?:`s'
/// arms counted in full).
#[test]
fn the_conditionals_of_a_macro_are_decided_in_source_order() {
    if !tools() {
        return;
    }
    let cs = validate(
        "clang",
        &corpus("median3.c"),
        &["-g", "-O0", "-fno-inline"],
        true,
        &["4000"],
        &[("n", 4000)],
    );
    let e = row(&cs, "widest_route").total_error_percent();
    assert!(e < 4.0, "{e}%");
}

/// A `?:` inside an arm of another (`MAX(MIN(a, b), MIN(MAX(a, b), c))`, median3.c at clang
/// -O0) runs on a mix of ways, the outer branch one way and the inner one the other, which
/// neither the run that takes every branch on data nor the run that takes none visits: both
/// count its arm 0. And where the runs' own values decide a branch most of the time
/// (edit_distance's inner `MIN` compares counts the runs computed, except where a cell came
/// from the unknown strings), its arms run alike both ways. Both are arms of a branch on data
/// all the same: they keep the model's count, weighed by the profile's share, instead of
/// being refitted to what the runs' made-up data did. Profiles trained at half the size;
/// before, 5.0%, 4.0% and 0.78% off.
#[test]
fn the_arms_of_every_branch_on_data_take_their_share_of_the_model_s_count() {
    if !tools() {
        return;
    }
    let flags = ["-g", "-gdwarf-4", "-O0", "-fno-inline"];
    type Sizes<'a> = &'a [(&'a str, i64)];
    let cases: [(&str, &str, Sizes, Sizes); 3] = [
        ("median3.c", "median3", &[("n", 2000)], &[("n", 4000)]),
        ("median3.c", "widest_route", &[("n", 2000)], &[("n", 4000)]),
        (
            "edit_distance.c",
            "edit_distance",
            &[("n", 150), ("m", 125)],
            &[("n", 300), ("m", 250)],
        ),
    ];
    for (file, kernel, train, test) in cases {
        let (e, _) = profiled_error_at("clang", &corpus(file), kernel, &flags, train, test);
        assert!(e < 0.5, "{kernel}: {e}%");
    }
}

/// Cases `scripts/static-macro-arms` found, kept as regressions, and corpus kernels in the same
/// style. A value a branch on data chose is data: `CLAMP(a[i], 400, 500)` at clang -O0 sets
/// 400 on one way and `a[i]` on the other, and the `MIN`'s compare of it with 500 is a branch
/// on data too, not one the runs decide (arms_4.c 4.5% before, arms_68.c 17.5%). And every
/// block between a branch on data and its join follows the data, also one that the run taking
/// every branch and the run taking none both reach (arms_63.c at gcc -O2: 9.4% before).
/// Profiles recorded at n = 2000, checked at n = 4000.
#[test]
fn values_a_branch_on_data_chose_and_the_blocks_before_its_join_follow_the_data() {
    if !tools() {
        return;
    }
    let regression = |name: &str| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join(format!("../../examples/static/macro_arms/{name}"))
    };
    let cases = [
        ("clang", regression("arms_4.c"), "kernel", "-O0"),
        ("clang", regression("arms_68.c"), "kernel", "-O0"),
        ("gcc", regression("arms_63.c"), "kernel", "-O2"),
        ("clang", corpus("saturate.c"), "saturate", "-O0"),
        ("clang", corpus("saturate.c"), "soft_threshold", "-O0"),
        ("gcc", corpus("saturate.c"), "saturate", "-O0"),
    ];
    for (cc, file, kernel, level) in cases {
        let flags = ["-g", "-gdwarf-4", level, "-fno-inline"];
        let (e, _) = profiled_error_at(cc, &file, kernel, &flags, &[("n", 2000)], &[("n", 4000)]);
        assert!(e < 0.5, "{file:?} {kernel} {cc} {level}: {e}%");
    }
}

/// An arm that carries the rest of the loop, without a profile: gcc -O2 copies the code after
/// `CLAMP`'s `?:` (the store, the counter, the latch) into each arm, so `saturate`'s loop has
/// two latches and no block holding only an arm. Each latch was counted every iteration, the
/// loop twice over (50.0% over, `soft_threshold` 74%). The runs show each latch one side of
/// the branch on data, and it now counts at even odds as the arms the rules find do: both
/// arms are six instructions, so `saturate` is exact whatever the data.
#[test]
fn latches_copied_into_the_arms_of_a_branch_on_data_count_at_even_odds() {
    if !tools() {
        return;
    }
    for level in ["-O2", "-O3"] {
        let flags = ["-g", "-gdwarf-4", level, "-fno-inline"];
        let cs = validate(
            "gcc",
            &corpus("saturate.c"),
            &flags,
            true,
            &["4000"],
            &[("n", 4000)],
        );
        let row = kernel(&cs, "saturate");
        assert_eq!(row.predicted.total, row.measured.total, "{level}: {row:?}");
        let e = kernel(&cs, "soft_threshold").total_error_percent();
        assert!(e < 10.0, "soft_threshold gcc {level}: {e}% (74% before)");
    }
}
