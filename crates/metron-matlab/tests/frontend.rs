//! Front end: parsing the corpus, spans, name resolution, syntax errors, minimal edits.

use std::path::{Path, PathBuf};

use metron_matlab::ast::{ExprKind, StmtKind};
use metron_matlab::passes::{run_passes, Options};
use metron_matlab::resolve::Names;

pub fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/matlab");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "m"))
        .collect();
    files.sort();
    assert!(files.len() >= 12, "corpus missing in {}", dir.display());
    files
}

#[test]
fn every_corpus_file_parses_and_round_trips_when_no_pass_applies() {
    for file in corpus() {
        let src = std::fs::read_to_string(&file).unwrap();
        let program = metron_matlab::parse(&src, &file).unwrap();
        assert!(
            !program.statements.is_empty() || !program.functions.is_empty(),
            "{} parsed to nothing",
            file.display()
        );
        // Repacking on Octave never applies without --force (no combinable functions), so
        // the output must be the input, byte for byte.
        let options = Options {
            runtime: "octave".into(),
            ..Options::default()
        };
        let out = run_passes(&src, &file, &["repack".to_string()], &options).unwrap();
        assert_eq!(out[0].source, src, "{} changed", file.display());
    }
}

#[test]
fn spans_point_at_the_statement_text() {
    let src = "x = 1;\n  % comment\ny = x + 2;\n";
    let p = metron_matlab::parse(src, Path::new("t.m")).unwrap();
    assert_eq!(p.statements.len(), 2);
    assert_eq!(p.text(p.statements[1].span), "y = x + 2");
    assert_eq!(
        (p.statements[1].span.line, p.statements[1].span.column),
        (3, 1)
    );
}

#[test]
fn functions_with_and_without_end_and_several_per_file() {
    let src = "function y = f(x)\ny = g(x) + 1;\nend\nfunction z = g(w)\nz = 2*w;\nend\n";
    let p = metron_matlab::parse(src, Path::new("f.m")).unwrap();
    let names: Vec<_> = p.functions.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["f", "g"]);
    assert_eq!(p.functions[1].params, ["w"]);
    assert_eq!(p.functions[0].outputs, ["y"]);
    let src = "function [a, b] = h(x, y)\na = x;\nb = y;\n";
    let p = metron_matlab::parse(src, Path::new("h.m")).unwrap();
    assert_eq!(p.functions[0].outputs, ["a", "b"]);
    assert_eq!(p.functions[0].body.len(), 2);
}

#[test]
fn indexing_and_calls_are_told_apart() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/matlab/triad.m");
    let src = std::fs::read_to_string(&file).unwrap();
    let p = metron_matlab::parse(&src, &file).unwrap();
    let scope = p.scopes()[0];
    let names = Names::of_scope(&scope);
    for v in ["a", "b", "c", "s", "i", "n"] {
        assert!(names.is_variable(v), "{v} should be a variable");
    }
    for f in ["rand", "zeros"] {
        assert!(!names.is_variable(f), "{f} should be a function");
    }
    // And the lowered loop body indexes b and c.
    let body = scope
        .body
        .iter()
        .find_map(|s| match &s.kind {
            StmtKind::For { body, .. } => Some(body),
            _ => None,
        })
        .unwrap();
    let StmtKind::Assign { lhs, .. } = &body[0].kind else {
        panic!("assignment expected")
    };
    assert!(matches!(&lhs.kind, ExprKind::Apply { name, .. } if name == "a"));
}

#[test]
fn syntax_errors_name_file_line_column_and_text() {
    let src = "x = 1;\ny = (2 + ;\n";
    let err = metron_matlab::parse(src, Path::new("bad.m")).unwrap_err();
    assert_eq!(err.file, "bad.m");
    assert_eq!(err.line, 2);
    let msg = err.to_string();
    assert!(msg.starts_with("bad.m:2:"), "{msg}");
    assert!(!err.found.is_empty(), "{msg}");
}

#[test]
fn minimal_edits_keep_comments_blank_lines_and_layout() {
    let file =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/matlab/script_commands.m");
    let src = std::fs::read_to_string(&file).unwrap();
    let out = run_passes(&src, &file, &["range".to_string()], &Options::default()).unwrap();
    let new = &out[0].source;
    let (old_lines, new_lines): (Vec<_>, Vec<_>) = (src.lines().collect(), new.lines().collect());
    assert_eq!(old_lines.len(), new_lines.len());
    let changed: Vec<usize> = (0..old_lines.len())
        .filter(|&i| old_lines[i] != new_lines[i])
        .collect();
    // Only the last line, `odd = w(2*(1:25)-1);`, is rewritten (000 §5.3: 1:2:49).
    assert_eq!(changed, vec![old_lines.len() - 1]);
    assert_eq!(new_lines[changed[0]], "odd = w(1:2:49);");
    assert!(new.ends_with('\n'));
}

/// Issue 14: a 30,000-term expression is refused with a message naming the line, not a
/// stack overflow; one within the limit still parses and goes through every pass.
#[test]
fn deep_expressions_are_refused_with_a_message() {
    let terms: Vec<String> = (0..30_000).map(|k| format!("x{}", k % 7)).collect();
    let src = format!("% generated\ny = {};\n", terms.join(" + "));
    let err = metron_matlab::parse(&src, std::path::Path::new("deep.m")).unwrap_err();
    assert_eq!(err.line, 2, "{err}");
    assert!(err.to_string().contains("levels"), "{err}");
    let terms: Vec<String> = (0..480).map(|k| format!("x({})", k % 7 + 1)).collect();
    let src = format!("function y = f(x)\ny = {};\nend\n", terms.join(" + "));
    let passes: Vec<String> = [
        "range",
        "inline",
        "repack",
        "reorder",
        "vectorize",
        "dslice",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    metron_matlab::passes::run_passes(
        &src,
        std::path::Path::new("wide.m"),
        &passes,
        &metron_matlab::passes::Options::default(),
    )
    .unwrap();
}
