//! Golden tests of the execution model: 000 Fig. 4.9 and Table 4.4 (MIT-1..8), with every
//! expected chain derived by hand from Algorithm 2 and Table 4.3 (derivations below).

use metron_matlab::classification::Classification;
use metron_matlab::instruction_tree::{chain_string, model_expression, ChainItem};

fn chain(expr: &str, runtime: &str, udf: &[&str]) -> String {
    let c = Classification::builtin(runtime).unwrap();
    let udf: Vec<String> = udf.iter().map(|s| s.to_string()).collect();
    let (_, chain) = model_expression(expr, &c, &udf).unwrap();
    chain_string(&chain)
}

#[test]
fn fig_4_9_chain_is_the_documents() {
    // Given in 000 Fig. 4.9 itself.
    assert_eq!(
        chain(
            "A(1:N) + compute(B.*C(1:N), cos(D./E))",
            "r2018b",
            &["compute"]
        ),
        "copy, copy, {.*}, {cos, ./}, {compute}, {+}"
    );
}

#[test]
fn mit_1_sum_round() {
    // round is combinable, sum single: round cannot merge into sum -> two blocks (§7.1.4,
    // Fig. 7.6 "has two instruction blocks").
    assert_eq!(chain("sum(round(A))", "r2018b", &[]), "{round}, {sum}");
}

#[test]
fn mit_2_sqrt_blocks() {
    // .* merges into fix (both combinable, no right sibling); fix cannot merge into sqrt
    // (single); sqrt cannot merge into +; floor has sqrt as right sibling. Four blocks, the
    // second being fix(B.*C), as §7.1.2 says of Fig. 7.1.
    assert_eq!(
        chain("floor(A) + sqrt(fix(B .* C))", "r2018b", &[]),
        "{floor}, {fix, .*}, {sqrt}, {+}"
    );
}

#[test]
fn mit_3_collapses_to_one_block() {
    // .* -> fix -> sin -> + merge bottom-up (all combinable, each the last child); then floor
    // has no right sibling any more and merges too: one node, as §4.5.1 says of expression 3.
    let c = chain("floor(A) + sin(fix(B .* C))", "r2018b", &[]);
    assert_eq!(c, "{+, sin, fix, .*, floor}");
}

#[test]
fn mit_4_powers_are_single() {
    // exp(./(+(.^,.^), .^)): ./ is exp's only child -> merges into exp; the two .^ under +
    // and the .^ right of + are single; + has a right sibling (C.^F) so it stays alone.
    assert_eq!(
        chain("exp((A.^D+B.^E) ./ (C.^F))", "r2018b", &[]),
        "{.^}, {.^}, {+}, {.^}, {exp, ./}"
    );
}

#[test]
fn mit_5_slices_and_atan2() {
    // atan2 is the last child of .* and both are combinable -> {.*, atan2}; slices stay
    // separate copies in evaluation order.
    assert_eq!(
        chain("A(1:N) .* atan2(B(1:N), C)", "r2018b", &[]),
        "copy, copy, {.*, atan2}"
    );
}

#[test]
fn mit_6_and_its_reordering() {
    // (log(A)+B)+C(1:N): the slice of C is the right sibling of the inner +, so the two
    // additions stay apart; log is single.
    assert_eq!(
        chain("log(A) + B + C(1:N)", "r2018b", &[]),
        "{log}, {+}, copy, {+}"
    );
    // §7.1.3 / Fig. 7.4: swapping B and C(1:N) leaves the inner + as the last child, so it
    // merges: fewer blocks.
    assert_eq!(
        chain("log(A) + C(1:N) + B", "r2018b", &[]),
        "{log}, copy, {+, +}"
    );
}

#[test]
fn mit_7_fix_blocked_by_slices() {
    // .* is the last child of + -> merges and hands its two slices to +; fix now has slice B
    // as right sibling and cannot merge.
    assert_eq!(
        chain("fix(A(1:N))+(B(1:N).*C(1:N))", "r2018b", &[]),
        "copy, {fix}, copy, copy, {+, .*}"
    );
}

#[test]
fn mit_8_nested_additions() {
    // The inner + is the last child -> merges: three copies then one block.
    assert_eq!(
        chain("A(1:N) + (B(1:N) + C(1:N))", "r2018b", &[]),
        "copy, copy, copy, {+, +}"
    );
}

#[test]
fn expm1_differs_between_runtimes() {
    // Table 4.3 footnotes: expm1 is single on R2015b and combinable on R2018b.
    assert_eq!(chain("expm1(A) + B", "r2015b", &[]), "{expm1}, {+}");
    assert_eq!(chain("expm1(A) + B", "r2018b", &[]), "{+, expm1}");
}

#[test]
fn octave_has_no_combinable_functions() {
    // No JIT in Octave: each instruction is its own block.
    assert_eq!(
        chain(
            "A(1:N) + compute(B.*C(1:N), cos(D./E))",
            "octave",
            &["compute"]
        ),
        "copy, copy, {.*}, {./}, {cos}, {compute}, {+}"
    );
}

#[test]
fn scalar_mode_is_flagged() {
    // §7.1.2: fix forces scalar arithmetic on the whole block it shares with .*.
    let c = Classification::builtin("r2018b").unwrap();
    let (_, chain) = model_expression("floor(A) + sqrt(fix(B .* C))", &c, &[]).unwrap();
    let scalar: Vec<bool> = chain
        .iter()
        .map(|i| {
            matches!(
                i,
                ChainItem::Block {
                    scalar_mode: true,
                    ..
                }
            )
        })
        .collect();
    assert_eq!(scalar, vec![false, true, false, false]);
}

#[test]
fn expression_syntax_errors_point_into_the_expression() {
    let c = Classification::builtin("r2018b").unwrap();
    let err = model_expression("A +* B", &c, &[]).unwrap_err();
    assert_eq!((err.line, err.column), (1, 3), "{err}");
}

#[test]
fn reorder_pass_reproduces_fig_7_4() {
    use metron_matlab::passes::{reorder, Options};
    let src = "function R = f(N)\nA = rand(1, N); B = rand(1, N); C = rand(1, N);\nR = log(A) + B + C(1:N);\nend\n";
    let p = metron_matlab::parse(src, std::path::Path::new("f.m")).unwrap();
    let out = reorder::run(&p, &Options::default()).unwrap().unwrap();
    assert!(
        out.source.contains("R = log(A) + C(1:N) + B;"),
        "{}",
        out.source
    );
    // On Octave nothing merges, so no order is better and nothing changes.
    let octave = Options {
        runtime: "octave".into(),
        ..Options::default()
    };
    let out = reorder::run(&p, &octave).unwrap().unwrap();
    assert_eq!(out.source, src);
}
