//! Range simplification (000 §5.3) on the thesis's own examples, and its safety conditions.

use std::path::Path;

use metron_matlab::passes::{range, Note};

fn simplify(src: &str) -> (String, Vec<Note>) {
    let p = metron_matlab::parse(src, Path::new("t.m")).unwrap();
    let out = range::run(&p).unwrap();
    (out.source, out.notes)
}

fn rhs(src: &str) -> String {
    let (out, _) = simplify(&format!("N = 10;\nA = zeros(1, 100);\nB = {src};\n"));
    out.lines()
        .nth(2)
        .unwrap()
        .trim_start_matches("B = ")
        .trim_end_matches(';')
        .to_string()
}

#[test]
fn thesis_examples() {
    // 000 §5.3 / Fig. 5.3: A(2*(1:N)-1) == A(1:2:(2*N-1)).
    assert_eq!(rhs("A(2*(1:N)-1)"), "A(1:2:(2*N-1))");
    // Listing 7.1: A((0:(N-1)) + 1) == A(1:N).
    assert_eq!(rhs("A((0:(N-1)) + 1)"), "A(1:N)");
    // Listing 7.2: A((1:2:(N-1)) + 1) == A(2:2:N).
    assert_eq!(rhs("A((1:2:(N-1)) + 1)"), "A(2:2:N)");
    // §5.5: 3*(1:N)+2 == 5:3:(3*N+2).
    assert_eq!(rhs("A(3*(1:N)+2)"), "A(5:3:(3*N+2))");
}

#[test]
fn negative_alpha_flips_the_step() {
    // 2N+1-(1:N) = [2N, 2N-1, ..., N+1]
    assert_eq!(rhs("A(2*N + 1 - (1:N))"), "A((2*N):(-1):(N+1))");
    assert_eq!(rhs("A(-(1:N) + 11)"), "A(10:(-1):(-N+11))");
}

#[test]
fn unsafe_cases_are_left_alone_with_a_reason() {
    let cases = [
        ("A(0*(1:N)+1)", "α = 0"),
        ("A(0.5*(2:2:N))", "not an integer"),
        ("A((1:N) + f(3))", ""), // a call of unknown effect in β: no match at all
    ];
    for (expr, why) in cases {
        let src = format!("N = 10;\nA = zeros(1, 100);\nB = {expr};\n");
        let (out, notes) = simplify(&src);
        assert_eq!(out, src, "{expr} must not change");
        if !why.is_empty() {
            assert!(
                notes.iter().any(|n| !n.applied && n.message.contains(why)),
                "{expr}: {notes:?}"
            );
        }
    }
    // Outside an index, β must be an integer constant.
    let src = "N = 10;\nh = 0.5;\nx = 2*(1:N) + h;\n";
    assert_eq!(simplify(src).0, src);
    let src = "N = 10;\nx = 2*(1:N) + 1;\n";
    assert_eq!(simplify(src).0, "N = 10;\nx = 3:2:(2*N+1);\n");
}

#[test]
fn dynamic_slicing_rewrites_vector_slices_and_appends_the_helper_once() {
    use metron_matlab::passes::dslice;
    let src = "function y = f(n)\nx = rand(1, n);\nM = rand(n, n);\ny = x(2:end) + x(1:end-1);\nz = M(1:n);\nend\n";
    let p = metron_matlab::parse(src, Path::new("f.m")).unwrap();
    let out = dslice::run(&p).unwrap();
    assert!(
        out.source
            .contains("y = d_slice(x, 2, 1, numel(x)) + d_slice(x, 1, 1, (numel(x)-1));"),
        "{}",
        out.source
    );
    // M is a matrix: a linear slice of it is a column, d_slice would return the matrix.
    assert!(out.source.contains("z = M(1:n);"));
    assert_eq!(out.source.matches("function result = d_slice").count(), 1);
    // Applying it again finds the helper and stops.
    let again = metron_matlab::parse(&out.source, Path::new("f.m")).unwrap();
    assert_eq!(dslice::run(&again).unwrap().source, out.source);
    // Scripts are left alone.
    let script = "x = rand(1, 5);\ny = x(1:3);\n";
    let p = metron_matlab::parse(script, Path::new("s.m")).unwrap();
    assert_eq!(dslice::run(&p).unwrap().source, script);
}
