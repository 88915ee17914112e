//! The source side: clang's AST loops and the annotations, against the paper's listings.
mod common;
use common::*;

use std::path::Path;

use metron_static::source::{parse_annotations, parse_file};
use metron_symbolic::{binding, trip_count, CountOptions, LoopNest};

fn write(dir: &Path, name: &str, text: &str) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// The source model of `text`, written to a file `name`; `None` without clang (which
/// `have` reports, and fails under CI).
fn model_of(name: &str, text: &str) -> Option<metron_static::source::SourceModel> {
    if !have("clang", "clang") {
        return None;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), name, text);
    Some(parse_file(&src, &[]).unwrap())
}

fn nest_count(model: &metron_static::source::SourceModel, inner: usize) -> i64 {
    let mut chain = vec![inner];
    while let Some(p) = model.loops[*chain.last().unwrap()].parent {
        chain.push(p);
    }
    chain.reverse();
    let loops = chain
        .iter()
        .map(|&c| model.loops[c].scop.clone().unwrap())
        .collect();
    let pw = trip_count(&LoopNest::new(loops), &CountOptions::default()).unwrap();
    pw.evaluate_integer(&binding([]))
        .unwrap()
        .try_into()
        .unwrap()
}

#[test]
fn paper_listings_1_and_2_from_clang() {
    if !have("clang", "clang") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "l.c",
        "void l1(void) {\n  int i, j;\n  for (i = 0; i < 10; i++) { }\n}\n\
         void l2(void) {\n  int i, j;\n  for (i = 1; i <= 4; i++)\n    for (j = i + 1; j <= 6; j++) { }\n}\n",
    );
    let m = parse_file(&src, &[]).unwrap();
    assert_eq!(m.loops.len(), 3);
    assert_eq!(m.loops[0].line, 3);
    assert_eq!(nest_count(&m, 0), 10); // 004 Listing 1
    assert_eq!(m.loops[2].parent, Some(1));
    assert_eq!(nest_count(&m, 2), 14); // 004 Listing 2
    assert_eq!(
        m.functions.iter().map(|f| f.arity).collect::<Vec<_>>(),
        [0, 0]
    );
}

#[test]
fn macros_resolve_through_cflags_and_unknown_bounds_need_annotation() {
    if !have("clang", "clang") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "m.c",
        "int f(int *b) {\n  int s = 0;\n  for (int i = 0; i < SIZE; i += 3) s++;\n\
         for (int j = 0; j < b[0]; j++) s++;\n  return s;\n}\n",
    );
    let m = parse_file(&src, &["-DSIZE=100".to_string()]).unwrap();
    assert_eq!(nest_count(&m, 0), 34); // ceil(100/3)
                                       // b[0] is data: the bound is a parameter of its own, whose value a profile records.
    let d = m.loops[1].data_bound.as_ref().expect("b[0] is data");
    assert_eq!(d.parameter, "data_4");
    let end = &m.loops[1].scop.as_ref().unwrap().end;
    assert_eq!(end.exprs(), [metron_symbolic::AffineExpr::var("data_4")]);
}

#[test]
fn annotations_complete_the_model_as_in_figure_5() {
    if !have("clang", "clang") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // 004 Fig. 5(a), the loop part.
    let src = write(
        dir.path(),
        "a.cpp",
        "class A{\npublic:\n void foo(double *a, double *b){\n  for(int i = 0; i < 10; i++){\n\
         for(int j = 0; j < b[i]; j++){\n#pragma @Annotation {lp_cond:y}\n a[j] = a[j] * b[j];\n }\n }\n }\n};\n",
    );
    let m = parse_file(&src, &[]).unwrap();
    let inner = m.loops[1].scop.clone().unwrap();
    let outer = m.loops[0].scop.clone().unwrap();
    let pw = trip_count(&LoopNest::new(vec![outer, inner]), &CountOptions::default()).unwrap();
    // The paper's `if y > 0: 10*y`.
    assert_eq!(
        pw.evaluate_integer(&binding([("y", 7)])).unwrap(),
        70.into()
    );
    assert_eq!(
        pw.evaluate_integer(&binding([("y", -1)])).unwrap(),
        0.into()
    );
}

#[test]
fn annotation_syntax_errors_name_file_and_line() {
    let a = parse_annotations(
        "x\n#pragma @Annotation \\\n   {lp_init:x,lp_cond:y}\n#pragma @Annotation {skip:yes}\n",
        Path::new("s.c"),
    )
    .unwrap();
    assert_eq!(a.len(), 2);
    assert_eq!(a[0].line, 2);
    assert_eq!(
        a[0].entries,
        [
            ("lp_init".into(), "x".into()),
            ("lp_cond".into(), "y".into())
        ]
    );
    let e = parse_annotations("\n\n#pragma @Annotation {bogus:1}\n", Path::new("s.c"))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("s.c:3:") && e.contains("lp_iter"), "{e}");
    let e = parse_annotations("#pragma @Annotation lp_cond:y\n", Path::new("s.c"))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("s.c:1:"), "{e}");
}

