//! The clang JSON AST cache: a second parse reads the cache, and a change to an included
//! header invalidates it. (Own test binary: it sets METRON_CACHE_DIR for the process.)
mod common;
use common::*;

use metron_static::source::parse_file;
use metron_symbolic::{binding, trip_count, CountOptions, LoopNest};

fn count(m: &metron_static::source::SourceModel) -> i64 {
    let nest = LoopNest::new(vec![m.loops[0].scop.clone().unwrap()]);
    trip_count(&nest, &CountOptions::default())
        .unwrap()
        .evaluate_integer(&binding([]))
        .unwrap()
        .try_into()
        .unwrap()
}

#[test]
fn second_parse_reads_the_cache_and_a_changed_header_invalidates_it() {
    if !have("clang", "clang") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    std::env::set_var("METRON_CACHE_DIR", &cache);
    std::fs::write(dir.path().join("n.h"), "#define N 10\n").unwrap();
    let src = dir.path().join("k.c");
    std::fs::write(
        &src,
        "#include \"n.h\"\nvoid k(double *x) {\n  for (int i = 0; i < N; i++) x[i] = 0;\n}\n",
    )
    .unwrap();
    assert_eq!(count(&parse_file(&src, &[]).unwrap()), 10);
    let entries: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(entries.len(), 2, "{entries:?}");
    // Doctor the cached AST: a parse that reads it sees the doctored bound.
    let json = entries
        .iter()
        .find(|p| p.extension().is_some_and(|e| e == "json"))
        .unwrap();
    let text = std::fs::read_to_string(json).unwrap();
    assert!(text.contains("\"value\": \"10\""));
    std::fs::write(json, text.replace("\"value\": \"10\"", "\"value\": \"7\"")).unwrap();
    assert_eq!(count(&parse_file(&src, &[]).unwrap()), 7);
    // A header change (size differs) invalidates the entry: clang runs again.
    std::fs::write(dir.path().join("n.h"), "#define N 200\n").unwrap();
    assert_eq!(count(&parse_file(&src, &[]).unwrap()), 200);
}
