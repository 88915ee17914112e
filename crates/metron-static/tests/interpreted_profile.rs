//! Counts that follow data, with no profile given, take the odds of `main` interpreted at the
//! user's sizes (`interpreted_profile`). Checked against callgrind's count of the same run of
//! the program, and against the even odds (or the missing number) they replace.

mod common;

use common::*;
use metron_static::analysis::{analyse, Analysis, SourceOptions};
use metron_static::category::Architecture;
use metron_static::validate::{compare_program, run_callgrind};

fn tools() -> bool {
    have("valgrind", "valgrind") && have("clang", "clang") && have("gcc", "gcc")
}

fn analysed(bin: &std::path::Path, sizes: &[(&str, i64)], interpret: bool) -> Analysis {
    analyse(
        bin,
        &SourceOptions {
            sizes: metron_symbolic::binding(sizes.iter().copied()),
            no_interpreted_profile: !interpret,
            ..Default::default()
        },
    )
    .unwrap()
}

/// The kernel's error against callgrind (percent), with and without the interpreted run;
/// `None` where the model has no number.
fn errors(
    cc: &str,
    flags: &[&str],
    file: &str,
    name: &str,
    sizes: &[(&str, i64)],
) -> (Option<f64>, Option<f64>) {
    let dir = tempfile::tempdir().unwrap();
    let bin = build(cc, &corpus(file), flags, dir.path(), true);
    let args: Vec<String> = sizes.iter().map(|(_, v)| v.to_string()).collect();
    let profile = run_callgrind(&bin, &args, dir.path()).unwrap();
    let counts = profile.object(&bin).unwrap();
    let binding = metron_symbolic::binding(sizes.iter().copied());
    let arch = Architecture::x86_64();
    let error = |interpret: bool| {
        let a = analysed(&bin, sizes, interpret);
        assert_eq!(
            a.interpreted_profile.is_some(),
            interpret,
            "{cc} {flags:?} {file}"
        );
        let rows = compare_program(&a.binary, &a.program, &arch, &binding, counts).ok()?;
        let row = kernel(&rows, name);
        row.unevaluated.is_none().then(|| row.total_error_percent())
    };
    (error(true), error(false))
}

#[test]
fn branches_on_integer_data_take_the_odds_of_the_interpreted_run() {
    // lcs: `x[i - 1] == y[j - 1]` on bases main draws from "ACGT" by the index (a quarter of
    // the pairs match, not half), and `max2`'s `?:` on the table. callgrind counts the run.
    if !tools() {
        return;
    }
    for (cc, flags) in [
        ("gcc", &["-g", "-O2", "-fno-inline"][..]),
        ("clang", &["-g", "-gdwarf-4", "-O0"][..]),
    ] {
        let (with, without) = errors(cc, flags, "lcs.c", "lcs", &[("n", 60), ("m", 40)]);
        assert_eq!(with, Some(0.0), "{cc} {flags:?}");
        assert!(without.unwrap().abs() > 1.0, "{cc} {flags:?}: {without:?}");
    }
}

#[test]
fn a_loop_bounded_by_data_gets_its_mean_from_the_interpreted_run() {
    // knapsack: `for (w = cap; w >= weight[i]; w--)`, the weights written by main, the table
    // cleared by `memset` (which the run must follow for the `if (with > best[w])`).
    if !tools() {
        return;
    }
    let sizes = [("items", 30), ("cap", 200)];
    let (with, without) = errors(
        "gcc",
        &["-g", "-O2", "-fno-inline"],
        "knapsack.c",
        "knapsack",
        &sizes,
    );
    assert_eq!(with, Some(0.0));
    assert_eq!(without, None, "the bound's mean is not known without a run");
}