#[test]
fn paper_listings_4_and_5_ifs_from_clang() {
    if !have("clang", "clang") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let src = write(
        dir.path(),
        "ifs.c",
        "int s, t;\n\
         void l4(void) {\n  int i, j;\n  for (i = 1; i <= 4; i++)\n    for (j = i + 1; j <= 6; j++)\n\
         \x20     if (j > 4) {\n        s++;\n      }\n}\n\
         void l5(double x) {\n  int i, j;\n  for (i = 1; i <= 4; i++)\n    for (j = i + 1; j <= 6; j++)\n\
         \x20     if (j % 4 != 0) {\n        s++;\n      } else {\n        t++;\n      }\n\
         \x20 for (i = 0; i < 3; i++)\n    #pragma @Annotation {br_prob: 0.25}\n    if (x > 1.0)\n      s++;\n}\n",
    );
    let m = parse_file(&src, &[]).unwrap();
    assert_eq!(m.ifs.len(), 3);
    let count = |k: usize, negate: bool| -> i64 {
        let f = &m.ifs[k];
        let inner = f.parent_loop.unwrap();
        let outer = m.loops[inner].parent.unwrap();
        let loops = vec![
            m.loops[outer].scop.clone().unwrap(),
            m.loops[inner].scop.clone().unwrap(),
        ];
        let mut nest = LoopNest::new(loops.clone());
        nest.conditions = f.condition.clone().unwrap();
        let then: i64 = trip_count(&nest, &CountOptions::default())
            .unwrap()
            .evaluate_integer(&binding([]))
            .unwrap()
            .try_into()
            .unwrap();
        if negate {
            nest_count(&m, inner) - then
        } else {
            then
        }
    };
    // Hand counts of 004 Listings 4 and 5 (issue 4's table).
    assert_eq!(count(0, false), 8);
    assert_eq!(count(1, false), 11);
    assert_eq!(count(1, true), 3);
    // Arm lines exclude the condition line (`if (c) {`) and the `} else {` line.
    assert_eq!((m.ifs[0].line, m.ifs[0].then_lines), (6, (7, 8)));
    assert_eq!(m.ifs[1].then_lines, (15, 16));
    assert_eq!(m.ifs[1].else_lines, Some((17, 18)));
    // A condition on local data is not affine: it needs (and here has) `br_prob`.
    assert!(m.ifs[2].condition.is_err());
    assert_eq!(m.ifs[2].probability, Some(0.25));
}

/// `while` and `do` loops whose counter is set before them and stepped once per pass are
/// loops of the model, counted by brute force here (a `do` loop runs once even when its
/// test fails at once); ones a pass can leave early, whose counter is written twice or that
/// walk a pointer are not (their binary loops keep their own trip-count parameters).
#[test]
fn while_and_do_loops_with_a_counter_are_loops_of_the_model() {
    let Some(m) = model_of(
        "w.c",
        "void counted(int *a) {\n\
         \x20 int i = 0;\n\
         \x20 while (i < 10) { a[i] = 0; i++; }\n\
         \x20 int k;\n\
         \x20 k = 9;\n\
         \x20 do { a[k] = 1; k -= 3; } while (k > 0);\n\
         \x20 int j = 7;\n\
         \x20 do { a[j] = 2; j++; } while (j < 5);\n\
         }\n\
         void not_counted(int *a, int *end) {\n\
         \x20 int i = 0;\n\
         \x20 while (i < 10) { if (a[i]) break; i++; }\n\
         \x20 i = 0;\n\
         \x20 while (i < 10) { if (a[i]) { i += 2; continue; } i++; }\n\
         \x20 while (a < end) *a++ = 0;\n\
         }\n",
    ) else {
        return;
    };
    let lines: Vec<u32> = m.loops.iter().map(|l| l.line).collect();
    assert_eq!(
        lines,
        [3, 6, 8],
        "only `counted`'s loops are loops of the model"
    );
    // 0..9; 9, 6, 3; and 7 once.
    assert_eq!(
        (0..3).map(|l| nest_count(&m, l)).collect::<Vec<_>>(),
        [10, 3, 1]
    );
}

