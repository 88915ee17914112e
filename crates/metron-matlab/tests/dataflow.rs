//! Reaching definitions, and range-expression inlining that relies on them.

use std::path::Path;

use metron_matlab::dataflow::ReachingDefinitions;
use metron_matlab::passes::inline;

#[test]
fn reaching_definitions_join_branches_and_go_around_loops() {
    let src = "x = 1;\nif c\n  x = 2;\nend\ny = x;\nfor i = 1:3\n  z = x;\n  x = 3;\nend\nw = x;\n";
    let p = metron_matlab::parse(src, Path::new("t.m")).unwrap();
    let scope = p.scopes()[0];
    let rd = ReachingDefinitions::of_scope(&scope);
    let at = |needle: &str| src.find(needle).unwrap();
    let lines = |defs: std::collections::BTreeSet<metron_matlab::dataflow::Def>| {
        let mut v: Vec<usize> = defs
            .iter()
            .map(|d| src[..d.at].matches('\n').count() + 1)
            .collect();
        v.sort();
        v
    };
    // y = x sees x = 1 (line 1) and x = 2 (line 3).
    assert_eq!(lines(rd.reaching(at("y = x"), "x")), vec![1, 3]);
    // Inside the loop, z = x also sees x = 3 from the previous iteration (line 8).
    assert_eq!(lines(rd.reaching(at("z = x"), "x")), vec![1, 3, 8]);
    // After the loop (which may run zero times) all three reach.
    assert_eq!(lines(rd.reaching(at("w = x"), "x")), vec![1, 3, 8]);
}

#[test]
fn ranges_are_inlined_only_where_reaching_definitions_allow() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/matlab/mc2mc_style.m");
    let src = std::fs::read_to_string(&file).unwrap();
    let p = metron_matlab::parse(&src, &file).unwrap();
    let out = inline::run(&p).unwrap();
    assert!(
        out.source.contains("b(1:n) = a(2:n+1) - a(1:n);"),
        "{}",
        out.source
    );
    assert!(out.source.contains("c = a(I);"), "{}", out.source);
    assert!(out.source.contains("d = a(K);"), "{}", out.source);
    assert!(out
        .notes
        .iter()
        .any(|n| !n.applied && n.message.contains("changes in between")));
}