#[test]
fn branches_on_float_data_take_the_odds_of_the_interpreted_run() {
    // threshold: `in[i] > 1.1f * mean` on pixels main computes as floats, the mean a float
    // reduction (`addss`, `divss`, `comiss`); inlined into main at -O2 and on its own.
    if !tools() {
        return;
    }
    for flags in [&["-g", "-O2"][..], &["-g", "-O2", "-fno-inline"][..]] {
        let sizes = [("h", 20), ("w", 30)];
        let (with, without) = errors("gcc", flags, "threshold.c", "threshold", &sizes);
        assert_eq!(with, Some(0.0), "{flags:?}");
        // Even odds miss by 0.6% (inlined) at these sizes.
        assert!(without.unwrap().abs() > 0.3, "{flags:?}: {without:?}");
    }
}

#[test]
fn a_kernel_inlined_into_main_branches_on_the_data_main_computed() {
    // edit_distance at clang -O2 is inlined into main, which fills `s` and `t` itself: the
    // calibration's runs of main must take what main stores into its arrays as data (its
    // branches' counts fit no combination of the sizes), and the interpreted run give the
    // odds. knapsack at gcc -O3: main's fill of the weights is vectorised (`pmuludq`, lane
    // shifts and unpacks), which the run must follow to know the loop bound.
    if !tools() {
        return;
    }
    let sizes = [("n", 60), ("m", 40)];
    let (with, without) = errors(
        "clang",
        &["-g", "-gdwarf-4", "-O2"],
        "edit_distance.c",
        "main",
        &sizes,
    );
    assert_eq!(with, Some(0.0));
    assert!(without.unwrap().abs() > 1.0, "{without:?}");
    let sizes = [("items", 30), ("cap", 200)];
    let (with, _) = errors(
        "gcc",
        &["-g", "-O3", "-fno-inline"],
        "knapsack.c",
        "knapsack",
        &sizes,
    );
    assert!(with.is_some_and(|e| e.abs() < 0.01), "{with:?}");
}

/// Blocks no combination of the sizes fits (generator seed 3011 at gcc -O3, kept from the
/// run of seeds 3001-: four blocks of the `j <= m - 2` arms around a loop vectorised by two,
/// each counted by its closest fit) take what the interpreted run ran at the sizes asked: a
/// piece guarded by that one binding. 2.6% off at 5 x 5 and 0.74% at 12 x 7 by the closest
/// fits alone; exact at each with the run at its own sizes. A profile recorded at 5 x 5
/// leaves 12 x 7 to the closest fits (a ratio carried over was worse than the fit: 1.1%).
/// Nest 3011 built with gcc -O3 `-fno-inline` in `dir`: blocks no combination of the sizes
/// fits, which the interpreted run or a profile counts at the sizes asked.
fn nest_3011(dir: &std::path::Path) -> std::path::PathBuf {
    let nest = metron_nestgen::Nest::random(3011, &metron_nestgen::Options::default());
    let src = dir.join("nest_3011.c");
    std::fs::write(&src, nest.c_source()).unwrap();
    build("gcc", &src, &["-g", "-O3", "-fno-inline"], dir, true)
}

#[test]
fn blocks_no_formula_fits_take_the_interpreted_count_at_the_sizes_asked() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = nest_3011(dir.path());
    let arch = Architecture::x86_64();
    for (n, m) in [(5, 5), (12, 7)] {
        let sizes = [("n", n), ("m", m)];
        let args = [n.to_string(), m.to_string()];
        let profile = run_callgrind(&bin, &args, dir.path()).unwrap();
        let counts = profile.object(&bin).unwrap();
        let binding = metron_symbolic::binding(sizes);
        let error = |interpret: bool| {
            let a = analysed(&bin, &sizes, interpret);
            let rows = compare_program(&a.binary, &a.program, &arch, &binding, counts).unwrap();
            kernel(&rows, "nest").total_error_percent()
        };
        assert_eq!(error(true), 0.0, "with the run at n = {n}, m = {m}");
        assert!(
            error(false) > 0.5,
            "the closest fits alone at n = {n}, m = {m}"
        );
    }
}

