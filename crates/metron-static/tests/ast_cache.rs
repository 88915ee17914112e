//! The AST cache: a second parse reads the cached model, a changed header invalidates it, a
//! stale or corrupt entry is ignored, and the streamed reading of clang's output gives the same
//! model as reading the whole AST. (Own test binary: it sets METRON_CACHE_DIR for the process;
//! the tests take a lock so that each sees its own directory.)
mod common;
use common::*;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use metron_static::source::{
    apply_annotations, from_ast, parse_annotations, parse_file, SourceModel,
};
use metron_symbolic::{binding, trip_count, CountOptions, LoopNest};

static ENV: Mutex<()> = Mutex::new(());

fn count(m: &SourceModel) -> i64 {
    let nest = LoopNest::new(vec![m.loops[0].scop.clone().unwrap()]);
    trip_count(&nest, &CountOptions::default())
        .unwrap()
        .evaluate_integer(&binding([]))
        .unwrap()
        .try_into()
        .unwrap()
}

fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

fn with_extension(files: &[PathBuf], ext: &str) -> PathBuf {
    files
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == ext))
        .unwrap_or_else(|| panic!("no .{ext} in {files:?}"))
        .clone()
}

/// A source whose loop runs `N` times, `N` from an included header.
fn kernel(dir: &Path) -> PathBuf {
    std::fs::write(dir.join("n.h"), "#define N 10\n").unwrap();
    let src = dir.join("k.c");
    std::fs::write(
        &src,
        "#include \"n.h\"\nvoid k(double *x) {\n  for (int i = 0; i < N; i++) x[i] = 0;\n}\n",
    )
    .unwrap();
    src
}

#[test]
fn second_parse_reads_the_cache_and_a_changed_header_invalidates_it() {
    if !have("clang", "clang") {
        return;
    }
    let _env = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    std::env::set_var("METRON_CACHE_DIR", &cache);
    let src = kernel(dir.path());
    assert_eq!(count(&parse_file(&src, &[]).unwrap()), 10);
    let entries = files_in(&cache);
    assert_eq!(entries.len(), 2, "{entries:?}");
    // The deps list names the header with its size and modification time.
    let deps = std::fs::read_to_string(with_extension(&entries, "deps")).unwrap();
    assert!(deps.lines().any(|l| l.ends_with("n.h")), "{deps}");
    // Doctor the cached model: a parse that reads it sees the doctored bound.
    let model = with_extension(&entries, "model");
    let text = std::fs::read_to_string(&model).unwrap();
    assert!(text.starts_with("metron-static-ast-model 2 "), "{text}");
    let bound = "\"end\":{\"max\":[{\"terms\":{},\"constant\":10}]}";
    assert!(text.contains(bound), "{text}");
    std::fs::write(&model, text.replace(bound, &bound.replace("10", "7"))).unwrap();
    assert_eq!(count(&parse_file(&src, &[]).unwrap()), 7);
    // A header change (size differs) invalidates the entry: clang runs again.
    std::fs::write(dir.path().join("n.h"), "#define N 200\n").unwrap();
    assert_eq!(count(&parse_file(&src, &[]).unwrap()), 200);
}

#[test]
fn stale_corrupt_and_old_format_entries_are_ignored_and_replaced() {
    if !have("clang", "clang") {
        return;
    }
    let _env = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    std::env::set_var("METRON_CACHE_DIR", &cache);
    let src = kernel(dir.path());
    assert_eq!(count(&parse_file(&src, &[]).unwrap()), 10);
    let entries = files_in(&cache);
    let model = with_extension(&entries, "model");
    let good = std::fs::read_to_string(&model).unwrap();
    let (header, body) = good.split_once('\n').unwrap();
    let doctored = body.replace("\"constant\":10}", "\"constant\":7}");
    assert_ne!(doctored, body);
    let bad_entries = [
        // Truncated JSON.
        format!("{header}\n{}", &body[..body.len() / 2]),
        // Not JSON at all.
        format!("{header}\n\u{0}\u{1}garbage"),
        // Written by another build of metron (or an older format): the doctored bound must
        // not be believed.
        format!("{}\n{doctored}", header.replace("model 2", "model 1")),
        format!("metron-static-ast-model 2 0 0 /elsewhere/metron\n{doctored}"),
        String::new(),
    ];
    for bad in bad_entries {
        std::fs::write(&model, &bad).unwrap();
        assert_eq!(count(&parse_file(&src, &[]).unwrap()), 10, "entry {bad:?}");
        // ... and the entry was rewritten with a good one.
        assert_eq!(std::fs::read_to_string(&model).unwrap(), good);
    }
    // A corrupt deps list is ignored too.
    let deps = with_extension(&entries, "deps");
    std::fs::write(&deps, "no tab here\n").unwrap();
    assert_eq!(count(&parse_file(&src, &[]).unwrap()), 10);
    assert!(std::fs::read_to_string(&deps).unwrap().contains('\t'));
    // Format 1 kept clang's JSON as KEY.json; storing a new entry removes it.
    let old_json = model.with_extension("json");
    std::fs::write(&old_json, "{}").unwrap();
    std::fs::remove_file(&model).unwrap();
    assert_eq!(count(&parse_file(&src, &[]).unwrap()), 10);
    assert!(!old_json.exists());
    assert_eq!(files_in(&cache).len(), 2);
}

/// clang's whole JSON AST of `src`, run directly (independently of metron's streaming reader).
fn whole_ast(src: &Path, flags: &[&str]) -> serde_json::Value {
    let out = metron_measure::tool::testing::command("clang")
        .args(["-Xclang", "-ast-dump=json", "-fsyntax-only"])
        .args(flags)
        .arg(src)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn streamed_and_cached_models_equal_the_whole_ast_model() {
    if !have("clang", "clang") {
        return;
    }
    let _env = ENV.lock().unwrap_or_else(|e| e.into_inner());
    let dir = tempfile::tempdir().unwrap();
    std::env::set_var("METRON_CACHE_DIR", dir.path());
    // A C++ example with templates and headers, and one with many ifs and a `br_prob`
    // annotation (parse_file applies annotations after reading the AST: so does `want`).
    for (name, flags) in [("cg.cpp", vec!["-std=c++17"]), ("branches.c", vec![])] {
        let src = example(name);
        let flags_owned: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
        let mut whole = from_ast(&whole_ast(&src, &flags), &src);
        let text = std::fs::read_to_string(&src).unwrap();
        apply_annotations(&mut whole, &parse_annotations(&text, &src).unwrap());
        let want = format!("{whole:?}");
        assert!(want.contains("SourceLoop"), "{name}: no loops read: {want}");
        let cold = parse_file(&src, &flags_owned).unwrap();
        assert_eq!(format!("{cold:?}"), want, "{name}: streamed");
        let warm = parse_file(&src, &flags_owned).unwrap();
        assert_eq!(format!("{warm:?}"), want, "{name}: from the cache");
    }
}