/// Conditions that count their counter down as they test it: `for (unsigned i = n; i-- > 0;)`
/// and `while (n--)` on a parameter run n times, `while (k-- > 2)` from k = 9 seven times
/// (brute force: the bodies see 8..2).
#[test]
fn conditions_that_count_down_as_they_test_are_loops_of_the_model() {
    let Some(m) = model_of(
        "d.c",
        "void d(unsigned n, int m, double *a) {\n\
         \x20 for (unsigned i = n; i-- > 0;) a[i] = 0;\n\
         \x20 while (m--) a[m] += 1;\n\
         \x20 int k = 9;\n\
         \x20 while (k-- > 2) a[k] *= 2;\n\
         }\n",
    ) else {
        return;
    };
    assert_eq!(m.loops.len(), 3);
    let at = |l: usize, b: &[(&str, i64)]| {
        let nest = LoopNest::new(vec![m.loops[l].scop.clone().unwrap()]);
        let c = trip_count(&nest, &CountOptions::default()).unwrap();
        c.evaluate_integer(&binding(b.iter().copied())).unwrap()
    };
    for v in [0, 1, 5] {
        assert_eq!(at(0, &[("n", v)]), v.into(), "for at n = {v}");
        assert_eq!(at(1, &[("m", v)]), v.into(), "while (m--) at m = {v}");
    }
    assert_eq!(at(2, &[]), 7.into());
}

/// Locals computed once from the parameters before the loops (`m = n % 5;`, `int h = (n -
/// 1) / 2;`) are derived values: a loop bounded by one is counted in it, and the model
/// computes it from `n` in C's arithmetic; a local written again is not one.
#[test]
fn locals_computed_from_the_parameters_are_derived_values() {
    let Some(m) = model_of(
        "l.c",
        "void l(int n, double *a) {\n\
         \x20 int i, m, s = 0;\n\
         \x20 m = n % 5;\n\
         \x20 int h = (n - 1) / 2;\n\
         \x20 for (i = 0; i < m; i++) a[i] = 0;\n\
         \x20 for (i = 0; i < h; i++) s += i;\n\
         \x20 a[0] = s;\n\
         }\n",
    ) else {
        return;
    };
    let names: Vec<&str> = m.locals.iter().map(|(_, l)| l.name.as_str()).collect();
    assert_eq!(names, ["m", "h"], "`s` is written in the loop");
    for v in [-7, 0, 3, 12] {
        let b = binding([("n", v)]);
        assert_eq!(m.locals[0].1.value(&b), Ok(v % 5));
        assert_eq!(m.locals[1].1.value(&b), Ok((v - 1) / 2));
    }
}

/// `sizeof` of scalar and pointer types is the x86-64 size: a benchmark harness sizes its
/// cache-flush buffer as `32768 / sizeof(double)` (unbound before: "give --param cs").
#[test]
fn sizeof_a_scalar_type_is_its_size_in_bytes() {
    let Some(m) = model_of(
        "s.c",
        "void s(int n, double *a) {\n\
         \x20 int cs = 32768 / sizeof(double);\n\
         \x20 int w = n * sizeof(int) + sizeof(char *) + sizeof(unsigned char);\n\
         \x20 for (int i = 0; i < cs; i++) a[i] = 0;\n\
         \x20 for (int i = 0; i < w; i++) a[i] += 1;\n\
         }\n",
    ) else {
        return;
    };
    let b = binding([("n", 3)]);
    let value = |name: &str| {
        m.locals
            .iter()
            .find(|(_, l)| l.name == name)
            .map(|(_, l)| l.value(&b))
    };
    assert_eq!(value("cs"), Some(Ok(4096)));
    assert_eq!(value("w"), Some(Ok(3 * 4 + 8 + 1)));
}

/// `for (i = 0, j = 9; i < 10; i++, j--)` and `for (j = 7, i = 0; i < 5; ++i, --j)`: the
/// counter is the variable the condition tests, whichever place it has in the comma lists.
#[test]
fn comma_lists_in_a_for_name_the_counter_the_condition_tests() {
    let Some(m) = model_of(
        "c.c",
        "void c(double *a) {\n\
         \x20 int i, j;\n\
         \x20 for (i = 0, j = 9; i < 10; i++, j--) a[i] = a[j];\n\
         \x20 for (j = 7, i = 0; i < 5; ++i, --j) a[i] += a[j];\n\
         }\n",
    ) else {
        return;
    };
    assert_eq!(m.loops.len(), 2);
    assert_eq!((nest_count(&m, 0), nest_count(&m, 1)), (10, 5));
}

/// Casts between integer types in bounds (`i < (long)10`, `j <= (unsigned)(7)`) keep the
/// loop affine; a cast to `double` does not.
#[test]
fn integer_casts_in_bounds_keep_a_loop_affine() {
    let Some(m) = model_of(
        "k.c",
        "void k(double *a) {\n\
         \x20 for (long i = 0; i < (long)10; i++) a[i] = 0;\n\
         \x20 for (unsigned j = 0; j <= (unsigned)(7); j++) a[j] = 1;\n\
         \x20 for (int k = 0; k < (double)3; k++) a[k] = 2;\n\
         }\n",
    ) else {
        return;
    };
    assert_eq!((nest_count(&m, 0), nest_count(&m, 1)), (10, 8));
    assert!(m.loops[2].scop.is_err(), "{:?}", m.loops[2].scop);
}