#[test]
fn data_the_interpreter_cannot_follow_gives_no_profile() {
    // Data from `rand()`, which the machine does not model: the run stops at the first
    // branch on it, and the branch stays at even odds, flagged, as without the interpreter.
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("random_count.c");
    std::fs::write(
        &src,
        "#include <stdlib.h>\n#include <stdio.h>\n\
         int count(int n, const int *a) {\n  int c = 0;\n  for (int i = 0; i < n; i++)\n\
         \x20   if (a[i] > RAND_MAX / 4)\n      c++;\n  return c;\n}\n\
         int main(int argc, char **argv) {\n  int n = atoi(argv[1]);\n\
         \x20 int *a = malloc(sizeof(int) * n);\n  for (int i = 0; i < n; i++)\n\
         \x20   a[i] = rand();\n  printf(\"%d\\n\", count(n, a));\n  return 0;\n}\n",
    )
    .unwrap();
    let bin = build("gcc", &src, &["-g", "-O2", "-fno-inline"], dir.path(), true);
    let a = analysed(&bin, &[("n", 50)], true);
    assert_eq!(a.interpreted_profile, None);
}

#[test]
fn sizes_past_the_budget_are_halved_and_sizes_not_given_mean_no_run() {
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = build("gcc", &corpus("lcs.c"), &["-g", "-O2"], dir.path(), true);
    // 4000 x 4000 cells at about ten instructions each is past the run's budget.
    let a = analysed(&bin, &[("n", 4000), ("m", 4000)], true);
    let p = a.interpreted_profile.expect("a run at smaller sizes");
    let (n, m) = (p.sizes["n"], p.sizes["m"]);
    assert!(
        n < 4000 && m < 4000 && n * m * 10 <= 40_000_000,
        "{:?}",
        p.sizes
    );
    // Without `m`, main's second argument is unknown: no run.
    let a = analysed(&bin, &[("n", 40)], true);
    assert_eq!(a.interpreted_profile, None);
}

#[test]
fn a_profile_measured_at_names_the_counts_do_not_know_is_passed_over() {
    // The profile recorded from callgrind at 5 x 5 gives nest 3011's unfitted blocks their
    // counts there; the same profile with its bindings renamed (edited by hand, or of other
    // source) is passed over: the function stays evaluated, with the closest fits alone.
    if !tools() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let bin = nest_3011(dir.path());
    let sizes = [("n", 5), ("m", 5)];
    let profile = run_callgrind(&bin, &["5".into(), "5".into()], dir.path()).unwrap();
    let counts = profile.object(&bin).unwrap();
    let binding = metron_symbolic::binding(sizes);
    let a = analysed(&bin, &sizes, false);
    let recorded =
        metron_static::branch_profile::record_all(&a.binary, &a.sources, false, &binding, counts)
            .unwrap();
    assert!(recorded.shares.iter().any(|s| s.at.is_some()));
    let mut renamed = recorded.clone();
    for s in &mut renamed.shares {
        if let Some(at) = &mut s.at {
            *at = at.values().map(|v| ("bogus".to_string(), *v)).collect();
        }
    }
    let arch = Architecture::x86_64();
    let error = |p: &metron_static::branch_profile::BranchProfile, file: &str| {
        let path = dir.path().join(file);
        metron_static::branch_profile::save(p, &path).unwrap();
        let options = SourceOptions {
            sizes: binding.clone(),
            branch_profile: Some(path),
            ..Default::default()
        };
        let a = analyse(&bin, &options).unwrap();
        let rows = compare_program(&a.binary, &a.program, &arch, &binding, counts).unwrap();
        let row = kernel(&rows, "nest");
        assert!(row.unevaluated.is_none(), "{file}: {:?}", row.unevaluated);
        row.total_error_percent()
    };
    assert_eq!(error(&recorded, "recorded.json"), 0.0);
    assert!(error(&renamed, "renamed.json") > 0.5);
}
