//! The six result-changing bugs of issue 14, each a program in `tests/regressions/` run
//! before and after its pass in Octave (one process for all), plus what the fix must keep
//! doing (the pass still applies where it is safe).

use std::path::{Path, PathBuf};

use metron_matlab::differential::{run_batch, Case, Verdict};
use metron_matlab::dimensionality::Dim;
use metron_matlab::passes::{run_passes, Options, PassOutput};

fn file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/regressions")
        .join(format!("{name}.m"))
}

fn transform(name: &str, passes: &[&str], options: &Options) -> (String, Vec<PassOutput>) {
    let path = file(name);
    let src = std::fs::read_to_string(&path).unwrap();
    let passes: Vec<String> = passes.iter().map(|s| s.to_string()).collect();
    let out = run_passes(&src, &path, &passes, options).unwrap();
    (src, out)
}

fn case(name: &str, passes: &[&str], options: &Options, args: &str, outputs: usize) -> Case {
    let (original, out) = transform(name, passes, options);
    Case {
        name: name.to_string(),
        original,
        transformed: out.last().unwrap().source.clone(),
        args: args.to_string(),
        outputs,
    }
}

fn text(name: &str, passes: &[&str], options: &Options) -> String {
    transform(name, passes, options)
        .1
        .last()
        .unwrap()
        .source
        .clone()
}

fn row() -> Options {
    Options {
        assume: Some(Dim::Row),
        ..Options::default()
    }
}

fn forced() -> Options {
    Options {
        force: true,
        ..Options::default()
    }
}

#[test]
fn the_fixed_rules_still_transform() {
    let t = text("bug1_range_parens", &["range"], &Options::default());
    assert!(t.contains("y = (2:2:(2*n)) + n;"), "{t}");
    assert!(t.contains("A((2:2:6)+k)"), "{t}");
    assert!(
        t.contains("A(3:2:(2*n-1))"),
        "Mc2Mc call style is read: {t}"
    );
    let t = text(
        "bug2_stale_loop_variable",
        &["vectorize"],
        &Options::default(),
    );
    assert!(t.contains("y(1:n) = f(1, 1:n) .* 2;"), "{t}");
    let t = text("bug3_other_subscripts", &["vectorize"], &row());
    assert!(t.contains("r(1:n) = f(1:n, m).' - f(1:n, 1).';"), "{t}");
    let t = text(
        "bug4_builtin_accumulator",
        &["vectorize"],
        &Options::default(),
    );
    assert!(t.contains("sum = sum + builtin('sum', x(1:n));"), "{t}");
    assert!(
        t.contains("max = max + builtin('sum', x(1:n) .* 2);"),
        "{t}"
    );
    let t = text("bug5_integer_reorder", &["reorder"], &Options::default());
    assert!(t.contains("r = -double(A) + B + C(1:N);"), "ints stay: {t}");
    let t = text("bug6_short_circuit", &["repack"], &forced());
    assert!(
        t.contains("tmp_a"),
        "the left operand is still repacked? {t}"
    );
    assert!(!t.contains("= A(n+1:n+1);"), "{t}");
}

#[test]
fn the_six_bugs_keep_results_in_octave() {
    let Some(_) = metron_measure::tool::testing::require(&metron_measure::tool::OCTAVE) else {
        return;
    };
    let cases = vec![
        case(
            "bug1_range_parens",
            &["range"],
            &Options::default(),
            "4, 2",
            3,
        ),
        case(
            "bug2_stale_loop_variable",
            &["vectorize"],
            &Options::default(),
            "5",
            2,
        ),
        case("bug3_other_subscripts", &["vectorize"], &row(), "6, 3", 2),
        case(
            "bug4_builtin_accumulator",
            &["vectorize"],
            &Options::default(),
            "7",
            2,
        ),
        case(
            "bug5_integer_reorder",
            &["reorder"],
            &Options::default(),
            "5",
            2,
        ),
        case(
            "bug6_short_circuit",
            &["repack"],
            &forced(),
            "[1 2 3], 3",
            3,
        ),
        case(
            "bug6_short_circuit",
            &["repack"],
            &forced(),
            "[1 2 3], 2",
            3,
        ),
    ];
    let verdicts = run_batch(&cases, 1e-9, 1e-12).unwrap();
    for (c, v) in cases.iter().zip(&verdicts) {
        assert_eq!(*v, Verdict::Equal, "{}:\n{}", c.name, c.transformed);
    }
}

#[test]
fn the_oracle_sees_each_old_wrong_rewrite() {
    let Some(_) = metron_measure::tool::testing::require(&metron_measure::tool::OCTAVE) else {
        return;
    };
    // The rewrites the passes used to make, verbatim from the issue: the harness must call
    // every one of them different (or an error), or the tests above prove nothing.
    let wrong = |name: &str, from: &str, to: &str, args: &str, outputs| {
        let original = std::fs::read_to_string(file(name)).unwrap();
        assert!(original.contains(from), "{name}: {from}");
        Case {
            name: name.into(),
            transformed: original.replacen(from, to, 1),
            original,
            args: args.into(),
            outputs,
        }
    };
    let cases = vec![
        wrong(
            "bug1_range_parens",
            "2*(1:n) + n",
            "2:2:(2*n) + n",
            "4, 2",
            3,
        ),
        wrong(
            "bug2_stale_loop_variable",
            "for j = 1:n\n    t(j) = hidden_weights(2, j) + sum(hidden_weights(3, j));\n  end",
            "t(1:n) = hidden_weights(2, j) + sum(hidden_weights(3, j));",
            "5",
            2,
        ),
        wrong(
            "bug3_other_subscripts",
            "for ii = 1:n\n    q = q + f(ii, m);\n  end",
            "q = q + sum(f(1:n).');",
            "6, 3",
            2,
        ),
        wrong(
            "bug4_builtin_accumulator",
            "for i = 1:n\n    sum = sum + x(i);\n  end",
            "sum = sum + sum(x(1:n));",
            "7",
            2,
        ),
        wrong(
            "bug5_integer_reorder",
            "-double(A) + B + C(1:N)",
            "-double(A) + C(1:N) + B",
            "5",
            2,
        ),
        wrong(
            "bug6_short_circuit",
            "  w = n < numel(A)",
            "  tmp = A(n+1:n+1);\n  w = n < numel(A)",
            "[1 2 3], 3",
            3,
        ),
    ];
    let verdicts = run_batch(&cases, 1e-9, 1e-12).unwrap();
    for (c, v) in cases.iter().zip(&verdicts) {
        assert!(!v.agrees(), "{}: {v:?}", c.name);
    }
}