/// A loop whose bound or start is an integer expression of the parameters but not affine
/// (`i < m * n`, `k = n / 3; k < n / 2`) is counted with that expression as a derived value
/// (`bound_LINE`, `start_LINE`): 12 and 1 iterations at m = 3, n = 4.
#[test]
fn non_affine_bounds_of_parameters_are_derived_values() {
    let Some(model) = model_of(
        "f.c",
        "void f(int m, int n, double *a) {\n\
         \x20 for (int i = 0; i < m * n; i++) a[i] = 0;\n\
         \x20 for (int k = n / 3; k < n / 2; k++) a[k] = 1;\n\
         }\n",
    ) else {
        return;
    };
    let mut b = binding([("m", 3), ("n", 4)]);
    for (_, l) in &model.locals {
        let v = l.value(&b).unwrap();
        b.insert(l.name.clone(), v);
    }
    let count = |l: usize| {
        let nest = LoopNest::new(vec![model.loops[l].scop.clone().unwrap()]);
        let c = trip_count(&nest, &CountOptions::default()).unwrap();
        c.evaluate_integer(&b).unwrap()
    };
    assert_eq!((count(0), count(1)), (12.into(), 1.into()));
}

/// `loop_copy::passes_in_entries_with_at_least` (a vector copy behind a trip threshold)
/// against enumeration: for each entry of the inner loop, its trip `N` by running it, and
/// `floor(N / w)` where `N >= k`. Up-counting by 3 to an inclusive end read from the outer
/// counter, and down-counting to a `MAX` of the outer counter and a constant.
#[test]
fn passes_in_entries_past_a_trip_threshold_match_enumeration() {
    let text = "#define MAX(a, b) ((a) > (b) ? (a) : (b))\n\
        void up(int m) {\n  for (int i = 2; i < m + 2; i++)\n    for (int l = 0; l <= i - 2; l += 3) { }\n}\n\
        void down(int n) {\n  for (int i = 0; i < n; i++)\n    for (int j = n + 2; j > MAX(i, 3); j--) { }\n}\n";
    let Some(model) = model_of("thresholds.c", text) else {
        return;
    };
    let trips_up = |m: i64| (2..m + 2).map(|i| (0..=i - 2).step_by(3).count() as i64);
    let trips_down = |n: i64| (0..n).map(move |i| (i.max(3) + 1..=n + 2).count() as i64);
    let options = CountOptions::default();
    for (w, k) in [(1, 4), (2, 4), (4, 8), (1, 3), (2, 5)] {
        let up = metron_static::loop_copy::passes_in_entries_with_at_least(
            &model,
            1,
            (w, k),
            &[],
            &options,
        )
        .unwrap();
        let down = metron_static::loop_copy::passes_in_entries_with_at_least(
            &model,
            3,
            (w, k),
            &[],
            &options,
        )
        .unwrap();
        for size in 0..30 {
            let want = |trips: Vec<i64>| {
                trips
                    .iter()
                    .filter(|&&t| t >= k)
                    .map(|t| t / w)
                    .sum::<i64>()
            };
            let at = |p: &metron_symbolic::Piecewise, name: &str| -> i64 {
                p.evaluate_integer(&binding([(name, size)]))
                    .unwrap()
                    .try_into()
                    .unwrap()
            };
            assert_eq!(
                at(&up, "m"),
                want(trips_up(size).collect()),
                "up w={w} k={k} m={size}"
            );
            assert_eq!(
                at(&down, "n"),
                want(trips_down(size).collect()),
                "down w={w} k={k} n={size}"
            );
        }
    }
    // With an arm on the outer counter (an alias test's side, `7 <= i`): only its entries.
    let arm = [metron_symbolic::Condition::Affine {
        lhs: metron_symbolic::AffineExpr::constant(7),
        op: metron_symbolic::CmpOp::Le,
        rhs: metron_symbolic::AffineExpr::var("i"),
    }];
    for (w, k) in [(1, 3), (2, 4)] {
        let up = metron_static::loop_copy::passes_in_entries_with_at_least(
            &model,
            1,
            (w, k),
            &arm,
            &options,
        )
        .unwrap();
        for m in 0..30i64 {
            let want: i64 = (2..m + 2)
                .filter(|&i| i >= 7)
                .map(|i| (0..=i - 2).step_by(3).count() as i64)
                .filter(|&t| t >= k)
                .map(|t| t / w)
                .sum();
            let got: i64 = up
                .evaluate_integer(&binding([("m", m)]))
                .unwrap()
                .try_into()
                .unwrap();
            assert_eq!(got, want, "up where 7 <= i, w={w} k={k} m={m}");
        }
    }
}
